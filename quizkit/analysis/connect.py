"""Opening DuckDB: a database file or memory, never anything from the network.

The JSON and Parquet readers are built into the duckdb wheel; extension auto-install and
auto-load are switched off so that no query can reach out for one.

A database file is data, never code: one that holds anything ``quizkit load`` never writes
and that runs when a name is used (a view, a macro, a type, a column default or generated
column, a ``CHECK`` expression) is refused when it is opened, before any statement of quizkit
runs in it, so no stored object can stand in for a quizkit table or a DuckDB function. The
catalog is read through ``system.main``'s functions, which nothing in the file can shadow.
A file opened read-only is also cut off from files and the network (:func:`lock_down`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

import duckdb

from quizkit.outputs.writer import OutputError, resolve

SAFE_CONFIG = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


class LoadError(Exception):
    """The load failed and was rolled back (one-line message)."""


class DatabaseError(Exception):
    """The database could not be opened, or is not one quizkit can use (one-line message)."""


def one_line(exc: BaseException) -> str:
    """DuckDB's message, first line only."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def connect(db: str | os.PathLike[str] | None = None, *, read_only: bool = False,
            allowed: Sequence[str] = ()) -> duckdb.DuckDBPyConnection:
    """A connection to ``db`` (a file) or to a fresh in-memory database when ``db`` is None.

    Opening read-only requires the file to exist (DuckDB would otherwise say little about it),
    and the connection reaches no file but the database and the ``allowed`` paths.
    Raises :class:`DatabaseError` for a file that is no database or holds code
    (:func:`foreign_objects`).
    """
    if db is None:
        return _quiet(duckdb.connect(":memory:", config=dict(SAFE_CONFIG)))
    path = os.fspath(db)
    if read_only and not os.path.lexists(path):
        raise DatabaseError(f"no such database file: {path}")
    check_database_file(path, read_only=read_only)
    try:
        con = duckdb.connect(path, read_only=read_only, config=dict(SAFE_CONFIG))
    except duckdb.Error as exc:
        raise DatabaseError(f"cannot open database {path}: {one_line(exc)}") from None
    try:
        foreign = foreign_objects(con)
        if foreign:
            raise DatabaseError(
                f"{path} holds what `quizkit load` never writes ({', '.join(foreign)}): "
                "quizkit opens no database whose stored SQL could run in place of its tables "
                "or of DuckDB's functions; copy the tables you need into a new database")
        if read_only:
            lock_down(con, allowed)
        return _quiet(con)
    except BaseException:
        con.close()
        raise


def lock_down(con: duckdb.DuckDBPyConnection, allowed: Sequence[str] = ()) -> None:
    """No file or network access from here on but to the ``allowed`` files and files beside
    them (the temporary files of the output layer), irreversibly for this connection."""
    if allowed:
        real = [os.path.realpath(p) for p in allowed]
        beside = dict.fromkeys(os.path.join(os.path.dirname(p), "") for p in real)
        run(con, "SET allowed_paths = $p", {"p": real})
        run(con, "SET allowed_directories = $d", {"d": list(beside)})
    run(con, "SET enable_external_access = false")


def foreign_objects(con: duckdb.DuckDBPyConnection) -> list[str]:
    """What the database file holds that runs when it is named, and that ``quizkit load``
    never creates: ``view S.NAME``, ``macro S.NAME``, ``type S.NAME``, ``default of
    TABLE.COLUMN``, ``check on TABLE``. Read from ``system.main`` with operators only (no
    macro can stand in for an operator), never a function the database could define."""
    rows = run(con, f"""
        SELECT 'view', schema_name, view_name FROM system.main.duckdb_views()
          WHERE NOT internal AND {_THEIRS}
        UNION ALL SELECT 'macro', schema_name, function_name
          FROM system.main.duckdb_functions() WHERE NOT internal AND {_THEIRS}
        UNION ALL SELECT 'type', schema_name, type_name
          FROM system.main.duckdb_types() WHERE NOT internal AND {_THEIRS}
        UNION ALL SELECT 'default of', table_name, column_name
          FROM system.main.duckdb_columns() WHERE column_default IS NOT NULL AND {_THEIRS}
        UNION ALL SELECT 'check on', table_name, NULL FROM system.main.duckdb_constraints()
          WHERE constraint_type = 'CHECK' AND {_THEIRS}""")
    return list(dict.fromkeys(f"{kind} {first}" + (f".{second}" if second else "")
                              for kind, first, second in rows))


#: Rows of the database file itself, not of DuckDB's own catalogs.
_THEIRS = "database_name NOT IN ('system', 'temp')"


def _quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """No DuckDB progress bar: it would mix with quizkit's own lines on stderr."""
    con.execute("SET enable_progress_bar = false").fetchall()
    return con


#: A DuckDB database file: an 8-byte checksum, then this magic.
_MAGIC_AT = 8
_MAGIC = b"DUCK"
#: Bytes read to tell what a file that is not a database looks like.
_SNIFF = 4096


def check_database_file(path: str, *, read_only: bool = False,
                        wanted: str | None = None) -> None:
    """Refuse a ``--db`` path that exists and is not a DuckDB database, without touching it.

    A missing file is fine (``load`` creates it) if its directory can take it (checked by
    the output layer, like every output). DuckDB would otherwise open, say, a JSON file and
    leave it as it was while reporting success, or write its own header over something else.
    ``wanted`` says what to give instead, in the message (default: a database of ``load``).
    """
    if read_only:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise DatabaseError(f"cannot open database {path}: {exc.strerror}") from None
        exists, regular = True, stat.S_ISREG(st.st_mode)
    else:
        try:
            target = resolve(path)
        except OutputError as exc:
            raise DatabaseError(str(exc)) from None
        exists, regular = target.exists, not target.special
    if not regular:
        raise DatabaseError(f"{path} is not a DuckDB database: it is not a regular file "
                            "(a device, FIFO, socket or directory)")
    if not exists:
        return
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF)
    except OSError as exc:
        raise DatabaseError(f"cannot read database {path}: {exc.strerror or exc}") from None
    if head[_MAGIC_AT:_MAGIC_AT + len(_MAGIC)] != _MAGIC:
        hint = wanted or ("a database written by `quizkit load`" if read_only else
                          "a new file name, or a database written by `quizkit load`; the file "
                          "was left unchanged")
        raise DatabaseError(f"{path} is not a DuckDB database (it looks like "
                            f"{looks_like(head)}): give {hint}")


def looks_like(head: bytes) -> str:
    """A few words on what the first bytes of a file are."""
    if not head:
        return "an empty file"
    if head.startswith(b"PAR1"):
        return "a Parquet file"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip file"
    if head.startswith(b"SQLite format 3\x00"):
        return "an SQLite database"
    if head.startswith(b"PK\x03\x04"):
        return "a zip file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the sample
            return "binary data"
        text = head[:exc.start].decode("utf-8")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("{", "["):
        return "JSON"
    lines = stripped.splitlines()[:5]
    for sep in (",", "\t", ";"):
        counts = {line.count(sep) for line in lines[:-1] or lines}
        if len(lines) > 1 and len(counts) == 1 and counts != {0}:
            return "CSV"
    if "\x00" in text:
        return "binary data"
    return "text"


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
