"""Sections of rows from DuckDB: the shape every summary and query returns
(:class:`~quizkit.pages.formats.Section`)."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from quizkit.analysis.connect import run
from quizkit.pages.formats import Section


def section(con: duckdb.DuckDBPyConnection, name: str, title: str, sql: str,
            params: dict | None = None, *, sizes: Iterable[str] = ()) -> Section:
    """Run ``sql`` and wrap its result as a section; ``sizes``: its byte-count columns."""
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    columns = [d[0] for d in cur.description]
    return Section(name, title, columns, cur.fetchall(), frozenset(sizes) & set(columns))


__all__ = ["Section", "run", "section"]
