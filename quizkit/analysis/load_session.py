"""DuckDB session settings of a load: a memory limit, a private spill directory, threads, and
settings changed for a few statements and then restored."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress

import duckdb

from quizkit.analysis.connect import DatabaseError, one_line, run
from quizkit.inputs.bounds import MAX_THREADS
from quizkit.inputs.limits import duckdb_size

#: DuckDB's memory limit when none is given.
DEFAULT_MEMORY_LIMIT = "512MB"


def session_options(memory_limit: str | None, threads: int | None
                    ) -> tuple[str | None, int | None]:
    """``--memory-limit`` (a size, as exact bytes for DuckDB) and ``--threads`` (1 to
    :data:`~quizkit.inputs.bounds.MAX_THREADS`) of every command that loads, checked before
    any work; a ValueError names the option."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= MAX_THREADS):
        raise ValueError(f"--threads must be a whole number from 1 to {MAX_THREADS}, "
                         f"got {threads!r}")
    return duckdb_size(memory_limit), threads


@contextmanager
def configured(con: duckdb.DuckDBPyConnection, *, memory_limit: str | None = None,
               threads: int | None = None) -> Iterator[None]:
    """The connection with a memory limit and a private spill directory (then restored)."""
    with ExitStack() as stack:
        spill = stack.enter_context(tempfile.TemporaryDirectory(prefix="quizkit-spill-"))
        try:
            stack.enter_context(setting(con, "temp_directory", sql_text(spill)))
            stack.enter_context(setting(con, "memory_limit",
                                         sql_text(memory_limit or DEFAULT_MEMORY_LIMIT)))
            if threads:
                stack.enter_context(setting(con, "threads", str(int(threads))))
        except duckdb.Error as exc:
            raise DatabaseError(f"bad --memory-limit or --threads: {one_line(exc)}") from None
        yield


def sql_text(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


@contextmanager
def setting(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
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
