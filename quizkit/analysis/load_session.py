"""DuckDB session settings of a load: a memory limit, a private spill directory, threads, and
settings changed for a few statements and then restored."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress

import duckdb

from quizkit.analysis.connect import DatabaseError, one_line, run

#: DuckDB's memory limit when none is given.
DEFAULT_MEMORY_LIMIT = "512MB"


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
