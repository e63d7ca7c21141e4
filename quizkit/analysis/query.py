"""Ad hoc SQL over the analysis tables, reading only, streamed.

A statement is checked before it runs: exactly one, and a ``SELECT`` (with ``WITH``, ``FROM``
first, ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``) or an ``EXPLAIN`` of one (``EXPLAIN ANALYZE``
runs the statement it explains, so the statement inside is checked the same way). Everything
else (``INSERT``, ``COPY``, ``ATTACH``, ``SET``, ``INSTALL``, ``PRAGMA``, ...) is refused with a
message. On top of that a database file is opened read-only, and external access (files,
network) is switched off for the query, so a query sees the database and nothing else.

Rows come out in batches of :data:`BATCH_ROWS` (DuckDB's ``fetchmany`` on a streaming result),
so a result of any size is written in constant memory. ``limit`` stops after that many rows;
``timeout`` interrupts DuckDB (``con.interrupt()`` from a timer) and raises
:class:`QueryTimeout`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import duckdb

from quizkit.analysis.connect import one_line
from quizkit.analysis.sections import Section
from quizkit.outputs.interrupts import interrupting

ALLOWED = {duckdb.StatementType.SELECT}
#: Rows fetched from DuckDB and written at a time.
BATCH_ROWS = 10_000


class QueryError(Exception):
    """The SQL was refused or failed (one-line message)."""


class QueryTimeout(QueryError):
    """The query ran longer than its timeout and was interrupted."""


def check(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse anything but a single reading statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"the SQL does not parse: {one_line(exc)}") from None
    if len(statements) != 1:
        raise QueryError(f"give exactly one SQL statement (got {len(statements)})")
    kind = statements[0].type
    if kind == duckdb.StatementType.EXPLAIN:
        check(con, explained(con, sql))
        return
    if kind not in ALLOWED:
        name = kind.name if hasattr(kind, "name") else str(kind)
        raise QueryError(f"refused: quizkit query only reads, and this is a {name} statement "
                         "(use SELECT)")


def explained(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The statement an ``EXPLAIN [ANALYZE] [(options)]`` statement explains.

    Read with DuckDB's own tokenizer, so comments and spacing between the words change nothing.
    A parenthesis after the keywords holds options unless what follows it is no statement
    (``EXPLAIN (SELECT 1) UNION (SELECT 2)``).
    """
    found = duckdb.tokenize(sql)
    ends = [start for start, _ in found[1:]] + [len(sql)]
    tokens = [(start, sql[start:end].strip().upper())
              for (start, kind), end in zip(found, ends, strict=True)
              if kind != duckdb.token_type.comment]
    words = [word for _, word in tokens]
    at = 1  # past EXPLAIN
    if at < len(words) and words[at] in ("ANALYZE", "ANALYSE"):
        at += 1
    if at < len(words) and words[at] == "(":  # options, (FORMAT json), or (SELECT 1)
        past, depth = at + 1, 1
        while past < len(words) and depth:
            depth += {"(": 1, ")": -1}.get(words[past], 0)
            past += 1
        if past < len(words) and _parses(con, sql[tokens[past][0]:]):
            at = past
    return sql[tokens[at][0]:] if at < len(tokens) else ""


def _parses(con: duckdb.DuckDBPyConnection, sql: str) -> bool:
    try:
        con.extract_statements(sql)
    except duckdb.Error:
        return False
    return True


@dataclass
class Rows:
    """A running query: its column names and its rows, batch by batch (read once)."""

    columns: list[str]
    batches: Iterator[list[tuple[Any, ...]]]


@contextmanager
def stream(con: duckdb.DuckDBPyConnection, sql: str, *, limit: int | None = None,
           timeout: float | None = None, batch_rows: int = BATCH_ROWS) -> Iterator[Rows]:
    """Run one reading statement; yields its :class:`Rows` to read inside the block.

    Raises :class:`QueryError` when the SQL is refused or fails (also while reading the
    batches), :class:`QueryTimeout` when ``timeout`` seconds pass before the last batch.
    """
    check(con, sql)
    if limit is not None and limit < 0:
        raise QueryError("the limit must be 0 or more rows")
    if timeout is not None and timeout <= 0:
        raise QueryError("the timeout must be more than 0 seconds")
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        con.interrupt()

    timer = threading.Timer(timeout, expire) if timeout is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        try:
            with interrupting(con.interrupt):
                cur = con.execute(sql)
            columns = [d[0] for d in cur.description] if cur.description else []
        except duckdb.Error as exc:
            raise _failure(exc, expired, timeout) from None
        yield Rows(columns, _batches(cur, columns, limit, batch_rows, expired, timeout))
    finally:
        if timer is not None:
            timer.cancel()


def _batches(cur: duckdb.DuckDBPyConnection, columns: list[str], limit: int | None,
             size: int, expired: threading.Event,
             timeout: float | None) -> Iterator[list[tuple[Any, ...]]]:
    left = limit
    while columns and (left is None or left > 0):
        want = size if left is None else min(size, left)
        try:
            batch = cur.fetchmany(want)
        except duckdb.Error as exc:
            raise _failure(exc, expired, timeout) from None
        if not batch:
            return
        if left is not None:
            left -= len(batch)
        yield batch


def _failure(exc: duckdb.Error, expired: threading.Event,
             timeout: float | None) -> QueryError:
    if expired.is_set():
        return QueryTimeout(f"the query was stopped after --timeout {timeout:g} s; narrow it, "
                            "add --limit, or give it more time")
    return QueryError(one_line(exc))


def query(con: duckdb.DuckDBPyConnection, sql: str, *, limit: int | None = None,
          timeout: float | None = None) -> Section:
    """Run one reading statement; its whole result as a section named ``result``."""
    with stream(con, sql, limit=limit, timeout=timeout) as rows:
        return Section("result", "Query result", rows.columns,
                       [row for batch in rows.batches for row in batch])
