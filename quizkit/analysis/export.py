"""Export the tables to Parquet, one file per table, each written atomically."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from quizkit.analysis.connect import run


def table_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The base tables of the database's main schema."""
    return [r[0] for r in run(
        con, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
             "AND table_type = 'BASE TABLE' AND table_catalog = current_database() "
             "ORDER BY table_name")]


def export_parquet(con: duckdb.DuckDBPyConnection,
                   out_dir: str | os.PathLike[str]) -> list[tuple[str, Path, int]]:
    """Write ``<out_dir>/<table>.parquet`` for every table; (table, path, rows) for each.

    Each file is written under a temporary name and renamed into place, so a reader never
    sees half a file.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in table_names(con):
        final = out / f"{table}.parquet"
        tmp = out / f".{table}.parquet.tmp"
        try:
            run(con, f"COPY \"{table}\" TO '{_quote(tmp)}' (FORMAT parquet)")
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)
        rows = run(con, f'SELECT count(*) FROM "{table}"')[0][0]
        written.append((table, final, rows))
    return written


def _quote(path: Path) -> str:
    return os.fspath(path).replace("'", "''")
