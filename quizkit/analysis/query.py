"""Ad hoc SQL over the analysis tables, reading only.

A statement is checked before it runs: exactly one, and a ``SELECT`` (with ``WITH``, ``FROM``
first, ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``) or an ``EXPLAIN``. Everything else (``INSERT``,
``COPY``, ``ATTACH``, ``SET``, ``INSTALL``, ``PRAGMA``, ...) is refused with a message. On top of
that a database file is opened read-only, and external access (files, network) is switched off
for the query, so a query sees the database and nothing else.
"""

from __future__ import annotations

import duckdb

from quizkit.analysis.connect import one_line, run
from quizkit.analysis.sections import Section

ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


class QueryError(Exception):
    """The SQL was refused or failed (one-line message)."""


def check(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse anything but a single reading statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"the SQL does not parse: {one_line(exc)}") from None
    if len(statements) != 1:
        raise QueryError(f"give exactly one SQL statement (got {len(statements)})")
    kind = statements[0].type
    if kind not in ALLOWED:
        name = kind.name if hasattr(kind, "name") else str(kind)
        raise QueryError(f"refused: quizkit query only reads, and this is a {name} statement "
                         "(use SELECT)")


def lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """No file or network access from here on (irreversible for this connection)."""
    run(con, "SET enable_external_access = false")


def query(con: duckdb.DuckDBPyConnection, sql: str) -> Section:
    """Run one reading statement; its result as a section named ``result``."""
    check(con, sql)
    try:
        cur = con.execute(sql)
        columns = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchall() if columns else []
    except duckdb.Error as exc:
        raise QueryError(one_line(exc)) from None
    return Section("result", "Query result", columns, rows)
