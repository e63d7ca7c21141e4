"""Load export files into the analysis tables, all or nothing.

The work happens in three phases:

1. *Stage* (outside the transaction, in temp tables, which never touch the database file):
   DuckDB reads every file and types its documents into ``raw``, one row per document with
   its kind (:mod:`quizkit.analysis.readers`); the statements of
   :mod:`quizkit.analysis.transform` turn it into ``new_<table>`` rows.
2. *Validate* (optional): ``quizkit.validate`` over the same files gives the ``findings`` rows.
3. *Replace* (one transaction): delete the rows the load replaces, insert the new ones, commit.
   Any error rolls the transaction back, so the database is exactly as it was.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import DatabaseError, one_line, run
from quizkit.analysis.files import ExportFile, Skipped, expand, inspect, literal_names
from quizkit.analysis.readers import (
    DERIVED_SQL,
    DOCUMENT,
    EMPTY_ARRAY_KIND,
    FORMATS,
    RAW_DDL,
    SHAPE,
    objects_sql,
    whole_files_sql,
)
from quizkit.analysis.tables import BY_NAME, SCHEMA_VERSION, TABLES
from quizkit.walk import WalkRules

Progress = Callable[[str, float], None]

_MALFORMED_AT = re.compile(r"Malformed JSON.*? at byte (\d+)[^:]*: ([^.]+)")
_IN_FILE = re.compile(r' ?(?:in|of) file "[^"]+",?')


class LoadError(Exception):
    """The load failed and was rolled back (one-line message)."""


@dataclass
class LoadResult:
    """What a load did. ``rows`` counts the rows inserted per table."""

    files: int = 0
    documents: int = 0
    unknown_documents: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)  # exclude patterns that matched nothing
    rows: dict[str, int] = field(default_factory=dict)
    findings: int | None = None
    timings: dict[str, float] = field(default_factory=dict)


class _Clock:
    def __init__(self, result: LoadResult, progress: Progress | None) -> None:
        self.result = result
        self.progress = progress
        self.last = time.perf_counter()

    def tick(self, step: str) -> None:
        now = time.perf_counter()
        seconds = now - self.last
        self.last = now
        self.result.timings[step] = self.result.timings.get(step, 0.0) + seconds
        if self.progress is not None:
            self.progress(step, seconds)


def load(con: duckdb.DuckDBPyConnection, paths: Sequence[str | os.PathLike[str]], *,
         findings: bool = True, progress: Progress | None = None,
         exclude: Sequence[str] = (), include_hidden: bool = False) -> LoadResult:
    """Load the export files under ``paths`` into the tables of ``con``.

    Directories are walked as every command walks them (:mod:`quizkit.walk`, with
    ``exclude`` and ``include_hidden``); what the walk could not read is in ``skipped``.

    ``progress(step, seconds)`` is called after each step; an exception it raises aborts the
    load like any other failure (the database is left unchanged).
    Raises :class:`quizkit.analysis.files.InputError` for a path that does not exist,
    :class:`LoadError` when the load fails, :class:`DatabaseError` for an unusable database.
    """
    result = LoadResult()
    clock = _Clock(result, progress)
    rules = WalkRules(tuple(exclude), include_hidden)
    all_files, unreadable, result.unmatched = expand(paths, rules)
    files, skipped = inspect(all_files)
    result.skipped.extend(unreadable + skipped)
    clock.tick("discover")
    try:
        with literal_names(files) as (aliased, real):
            files = _stage(con, aliased, result, clock)
        files = _real_names(con, files, real, result)
        _register_files(con, files)
        # No statement of the transform depends on the order of rows.
        with _setting(con, "preserve_insertion_order", "false"):
            for name, sql in transform.STEPS:
                run(con, sql)
                clock.tick(f"transform:{name}")
        report_rows = _findings_rows(paths, rules) if findings else None
        _stage_findings(con, report_rows)
        clock.tick("validate")
        # In order, and so on one thread (see transform.DIRECT). The commit checkpoints
        # straight away: the rows not yet in the file (all but the largest tables' full row
        # groups) are then written once, compressed, instead of to the WAL and again at the
        # next checkpoint (when the database is closed).
        with _setting(con, "preserve_insertion_order", "true"), \
                _setting(con, "checkpoint_threshold", "'0B'"):
            _replace(con, validated=all_files, result=result, clock=clock)
        result.findings = None if report_rows is None else len(report_rows[0])
    except duckdb.Error as exc:
        raise LoadError(one_line(exc)) from None
    finally:
        _drop_temps(con)
    return result


def _stage(con: duckdb.DuckDBPyConnection, files: list[ExportFile],
           result: LoadResult, clock: _Clock) -> list[ExportFile]:
    """Read the files into temp table ``raw``; files DuckDB cannot parse are skipped.

    Plain (not compressed) files of one document or one array of documents are read whole
    and typed in one pass (:func:`_read_whole`); the rest, and the whole files that did not
    parse as one value, go through DuckDB's document splitter (:func:`_read_objects`), which
    fails on a malformed file: then each of them is read alone to find the bad ones, which
    are skipped.
    """
    run(con, RAW_DDL)
    whole = [f for f in files if f.container in ("json", "json-array") and not f.compressed]
    if whole:
        try:
            _read_whole(con, whole)
        except duckdb.Error:  # e.g. a file gone since it was listed: the careful path
            run(con, "DELETE FROM raw")
            whole = []
        clock.tick("read:whole")
    typed = {file for (file,) in run(con, "SELECT DISTINCT file FROM raw")}
    rest = [f for f in files if f.path not in typed]
    try:
        _read_objects(con, rest, first_doc_no=(len(whole) + 1) << 32, clock=clock)
        return files
    except duckdb.Error as first_error:
        good, bad = _screen(con, rest)
        if not bad:
            raise LoadError(one_line(first_error)) from None
        result.skipped.extend(bad)
        clock.tick("read:screen")
        _read_objects(con, good, first_doc_no=(len(whole) + 1) << 32, clock=clock)
        skipped = {b.path for b in bad}
        return [f for f in files if f.path not in skipped]


def _real_names(con: duckdb.DuckDBPyConnection, files: list[ExportFile], real: dict[str, str],
                result: LoadResult) -> list[ExportFile]:
    """Put the real paths back where :func:`literal_names` put links (``raw``, skips)."""
    if not real:
        return files
    run(con, "UPDATE raw SET file = m.path FROM (SELECT unnest($links) AS link, "
             "unnest($paths) AS path) m WHERE raw.file = m.link",
        {"links": list(real), "paths": list(real.values())})
    result.skipped = [Skipped(real.get(s.path, s.path), s.reason) for s in result.skipped]
    return [dataclasses.replace(f, path=real.get(f.path, f.path)) for f in files]


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
            SELECT file, container, 1 AS doc_no, unnest(doc), shape
            FROM (SELECT unnest(files) AS file, unnest(containers) AS container,
                         unnest(TRY_CAST(docs AS {DOCUMENT}[])) AS doc,
                         unnest(TRY_CAST(docs AS {SHAPE}[])) AS shape
                  FROM (SELECT list(w.filename) AS files, list({container}) AS containers,
                               list(w.json) AS docs
                        FROM {scans} w
                        GROUP BY hash(w.filename) % {len(small) // _BATCH + 1}))""")
    if large:
        scans, more = _lanes("large", large, threads)
        params.update(more)
        selects.append(f"""
            SELECT w.filename AS file, {container} AS container, 1 AS doc_no,
                   unnest(TRY_CAST(w.json AS {DOCUMENT})), TRY_CAST(w.json AS {SHAPE}) AS shape
            FROM {scans} w""")
    if arrays:
        # An array that does not parse gives no row at all, so it is left for the splitter.
        scans, more = _lanes("arrays", arrays, threads)
        params.update(more)
        selects.append(f"""
            SELECT file, 'json-array' AS container, doc_no, unnest(doc), shape
            FROM (SELECT file, unnest(docs) AS doc, unnest(shapes) AS shape,
                         generate_subscripts(docs, 1) AS doc_no
                  FROM (SELECT w.filename AS file, TRY_CAST(w.json AS {DOCUMENT}[]) AS docs,
                               TRY_CAST(w.json AS {SHAPE}[]) AS shapes
                        FROM {scans} w))""")
    # preserve_insertion_order on would make the scans of the union run one after the other
    # and, worse, keep each file's rows apart until the statement ends (20x slower, GBs).
    with _setting(con, "preserve_insertion_order", "false"):
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


