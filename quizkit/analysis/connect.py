"""Opening DuckDB: a database file or memory, never anything from the network.

The JSON and Parquet readers are built into the duckdb wheel; extension auto-install and
auto-load are switched off so that no query can reach out for one.
"""

from __future__ import annotations

import os

import duckdb

SAFE_CONFIG = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


class DatabaseError(Exception):
    """The database could not be opened, or is not one quizkit can use (one-line message)."""


def one_line(exc: BaseException) -> str:
    """DuckDB's message, first line only."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def connect(db: str | os.PathLike[str] | None = None, *,
            read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection to ``db`` (a file) or to a fresh in-memory database when ``db`` is None.

    Opening read-only requires the file to exist (DuckDB would otherwise say little about it).
    """
    if db is None:
        return duckdb.connect(":memory:", config=dict(SAFE_CONFIG))
    path = os.fspath(db)
    if read_only and not os.path.isfile(path):
        raise DatabaseError(f"no such database file: {path}")
    try:
        return duckdb.connect(path, read_only=read_only, config=dict(SAFE_CONFIG))
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot open database {path}: {one_line(exc)}") from None


def run(con: duckdb.DuckDBPyConnection, sql: str,
        params: dict | list | None = None) -> list[tuple]:
    """Execute one statement and read its result to the end.

    duckdb 2 keeps an ``execute()`` result open until it is read, and refuses other work on the
    connection meanwhile; reading every result right away keeps the connection usable.
    """
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    return cur.fetchall()


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: dict | list | None = None):
    """The first value of the first row (or None)."""
    rows = run(con, sql, params)
    return rows[0][0] if rows else None
