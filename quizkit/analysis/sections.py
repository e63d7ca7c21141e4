"""A result to print: named sections of rows, the shape every summary and query returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from quizkit.analysis.connect import run


@dataclass
class Section:
    """One table of results. ``name`` is a stable identifier (``--section``, JSON keys)."""

    name: str
    title: str
    columns: list[str]
    rows: list[tuple[Any, ...]]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def section(con: duckdb.DuckDBPyConnection, name: str, title: str, sql: str,
            params: dict | None = None) -> Section:
    """Run ``sql`` and wrap its result as a section."""
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    columns = [d[0] for d in cur.description]
    return Section(name, title, columns, cur.fetchall())


__all__ = ["Section", "run", "section"]
