"""What a failed load left behind, found out rather than assumed.

A load into a database runs in one transaction, and a load into a dataset puts its parts in
place all at once; still, a failure can come after the point of no return (DuckDB's
``COMMIT`` is durable and then its checkpoint fails on a full disk). So after a failure the
database is opened again and each table's rows counted, or the dataset's part files listed,
and compared with what was there before; the message says what was found.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import duckdb

from quizkit.analysis.tables import TABLES

#: The reasons of a write that failed for want of room (exit 2, as for any output).
NO_ROOM = (os.strerror(errno.ENOSPC), os.strerror(errno.EFBIG))


#: DuckDB's words for a statement that outgrew the memory limit.
OUT_OF_MEMORY = "Out of Memory Error"


def no_room(message: str) -> bool:
    """The failure was a full disk (``ENOSPC``) or a file-size limit (``EFBIG``)."""
    return any(reason in message for reason in NO_ROOM)


def load_failure(message: str) -> tuple[bool, str]:
    """Whether a failed load (its one-line ``message``) met a limit of the run rather than an
    input it could not read: a full disk, a file-size limit, or the memory limit (exit 2, as
    an output that cannot be written; else 3); and the message, with what to do about the
    memory limit."""
    if OUT_OF_MEMORY in message:
        return True, (f"{message} (the tables outgrew DuckDB's memory limit: give a larger "
                      "--memory-limit)")
    return no_room(message), message


def table_rows(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """The rows of each quizkit table the database has."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM system.main.duckdb_tables() "
        "WHERE database_name = current_database()").fetchall()}
    return {t.name: con.table(t.name).aggregate("count(*)").fetchall()[0][0]
            for t in TABLES if t.name in present}


def database_state(db: str | os.PathLike[str], before: dict[str, int] | None) -> str:
    """How the database ``db`` compares with ``before`` (its rows per table; ``None``: the
    file did not exist)."""
    if before is None:
        return ("the new database file was removed again" if not os.path.lexists(db)
                else f"the new database file {os.fspath(db)} is left behind; remove it")
    try:
        with duckdb.connect(os.fspath(db), read_only=True) as con:
            after = table_rows(con)
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"whether the database changed could not be checked ({first})"
    if after == before:
        return "the database is unchanged (checked: every table has the rows it had)"
    grew = [f"{t} {before.get(t, 0)} → {n}" for t, n in after.items() if before.get(t) != n]
    return f"the database changed, the load was committed ({', '.join(grew)} rows)"


def dataset_parts(root: str | os.PathLike[str]) -> dict[str, tuple[int, int, int]]:
    """Every part file of the dataset: its path and (inode, size, modification time)."""
    found = {}
    for t in TABLES:
        folder = Path(root, t.name)
        if not folder.is_dir():
            continue
        for part in folder.iterdir():
            if part.name.startswith((".", "_")):
                continue
            st = part.lstat()
            found[str(part)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return found


def dataset_state(root: str | os.PathLike[str], before: dict[str, tuple[int, int, int]]) -> str:
    """How the dataset ``root`` compares with ``before`` (:func:`dataset_parts`)."""
    try:
        after = dataset_parts(root)
    except OSError as exc:
        return f"whether the dataset changed could not be checked ({exc.strerror or exc})"
    if after == before:
        return "the dataset is unchanged (checked: every part file is as it was)"
    changed = sorted({Path(p).parent.name for p in set(after) ^ set(before)} |
                     {Path(p).parent.name for p in after if p in before and after[p] != before[p]})
    return f"the dataset changed (tables {', '.join(changed)})"
