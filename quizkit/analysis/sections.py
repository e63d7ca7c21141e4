"""A result to print: named sections of rows, the shape every summary and query returns."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import duckdb

from quizkit.analysis.connect import run


@dataclass
class Section:
    """One table of results. ``name`` is a stable identifier (``--section``, JSON keys).

    ``sizes`` names the columns that hold byte counts: the formats people read show them in
    human units (``1.5 GB``); CSV and JSON keep the exact numbers.
    """

    name: str
    title: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    sizes: frozenset[str] = field(default_factory=frozenset)

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def section(con: duckdb.DuckDBPyConnection, name: str, title: str, sql: str,
            params: dict | None = None, *, sizes: Iterable[str] = ()) -> Section:
    """Run ``sql`` and wrap its result as a section; ``sizes``: its byte-count columns."""
    cur = con.execute(sql, params) if params is not None else con.execute(sql)
    columns = [d[0] for d in cur.description]
    return Section(name, title, columns, cur.fetchall(), frozenset(sizes) & set(columns))


__all__ = ["Section", "run", "section"]
