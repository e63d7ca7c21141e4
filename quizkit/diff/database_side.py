"""A side that is a database (``.duckdb`` from ``quizkit load``) or a Parquet dataset.

Its records are the rows of the analysis tables (docs/tables.md), matched by each table's
key; a row's fields are its columns (``/name``), the ``file``, ``record`` and ``pointer``
columns aside: where a row was loaded from is not part of it, but is where the diff places
it. Compared with a side of exports, the exports are loaded
first, as ``quizkit load`` would, into the diff's private work directory. Rows hold no
array places, so a table diff has no ``moved``. A database is data: it is opened read-only
and only quizkit's base tables are read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import xxhash

from quizkit.analysis.connect import connect
from quizkit.analysis.dataset import open_dataset
from quizkit.analysis.export import table_names
from quizkit.analysis.load import load
from quizkit.analysis.tables import BY_NAME
from quizkit.diff.collect import BATCH_ROWS, store
from quizkit.diff.records import MEASURES, TABLES
from quizkit.settings.config import resolve

#: Table → the column naming a row's parent (None: a top-level record).
PARENTS = {"versions": "package_id", "rounds": "version_id", "themes": "version_id",
           "questions": "version_id", "steps": "version_id", "categories": "package_id",
           "game_history": "game_id"}
#: The columns that are not part of a row's content: where it was loaded from.
LEFT_OUT = ("file", "record", "pointer")


def is_tables(path: str) -> bool:
    """Whether ``path`` is a database file or a Parquet dataset rather than exports."""
    if path.endswith(".duckdb") and os.path.isfile(path):
        return True
    return os.path.isdir(os.path.join(path, "quizkit_meta"))


@contextmanager
def _opened(path: str, work: str, side: int, exclude: Iterable[str],
            include_hidden: bool) -> Iterator[tuple[duckdb.DuckDBPyConnection, list]]:
    if os.path.isdir(os.path.join(path, "quizkit_meta")):
        with open_dataset(path) as con:
            yield con, []
        return
    if path.endswith(".duckdb") and os.path.isfile(path):
        con = connect(path, read_only=True)
        problems: list = []
    else:
        con = connect(os.path.join(work, f"side{side}.duckdb"))
        s = resolve(False, exclude=tuple(exclude), include_hidden=include_hidden)
        loaded = load(con, [path], findings=False, settings=s)
        problems = [(sk.path, sk.reason) for sk in loaded.skipped]
    try:
        yield con, problems
    finally:
        con.close()


def collect(con: duckdb.DuckDBPyConnection, side: int, path: str, work: str, *,
            exclude: Iterable[str] = (), include_hidden: bool = False) -> list[tuple[str, str]]:
    """The rows of every table of the side ``path`` into ``records``; the inputs that could
    not be read (exports loaded here)."""
    with _opened(path, work, side, exclude, include_hidden) as (source, problems):
        present = set(table_names(source)) or {
            r[0] for r in source.execute("SELECT view_name FROM duckdb_views() "
                                         "WHERE NOT internal").fetchall()}
        rows = (row for table in TABLES if table in present
                for row in _rows(source, side, table, path))
        store(con, rows, os.path.join(work, f"side{side}.jsonl"))
    return problems


def _rows(source: duckdb.DuckDBPyConnection, side: int, table: str, path: str
          ) -> Iterator[list[Any]]:
    spec = BY_NAME[table]
    columns = [c for c in spec.column_names if c not in LEFT_OUT]
    key = " || '/' || ".join(f'coalesce(CAST("{k}" AS VARCHAR), \'\')' for k in spec.key)
    parent = f'"{PARENTS[table]}"' if table in PARENTS else "NULL"
    measures = ", ".join(f'"{m}"' if table == "packages" else "NULL" for m in MEASURES)
    select = ", ".join(f"'{c}': \"{c}\"" for c in columns)
    cursor = source.execute(
        f'SELECT {key}, {parent}, "file", "record", "pointer", {measures}, '
        f'CAST(to_json({{{select}}}) AS VARCHAR) FROM "{table}"')
    while rows := cursor.fetchmany(BATCH_ROWS):
        for key_value, parent_value, file, record, pointer, *rest in rows:
            body = rest[-1]
            yield [side, table, key_value, parent_value, None, 1, file or path, 0, record,
                   pointer, xxhash.xxh3_64_intdigest(body.encode()), *rest[:-1], body]
