"""How DuckDB reads a batch of export files into temp table ``raw``: plain files of one
document (or one array) whole, the rest through DuckDB's document splitter
(:mod:`quizkit.analysis.readers`)."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack

import duckdb

from quizkit.analysis.connect import LoadError, one_line, run
from quizkit.analysis.files import ExportFile, Lines, Skipped, record_lines
from quizkit.analysis.load_session import setting
from quizkit.analysis.readers import (
    DERIVED_SQL,
    DOCUMENT,
    FORMATS,
    RAW_DDL,
    document_rows_sql,
    documents_sql,
    objects_sql,
    slice_sql,
    whole_files_sql,
)
from quizkit.checks.input_report import unreadable_reason
from quizkit.inputs.sources import Source
from quizkit.model.kinds import shape_sql


def read_files(con: duckdb.DuckDBPyConnection, files: list[ExportFile]
               ) -> tuple[list[ExportFile], list[Skipped], dict[str, int]]:
    """Read the files into temp table ``raw``; the files it read, those it skipped, and the
    records (non-blank lines) of each JSON Lines file it read.

    Plain (not compressed) files of one document or one array of documents are read whole
    and typed in one pass (:func:`_read_whole`); the rest, and the whole files that did not
    parse as one value, go through DuckDB's document splitter (:func:`_read_objects`), which
    fails on a malformed file. Whether a file is skipped, and why, is the validation's
    verdict (:func:`quizkit.checks.input_report.unreadable_reason`), asked only of the files
    DuckDB stumbled on: DuckDB's own error text is never interpreted. A file DuckDB cannot read
    but the validation can fails the load.
    """
    run(con, RAW_DDL)
    whole = [f for f in files if f.container in ("json", "json-array") and not f.compressed]
    if whole:
        try:
            _read_whole(con, whole)
        except duckdb.Error:  # e.g. a file gone since it was listed: the careful path
            run(con, "DELETE FROM raw")
            whole = []
    typed = {file for (file,) in run(con, "SELECT DISTINCT file FROM raw")}
    rest = [f for f in files if f.path not in typed]
    try:
        bad, records = _read_objects(con, rest, first_doc_no=(len(whole) + 1) << 32)
    except duckdb.Error as first_error:
        bad = judged(f.path for f in rest)
        if not bad:
            raise LoadError(one_line(first_error)) from None
        gone = {b.path for b in bad}
        good = [f for f in rest if f.path not in gone]
        more, records = _read_objects(con, good, first_doc_no=(len(whole) + 1) << 32)
        bad += more
    skipped = {b.path for b in bad}
    return [f for f in files if f.path not in skipped], bad, records


def judged(paths: Iterable[str], otherwise: str | None = None) -> list[Skipped]:
    """The files among ``paths`` the validation cannot read, with its reason; with
    ``otherwise``, every file, the others with that reason."""
    out = []
    for path in paths:
        reason = unreadable_reason(Source(path)) or otherwise
        if reason is not None:
            out.append(Skipped(path, reason))
    return out


# Files up to this size are typed in batches (see _read_whole).
_SMALL_FILE = 64 << 10


_BATCH = 256


def _read_whole(con: duckdb.DuckDBPyConnection, files: list[ExportFile]) -> None:
    """Files of one document, or one array of documents, read and typed into ``raw``.

    A file whose content is not one JSON value gets no row (it is left for the splitter).
    The document of the i-th file is numbered i * 2**32 + 1, the elements of an array
    i * 2**32 + 1, 2, ... in order (see readers). DuckDB hands the cast one file at a time,
    and each call costs about 0.1 ms besides the parse (the cast sets up the whole
    ``DOCUMENT`` type); small files are therefore gathered in lists of :data:`_BATCH` and
    each list is cast at once, which halves their time. For large files the lists only add
    a copy. All are read by one statement, each kind as a union of one scan per thread
    (:func:`_lanes`), so that the two cores stay busy to the end of the reading.
    """
    (threads,) = run(con, "SELECT current_setting('threads')")[0]
    arrays = [f for f in files if f.container == "json-array"]
    small = [f for f in files if f.container == "json" and f.content_size <= _SMALL_FILE]
    large = [f for f in files if f.container == "json" and f.content_size > _SMALL_FILE]
    # container 'retry' marks a file that did not parse; its row is deleted below.
    container = "CASE WHEN w.json IS NULL THEN 'retry' ELSE 'json' END"
    selects = []
    params: dict[str, list[str]] = {}
    if small:
        scans, more = _lanes("small", small, threads)
        params.update(more)
        selects.append(f"""
            SELECT file, container, 1 AS doc_no, '' AS base, unnest(doc), shape
            FROM (SELECT unnest(files) AS file, unnest(containers) AS container,
                         unnest(TRY_CAST(docs AS {DOCUMENT}[])) AS doc,
                         unnest(shapes) AS shape
                  FROM (SELECT list(w.filename) AS files, list({container}) AS containers,
                               list(w.json) AS docs, list({shape_sql("w.json")}) AS shapes
                        FROM {scans} w
                        GROUP BY hash(w.filename) % {len(small) // _BATCH + 1}))""")
    if large:
        scans, more = _lanes("large", large, threads)
        params.update(more)
        selects.append(f"""
            SELECT w.filename AS file, {container} AS container, 1 AS doc_no, '' AS base,
                   unnest(TRY_CAST(w.json AS {DOCUMENT})), {shape_sql("w.json")} AS shape
            FROM {scans} w""")
    if arrays:
        # An array that does not parse gives no row at all, so it is left for the splitter.
        scans, more = _lanes("arrays", arrays, threads)
        params.update(more)
        selects.append(f"""
            SELECT file, 'json-array' AS container, doc_no, '/' || (doc_no - 1) AS base,
                   unnest(doc), shape
            FROM (SELECT file, unnest(docs) AS doc, unnest(shapes) AS shape,
                         generate_subscripts(docs, 1) AS doc_no
                  FROM (SELECT w.filename AS file, TRY_CAST(w.json AS {DOCUMENT}[]) AS docs,
                               list_transform(TRY_CAST(w.json AS JSON[]),
                                              lambda e: {shape_sql("e")}) AS shapes
                        FROM {scans} w))""")
    # preserve_insertion_order on would make the scans of the union run one after the other
    # and, worse, keep each file's rows apart until the statement ends (20x slower, GBs).
    with setting(con, "preserve_insertion_order", "false"):
        union = "\nUNION ALL BY NAME\n".join(selects)
        run(con, f"INSERT INTO raw BY NAME SELECT *, {DERIVED_SQL} FROM ({union})", params)
    run(con, "DELETE FROM raw WHERE container = 'retry'")
    # File numbers in a statement of its own: a join in the one above would copy every
    # document.
    run(con, """
        UPDATE raw SET doc_no = (n.file_no << 32) + raw.doc_no
        FROM (SELECT unnest($paths) AS file, generate_subscripts($paths, 1) AS file_no) n
        WHERE raw.file = n.file
    """, {"paths": [f.path for f in files]})


def _lanes(name: str, files: list[ExportFile], threads: int) -> tuple[str, dict[str, list[str]]]:
    """``read_blob`` over ``files`` as a union of one scan per thread, balanced by size.

    DuckDB reads the files of one ``read_blob`` scan on one thread; the scans of a
    ``UNION ALL`` run side by side (with ``preserve_insertion_order`` off).
    """
    lanes: list[list[ExportFile]] = [[] for _ in range(max(1, min(int(threads), len(files))))]
    loads = [0] * len(lanes)
    for f in sorted(files, key=lambda f: -f.content_size):
        i = loads.index(min(loads))
        lanes[i].append(f)
        loads[i] += f.content_size + 4096
    params = {f"{name}{i}": [f.path for f in lane] for i, lane in enumerate(lanes)}
    union = " UNION ALL ".join(f"SELECT * FROM {whole_files_sql(p)}" for p in params)
    return f"({union})", params




#: The most JSON text :func:`_read_objects` types at once, over all threads.
_SLICE = 16 << 20


def _slicing(threads: int, biggest: int) -> tuple[int, int]:
    """How :func:`_read_objects` types documents of at most ``biggest`` bytes of text: the
    size of a slice of the text, and how many slices at once (threads).

    DuckDB types a chunk of up to 2,048 rows at once: all the documents of a JSON Lines file
    of big lines, typed together, outgrew a 512 MB memory limit. So the documents are typed
    in slices, each thread one slice at a time, all of them :data:`_SLICE` bytes of text or
    less (a slice also holds the end of a document begun before it, and at least one): fewer
    threads for bigger documents, one for those over ``_SLICE``.
    """
    slice_bytes = max(_SLICE // threads, biggest, 1 << 20)
    return slice_bytes, max(1, min(threads, _SLICE // slice_bytes))


def _read_objects(con: duckdb.DuckDBPyConnection, files: list[ExportFile], *,
                  first_doc_no: int) -> tuple[list[Skipped], dict[str, int]]:
    """Split the files into documents, then type them into ``raw`` (numbered in file order);
    the files skipped, and the records of each JSON Lines file (:func:`_number_lines`).

    A file that is not JSON Lines holds one JSON value, as ``validate`` reads it: one that
    splits into several is skipped (returned, with the validation's reason), never loaded in
    part.
    """
    lines = {f.path: record_lines(f.path, f.compressed) for f in files
             if f.container == "jsonl"}
    params: dict[str, list[str]] = {}
    parts = []
    for container in FORMATS:
        chosen = [f for f in files if f.container == container]
        if chosen:
            name = container.replace("-", "_")
            params[name] = [f.path for f in chosen]
            parts.append(f"SELECT filename AS file, json, '{container}' AS container "
                         f"FROM {objects_sql(container, name, _max_object(chosen, lines))}")
    if not parts:
        return [], {}
    union = "\nUNION ALL\n".join(parts)
    # Two statements on purpose: see quizkit.analysis.readers.
    run(con, f"CREATE OR REPLACE TEMP TABLE docs AS {documents_sql(union)}", params)
    stats = run(con, "SELECT file, any_value(container), min(line_n), count(*), "
                     "max(strlen(json)) FROM docs GROUP BY file ORDER BY file")
    several = [file for file, container, _, count, _ in stats
               if container == "json" and count > 1]
    rows = {file: count for file, container, _, count, _ in stats if container == "jsonl"}
    # The files whose documents are typed, with the first row of each (see document_rows_sql).
    kept = {"files": [file for file, *_ in stats if file not in several],
            "firsts": [first for file, _, first, _, _ in stats if file not in several]}
    threads = int(run(con, "SELECT current_setting('threads')")[0][0])
    slice_bytes, lanes = _slicing(threads, max((b or 0 for *_, b in stats), default=0))
    slices = run(con, f"SELECT greatest(upto - 1, 0) // {slice_bytes} AS slice, "
                      "bool_or(NOT arr), bool_or(arr) FROM docs GROUP BY slice ORDER BY slice")
    typed = [slice_sql(slice_no, slice_bytes, arrays)
             for slice_no, objects, arrays in slices
             for arrays, here in ((False, objects), (True, arrays)) if here]
    if typed:  # none for files of empty arrays only
        _type_slices(con, typed, threads, lanes, {"first": int(first_doc_no), **kept})
    run(con, "DROP TABLE docs")
    records = _number_lines(con, {path: lines[path] for path in rows}, rows)
    return judged(several, "not one JSON document"), records


def _type_slices(con: duckdb.DuckDBPyConnection, slices: list[str], threads: int,
                 lanes: int, params: dict) -> None:
    """The documents of ``slices`` (:func:`quizkit.analysis.readers.slice_sql`) typed into
    ``raw`` by one statement, on ``lanes`` of the session's ``threads``.

    Each slice is a scan of its own, so that the slices are typed side by side (a scan of a
    table runs on one thread per 122,880 rows); preserve_insertion_order on would run them
    one after the other.
    """
    with ExitStack() as stack:
        stack.enter_context(setting(con, "preserve_insertion_order", "false"))
        if lanes < threads:
            stack.enter_context(setting(con, "threads", str(lanes)))
        run(con, f"""
            INSERT INTO raw BY NAME
            WITH files AS (SELECT unnest($files) AS file, unnest($firsts) AS first_n)
            SELECT *, {DERIVED_SQL}
            FROM ({document_rows_sql(slices)})""", params)


def _number_lines(con: duckdb.DuckDBPyConnection, files: dict[str, Lines],
                  rows: dict[str, int]) -> dict[str, int]:
    """The ``record`` of each document of the JSON Lines ``files`` (path → its
    :class:`~quizkit.analysis.files.Lines`) made its line's number;
    the records of each file, counted as ``validate`` counts its documents.

    DuckDB gives a row for each non-blank line (``rows`` of each file) and no line numbers:
    a document's ``record`` is its row's place among them until here. Blank lines count as
    ``validate`` counts them (:func:`quizkit.analysis.files.record_lines`); where the two
    disagree on how many lines are not blank (never seen), the file's ``record`` is NULL
    rather than a wrong line.
    """
    numbered: dict[str, list[int]] = {"path": [], "row": [], "line": []}
    unnumbered = []
    records = {}
    for path, facts in files.items():
        records[path] = facts.count
        if facts.count != rows[path]:
            unnumbered.append(path)
        for row, line in facts.moved:
            numbered["path"].append(path)
            numbered["row"].append(row)
            numbered["line"].append(line)
    if unnumbered:
        run(con, "UPDATE raw SET record = NULL WHERE file IN (SELECT unnest($paths))",
            {"paths": unnumbered})
    if numbered["path"]:
        run(con, """
            UPDATE raw SET record = m.line
            FROM (SELECT unnest($path) AS path, unnest($row) AS row, unnest($line) AS line) m
            WHERE raw.file = m.path AND raw.record = m.row
        """, numbered)
    return records


def _max_object(files: list[ExportFile], lines: dict[str, Lines]) -> int:
    """The largest document DuckDB must hold, at least its default 16 MiB: a JSON Lines
    file's longest line, another file's size.

    DuckDB's reader keeps a buffer of this size per file and thread, so the size of a JSON
    Lines file must not count: a 70 MB file made the buffers outgrow a 512 MB memory limit.
    """
    return max(16 << 20, *(lines[f.path].longest + 1 if f.container == "jsonl"
                           else f.content_size + 1 for f in files))