@contextmanager
def _setting(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
    """DuckDB setting ``name`` set to ``value`` (SQL) for the statements inside, then restored."""
    (before,) = run(con, f"SELECT current_setting('{name}')")[0]
    run(con, f"SET {name} = {value}")
    try:
        yield
    finally:
        if isinstance(before, bool):
            restore = "true" if before else "false"
        else:
            restore = "'" + str(before).replace("'", "''") + "'"
        with suppress(duckdb.Error):  # the connection is unusable; the first error tells why
            run(con, f"SET {name} = {restore}")


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


def _read_objects(con: duckdb.DuckDBPyConnection, files: list[ExportFile], *,
                  first_doc_no: int, clock: _Clock | None = None) -> None:
    """Split the files into documents, then type them into ``raw`` (numbered in file order)."""
    params: dict[str, list[str]] = {}
    parts = []
    for container in FORMATS:
        chosen = [f for f in files if f.container == container]
        if chosen:
            name = container.replace("-", "_")
            params[name] = [f.path for f in chosen]
            parts.append(f"SELECT filename AS file, json, '{container}' AS container "
                         f"FROM {objects_sql(container, name, _max_object(chosen))}")
    if not parts:
        return
    union = "\nUNION ALL\n".join(parts)
    # Two statements on purpose: see quizkit.analysis.readers.
    run(con, f"CREATE OR REPLACE TEMP TABLE docs AS {union}", params)
    if clock is not None:
        clock.tick("read:split")
    run(con, f"""
        INSERT INTO raw BY NAME
        SELECT *, {DERIVED_SQL} FROM (
            SELECT file, container, {int(first_doc_no) - 1} + row_number() OVER () AS doc_no,
                   unnest(TRY_CAST(json AS {DOCUMENT})), TRY_CAST(json AS {SHAPE}) AS shape
            FROM docs)
    """)
    run(con, "DROP TABLE docs")
    if clock is not None:
        clock.tick("read:type")


def _max_object(files: list[ExportFile]) -> int:
    """No document is larger than its file: the largest file, at least DuckDB's 16 MiB."""
    return max(16 << 20, max(f.content_size for f in files) + 1)


def _screen(con: duckdb.DuckDBPyConnection,
            files: list[ExportFile]) -> tuple[list[ExportFile], list[Skipped]]:
    """Read each file alone to find the ones that break the reader, with DuckDB's reason."""
    good: list[ExportFile] = []
    bad: list[Skipped] = []
    for f in files:
        try:
            sql = f"SELECT count(*) FROM {objects_sql(f.container, 'f', _max_object([f]))}"
            run(con, sql, {"f": [f.path]})
            good.append(f)
        except duckdb.Error as exc:
            bad.append(Skipped(f.path, _reason(one_line(exc))))
    return good, bad


def _reason(message: str) -> str:
    """DuckDB's reader error, short and without the file name (the warning names it)."""
    m = _MALFORMED_AT.search(message)
    if m:
        return f"malformed JSON at byte {m.group(1)}: {m.group(2)}"
    message = _IN_FILE.sub("", message.split(": ", 1)[-1])
    return f"cannot be read: {message}"


def _register_files(con: duckdb.DuckDBPyConnection, files: list[ExportFile]) -> None:
    run(con, """
        CREATE OR REPLACE TEMP TABLE loaded_files AS
        SELECT unnest($paths) AS file, unnest($containers) AS format,
               unnest($compressed) AS compressed, unnest($sizes)::BIGINT AS bytes
    """, {"paths": [f.path for f in files] or [""],
          "containers": [f.container for f in files] or [""],
          "compressed": [f.compressed for f in files] or [False],
          "sizes": [f.size for f in files] or [0]})
    if not files:
        run(con, "DELETE FROM loaded_files")
    run(con, """
        CREATE OR REPLACE TEMP TABLE new_files AS
        SELECT l.file, l.format, l.compressed, l.bytes,
               coalesce(r.documents, 0) AS documents,
               CASE WHEN l.format = 'json-array' AND r.documents IS NULL
                    THEN $empty_array_kind ELSE r.kind END AS kind,
               coalesce(r.unknown, 0) AS unknown_documents,
               CAST(now() AT TIME ZONE 'UTC' AS TIMESTAMP) AS loaded_at
        FROM loaded_files l
        LEFT JOIN (SELECT file, count(*) AS documents,
                          string_agg(DISTINCT kind, ',' ORDER BY kind) AS kind,
                          count(*) FILTER (WHERE kind IS NULL) AS unknown
                   FROM raw GROUP BY file) r USING (file)
    """, {"empty_array_kind": EMPTY_ARRAY_KIND})


def _findings_rows(paths: Sequence[str | os.PathLike[str]], rules: WalkRules) -> tuple[list, ...]:
    """Validate with quizkit's engine; the findings as column lists.

    The paths go to the engine as the user gave them, so that cross-file findings (which
    depend on the order files are met) are the ones ``quizkit validate PATH...`` reports.
    """
    try:
        from quizkit import validate
        report = validate([os.fspath(p) for p in paths], jobs=None, exclude=rules.exclude,
                          include_hidden=rules.include_hidden)
    except ImportError as exc:  # the validation engine is not installed in this build
        raise LoadError(f"validation is not available ({exc}); load with --no-findings") from None
    cols: tuple[list, ...] = tuple([] for _ in range(9))
    for f in report.findings:
        values = (os.path.abspath(f.path) if f.path else f.path, f.record, f.pointer, f.line,
                  f.column, f.rule, f.code, str(f.severity), f.message)
        for col, value in zip(cols, values, strict=True):
            col.append(value)
    return cols


def _stage_findings(con: duckdb.DuckDBPyConnection, rows: tuple[list, ...] | None) -> None:
    names = BY_NAME["findings"].column_names
    types = [c.type for c in BY_NAME["findings"].columns]
    if not rows or not rows[0]:
        cols = ", ".join(f"NULL::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
        run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols} LIMIT 0")
        return
    cols = ", ".join(f"unnest(${n})::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
    run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols}",
                dict(zip(names, rows, strict=True)))


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables that are missing; refuse a database whose tables differ."""
    existing: dict[str, list[str]] = {}
    for table, column in run(con,
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'main' AND table_catalog = current_database() "
            "ORDER BY table_name, ordinal_position"):
        existing.setdefault(table, []).append(column)
    for t in TABLES:
        if t.name in existing and existing[t.name] != t.column_names:
            raise DatabaseError(
                f"table {t.name!r} in this database does not have quizkit's columns "
                f"(schema {SCHEMA_VERSION}); load into a new database file")
        run(con, t.ddl())
    rows = run(con, "SELECT value FROM quizkit_meta WHERE key = 'schema_version'")
    row = rows[0] if rows else None
    if row is None:
        run(con, "INSERT INTO quizkit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
    elif row[0] != SCHEMA_VERSION:
        raise DatabaseError(f"this database has table schema {row[0]}, quizkit writes "
                            f"{SCHEMA_VERSION}; load into a new database file")


def _replace(con: duckdb.DuckDBPyConnection, *, validated: list[str], result: LoadResult,
             clock: _Clock) -> None:
    loaded = "file IN (SELECT file FROM loaded_files)"
    run(con, "BEGIN TRANSACTION")
    try:
        ensure_schema(con)
        for table, extra in transform.REPLACES.items():
            run(con, f'DELETE FROM "{table}" WHERE {loaded} OR {extra}')
            select = transform.DIRECT.get(table, f"SELECT * FROM new_{table}")
            ((result.rows[table],),) = run(con, f'INSERT INTO "{table}" BY NAME {select}')
            clock.tick(f"write:{table}")
        run(con, "DELETE FROM findings WHERE file IN (SELECT unnest($v)) OR "
                    + loaded, {"v": validated or [""]})
        run(con, "INSERT INTO findings BY NAME SELECT * FROM new_findings")
        run(con, f"DELETE FROM files WHERE {loaded}")
        ((result.rows["files"],),) = run(con, "INSERT INTO files BY NAME SELECT * FROM new_files")
        clock.tick("write:findings,files")
        ((result.files, result.documents, result.unknown_documents),) = run(
            con, "SELECT count(*), coalesce(sum(documents), 0), "
                 "coalesce(sum(unknown_documents), 0) FROM new_files")
    except BaseException:
        run(con, "ROLLBACK")
        raise
    run(con, "COMMIT")
    clock.tick("commit")


def _drop_temps(con: duckdb.DuckDBPyConnection) -> None:
    for name in transform.TEMP_TABLES:
        try:
            run(con, f"DROP TABLE IF EXISTS temp.{name}")
        except duckdb.Error:  # the connection is unusable; nothing left to free
            return


def load_paths(db: str | os.PathLike[str] | None, paths: Sequence[str | os.PathLike[str]],
               **options: object) -> LoadResult:
    """Open ``db`` (created if missing), load ``paths``, close it.

    A database file that did not exist before and whose first load fails is removed again.
    """
    from quizkit.analysis.connect import connect

    existed = db is not None and Path(db).exists()
    con = None
    ok = False
    try:  # connect inside: a Ctrl-C just after DuckDB created the file still removes it
        con = connect(db)
        result = load(con, paths, **options)  # type: ignore[arg-type]
        ok = True
        return result
    finally:
        if con is not None:
            con.close()
        if not ok and db is not None and not existed:
            for leftover in (Path(db), Path(f"{os.fspath(db)}.wal")):
                leftover.unlink(missing_ok=True)
