"""A history in a DuckDB file: the tables ``runs`` and ``metrics``, one transaction a run.

The file is someone's data, opened with the care of ``--db`` (quizkit.analysis.connect): a
file that is no DuckDB database, or whose stored SQL could run (views, macros...), is
refused before any statement of quizkit runs in it; the connection reaches no other file.
A database holding other tables is not a history and is refused without a change; an empty
one becomes a history.

DuckDB lets one process at a time open a file for writing: a run that finds the file locked
by another (two pipelines appending at once) tries again for up to :data:`LOCK_WAIT`
seconds, so both runs land.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import duckdb

from quizkit.analysis.connect import (
    DatabaseError,
    check_database_file,
    connect,
    lock_down,
    one_line,
    run,
)
from quizkit.history.runs import TABLES, HistoryError, Run, Timeline, as_run, run_row
from quizkit.outputs.interrupts import held_back
from quizkit.outputs.writer import OutputError, resolve

#: Seconds a run waits for another process to release the file.
LOCK_WAIT = 60.0
#: The first pause between two tries; each pause doubles, up to :data:`MAX_PAUSE`.
FIRST_PAUSE = 0.02
MAX_PAUSE = 0.5

T = TypeVar("T")
#: What to give instead of a file that is no history, in messages.
WANTED = ("a quizkit history (a DuckDB file quizkit wrote, or a folder), or a new file name; "
          "the file was left unchanged")


def _locked(exc: BaseException) -> bool:
    """Whether DuckDB refused the file because another process holds its lock."""
    text = str(exc)
    return "lock" in text.lower() and ("Conflicting" in text or "Could not set lock" in text)


def _retrying(attempt: Callable[[], T], path: str) -> T:
    """``attempt()``, tried again while the file is locked by another process."""
    deadline = time.monotonic() + LOCK_WAIT
    pause = FIRST_PAUSE
    while True:
        try:
            return attempt()
        except (DatabaseError, duckdb.Error) as exc:
            if not _locked(exc) or time.monotonic() >= deadline:
                raise HistoryError(f"history {path}: {one_line(exc)}") from None
        time.sleep(pause)
        pause = min(pause * 2, MAX_PAUSE)


@contextmanager
def _opened(path: str, *, read_only: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    """The history file, checked to be one (or empty), cut off from every other file."""
    try:
        check_database_file(path, read_only=read_only, wanted=WANTED)
    except DatabaseError as exc:
        raise HistoryError(str(exc)) from None
    con = _retrying(lambda: connect(path, read_only=read_only), path)
    try:
        if not read_only:
            lock_down(con)
        _check_tables(con, path)
        yield con
    finally:
        con.close()


def _check_tables(con: duckdb.DuckDBPyConnection, path: str) -> bool:
    """Whether the database holds the history's tables (False: it holds no table at all).
    Raises :class:`HistoryError` when it holds anything else."""
    rows = run(con, """SELECT schema_name, table_name FROM system.main.duckdb_tables()
                       WHERE database_name NOT IN ('system', 'temp')
                       ORDER BY schema_name, table_name""")
    found = {(schema, table) for schema, table in rows}
    if not found:
        return False
    wanted = {("main", name) for name in TABLES}
    if found != wanted:
        names = ", ".join(t if s == "main" else f"{s}.{t}" for s, t in sorted(found))
        raise HistoryError(f"{path} is a DuckDB database but not a quizkit history (it holds "
                           f"{names}): give {WANTED}")
    for table, columns in TABLES.items():
        have = run(con, """SELECT column_name, data_type FROM system.main.duckdb_columns()
                           WHERE database_name NOT IN ('system', 'temp')
                             AND schema_name = 'main' AND table_name = $t
                           ORDER BY column_index""", {"t": table})
        if [(n, t) for n, t in have] != list(columns):
            raise HistoryError(f"{path}: table {table} does not have the columns of a quizkit "
                               f"history ({', '.join(n for n, _ in columns)}); it was left "
                               "unchanged")
    return True


def _ddl() -> list[str]:
    return [f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns)})"
            for name, columns in TABLES.items()]


def check(path: str) -> None:
    """Refuse ``path`` unless it is a history, or a new file that can be made (reads only)."""
    if not os.path.lexists(path):
        try:
            resolve(path)
        except OutputError as exc:
            raise HistoryError(f"history: {exc}") from None
        return
    with _opened(path, read_only=True):
        pass


def append(path: str, run_id: str, run_: Run, metrics: dict[str, float]) -> None:
    """Add one run and its metrics in one transaction (the tables made on the first run).

    A file this run created and could not fill stays, an empty database that is taken as a
    new history: another run may have made it at the same time and written to it since."""

    def attempt() -> None:
        with _opened(path, read_only=False) as con, held_back():
            fresh = not _check_tables(con, path)
            run(con, "BEGIN TRANSACTION")
            try:
                for statement in _ddl() if fresh else []:
                    run(con, statement)
                run(con, "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                    list(run_row(run_id, run_)))
                if metrics:
                    con.executemany("INSERT INTO metrics VALUES (?, ?, ?)",
                                    [(run_id, n, v) for n, v in sorted(metrics.items())])
                run(con, "COMMIT")
            except BaseException:
                run(con, "ROLLBACK")
                raise

    _retrying(attempt, path)


def series(path: str, dataset: str, name: str, last: int) -> list[float]:
    if not os.path.lexists(path):
        return []

    def attempt() -> list[float]:
        with _opened(path, read_only=True) as con:
            if not _check_tables(con, path):
                return []
            rows = run(con, """SELECT m.value FROM runs r JOIN metrics m USING (run_id)
                               WHERE r.dataset = $d AND m.name = $n
                               ORDER BY r.started_at DESC, r.run_id DESC LIMIT $k""",
                       {"d": dataset, "n": name, "k": last})
            return [float(v) for (v,) in rows]

    return _retrying(attempt, path)


def timeline(path: str, dataset: str | None, last: int | None) -> Timeline:
    if not os.path.lexists(path):
        return Timeline()

    def attempt() -> Timeline:
        with _opened(path, read_only=True) as con:
            if not _check_tables(con, path):
                return Timeline()
            columns = ", ".join(c for c, _ in TABLES["runs"])
            rows = run(con, f"""SELECT {columns} FROM runs
                                WHERE $d IS NULL OR dataset = $d
                                ORDER BY started_at DESC, run_id DESC LIMIT $k""",
                       {"d": dataset, "k": last})
            runs = [as_run(row) for row in reversed(rows)]
            ids = [run_id for run_id, _ in runs]
            found: dict[str, dict[str, float]] = {run_id: {} for run_id in ids}
            if ids:
                for run_id, name, value in run(
                        con, "SELECT run_id, name, value FROM metrics "
                             "WHERE list_contains($ids, run_id) ORDER BY run_id, name",
                        {"ids": ids}):
                    found[run_id][name] = float(value)
            return Timeline(runs, found)

    return _retrying(attempt, path)
