"""Export quizkit's tables to Parquet, one file per table, each through the output layer.

Only the tables quizkit defines (:data:`quizkit.analysis.tables.TABLES`, the ones
docs/tables.md describes) are exported, so every file name comes from quizkit's own list and
none can leave the ``--parquet`` directory, whatever the database holds. Tables are read with
DuckDB's relation API (``con.table``), which quotes the name itself; paths go to
``write_parquet`` as values, never into SQL text. Any other table (a ``../../x`` or a
``x"; COPY ...`` put there by someone else) is left out and named in :func:`foreign_tables`.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from quizkit.analysis.connect import run
from quizkit.analysis.tables import TABLES
from quizkit.outputs.writer import make_directory, written_together


def table_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The base tables of the database's main schema."""
    return [r[0] for r in run(
        con, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
             "AND table_type = 'BASE TABLE' AND table_catalog = current_database() "
             "ORDER BY table_name")]


def foreign_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Tables of the database that are not quizkit's (not exported)."""
    ours = {t.name for t in TABLES}
    return [name for name in table_names(con) if name not in ours]


def export_targets(out_dir: str | os.PathLike[str]) -> list[str]:
    """The files an export into ``out_dir`` may write: the only ones (links followed) its
    connection may reach, with the temporary files beside them."""
    return [os.fspath(Path(out_dir, f"{t.name}.parquet")) for t in TABLES]


def export_parquet(con: duckdb.DuckDBPyConnection,
                   out_dir: str | os.PathLike[str]) -> list[tuple[str, Path, int]]:
    """Write ``<out_dir>/<table>.parquet`` for each of quizkit's tables; (table, path, rows).

    Each file is written under a temporary name (a link is followed, a device written to),
    and all are renamed into place at the end, so a reader never sees half a file and a
    failed or interrupted export leaves the directory's old files as they were.
    Raises :class:`quizkit.outputs.writer.OutputError` when the directory or a file cannot be
    written.
    """
    out = make_directory(out_dir)
    present = set(table_names(con))
    written = []
    with written_together() as together:
        for table in (t.name for t in TABLES if t.name in present):
            final = out / f"{table}.parquet"
            rel = con.table(table)
            rel.write_parquet(together.name_for(final))
            ((rows,),) = rel.aggregate("count(*)").fetchall()
            written.append((table, final, rows))
    return written
