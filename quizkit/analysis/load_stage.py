"""Staging a batch of a load: its documents typed into ``raw``, turned into the candidate rows
of the ``cand_<table>`` temp tables (:mod:`quizkit.analysis.transform`), and the picks of the
winners.

DuckDB is handed only paths it cannot expand: a file whose name holds anything but plain
characters (``*``, ``?``, ``[``, ``{``, a comma, a quote, a space, a newline, non-ASCII) is read
through a link with a plain name in a private directory (an object of object storage through a
copy), and its rows get the real name back. Such a name is thus one file, loaded once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import run
from quizkit.analysis.dataset import Part
from quizkit.analysis.files import Skipped, inspect
from quizkit.analysis.load_inputs import Input
from quizkit.analysis.load_read import judged, read_files
from quizkit.analysis.load_session import setting
from quizkit.analysis.readers import EMPTY_ARRAY_KIND, RAW_DDL, assign_kinds
from quizkit.inputs import remote

#: Called after each step of a load with its name (``_Clock.tick``).
Tick = Callable[[str], None]


@dataclass
class Candidates:
    """The candidate rows of one batch (see :mod:`quizkit.analysis.transform`), as Arrow
    tables by table name (``files`` included), and the files it skipped.

    ``split`` holds the candidates of the :data:`transform.BY_VERSION` tables apart, in
    parts by their version id, as Parquet, and ``keys`` the :data:`transform.PACKAGE_KEYS`
    (see :func:`candidates_of`); the split tables are then not in ``tables``.
    """

    tables: dict[str, object]
    skipped: list[Skipped]
    split: list[dict[str, Part]] = field(default_factory=list)
    keys: Part | None = None


def pick(con: duckdb.DuckDBPyConnection, picks: Sequence[tuple[str, str]], tick: Tick) -> None:
    """Run ``picks`` (of :mod:`quizkit.analysis.transform`) in ``con``."""
    # No statement of the picks depends on the order of rows.
    with setting(con, "preserve_insertion_order", "false"):
        for name, sql in picks:
            run(con, sql)
            tick(f"pick:{name}")


def stage_batch(con: duckdb.DuckDBPyConnection, batch: list[Input], offset: int,
                verdicts: Mapping[str, str] | None = None) -> list[Skipped]:
    """Stage one batch into the ``cand_*`` temp tables of ``con``; the files it skipped.

    ``verdicts`` holds the files the validation could not read (name -> why): DuckDB never
    reads them. Files whose names DuckDB could expand (glob, brace or odd characters) are
    reached through a private directory of links (copies for URLs) with plain names; the
    rows get the real names back.
    """
    verdicts = verdicts or {}
    skipped = [Skipped(i.name, verdicts[i.name]) for i in batch if i.name in verdicts]
    batch = [i for i in batch if i.name not in verdicts]
    with tempfile.TemporaryDirectory(prefix="quizkit-batch-") as work:
        links, unfetched = materialize(batch, work)
        skipped.extend(unfetched)
        files, bad = inspect(list(links))
        skipped.extend(Skipped(links[s.path], s.reason)
                       for s in judged((b.path for b in bad), "cannot be read"))
        files, bad, records = read_files(con, files)
        skipped.extend(Skipped(links[b.path], b.reason) for b in bad)
        assign_kinds(con)
        renamed = {local: name for local, name in links.items() if local != name}
        if renamed:
            run(con, "UPDATE raw SET file = m.name FROM (SELECT unnest($local) AS local, "
                     "unnest($name) AS name) m WHERE raw.file = m.local",
                {"local": list(renamed), "name": list(renamed.values())})
        # No candidate statement depends on the order of rows (the keys say which wins).
        with setting(con, "preserve_insertion_order", "false"):
            for table, sql in transform.candidate_statements(offset):
                _append(con, f"cand_{table}", sql)
        _append(con, "cand_files", files_sql(), {
            "paths": [links[f.path] for f in files] or [""],
            "containers": [f.container for f in files] or [""],
            "compressed": [f.compressed for f in files] or [False],
            "sizes": [f.size for f in files] or [0],
            "documents": [records.get(f.path, 1) for f in files] or [0],
            "n": len(files), "empty_array_kind": EMPTY_ARRAY_KIND})
        run(con, "DROP TABLE IF EXISTS temp.raw")
    return skipped


def files_sql() -> str:
    """The ``files`` rows of a batch. Its ``documents`` are as ``validate`` counts them
    (``$documents``: one for a JSON file, whatever it holds, one for each record of a JSON
    Lines file), and so are the ones of unknown kind (an array's elements are one document)."""
    return """
        SELECT l.file, l.format, l.compressed, l.bytes, l.documents,
               CASE WHEN l.format IN ('json-array', 'jsonl') AND r.rows IS NULL
                    THEN $empty_array_kind ELSE r.kind END AS kind,
               coalesce(r.unknown, 0) AS unknown_documents
        FROM (SELECT unnest($paths) AS file, unnest($containers) AS format,
                     unnest($compressed) AS compressed, unnest($sizes)::BIGINT AS bytes,
                     unnest($documents)::BIGINT AS documents
              LIMIT $n) l
        LEFT JOIN (SELECT file, count(*) AS rows,
                          string_agg(DISTINCT kind, ',' ORDER BY kind) AS kind,
                          count(DISTINCT coalesce(record, 0)) FILTER (WHERE kind IS NULL)
                              AS unknown
                   FROM raw GROUP BY file) r USING (file)
    """


def _append(con: duckdb.DuckDBPyConnection, table: str, sql: str,
            params: dict | None = None) -> None:
    """Rows of ``sql`` added to temp table ``table`` (see :func:`create_candidates`)."""
    run(con, f"INSERT INTO {table} {sql}", params)


def _link_name(i: int, name: str) -> str:
    """A plain name that reads like ``name``: the same suffixes, as quizkit tells formats."""
    lower = name.lower()
    gz = lower.endswith(".gz")
    base = lower[:-3] if gz else lower
    suffix = ".jsonl" if base.endswith((".jsonl", ".ndjson")) else ".json"
    return f"f{i}{suffix}{'.gz' if gz else ''}"


def materialize(batch: list[Input], work: str) -> tuple[dict[str, str], list[Skipped]]:
    """Links (or, for URLs, copies) of the batch's files in ``work``: local path -> name."""
    links: dict[str, str] = {}
    skipped: list[Skipped] = []
    for i, item in enumerate(batch):
        local = os.path.join(work, _link_name(i, item.name))
        if remote.is_url(item.name):
            try:
                remote.fetch(item.name, local)
            except remote.RemoteError as exc:
                skipped.append(Skipped(item.name, f"cannot be read: {exc}"))
                continue
        elif _plain(item.name):
            local = item.name  # nothing in it DuckDB would expand: read it by its name
        else:
            os.symlink(os.path.abspath(item.name), local)
        links[local] = item.name
    return links, skipped


#: Characters of a path that DuckDB reads as it is (an absolute path made of these only).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=@%:")


def _plain(path: str) -> bool:
    """Whether DuckDB would read ``path`` literally: absolute, and no glob, brace, list,
    quote, space, control or non-ASCII character (such names are read through a link)."""
    return path.startswith("/") and _PLAIN.issuperset(path)


def add_candidates(con: duckdb.DuckDBPyConnection, cands: Candidates) -> None:
    """Candidate rows computed elsewhere (a cluster worker) added to ``cand_*`` of ``con``."""
    for table, rows in cands.tables.items():
        con.register("quizkit_rows", rows)
        try:
            _append(con, f"cand_{table}", "SELECT * FROM quizkit_rows")
        finally:
            con.unregister("quizkit_rows")


def create_candidates(con: duckdb.DuckDBPyConnection) -> None:
    """The empty ``cand_*`` temp tables, typed by their statements, that every batch then
    appends to (created once: a lookup per batch and table cost more than the batch's
    smaller statements)."""
    run(con, RAW_DDL)
    for table, sql in transform.candidate_statements(0):
        run(con, f"CREATE OR REPLACE TEMP TABLE cand_{table} AS {sql} LIMIT 0")
    run(con, f"CREATE OR REPLACE TEMP TABLE cand_files AS {files_sql()}",
        {"paths": [""], "containers": [""], "compressed": [False], "sizes": [0],
         "documents": [0], "n": 0, "empty_array_kind": EMPTY_ARRAY_KIND})
    run(con, "DROP TABLE IF EXISTS temp.raw")
