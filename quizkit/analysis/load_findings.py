"""The findings of a load's validation, staged as temp table ``new_findings``."""

from __future__ import annotations

import os

import duckdb

from quizkit import remote
from quizkit.analysis.connect import run
from quizkit.analysis.tables import BY_NAME
from quizkit.findings import Report


def findings_columns(report: Report) -> tuple[list, ...]:
    """The findings of ``report`` as column lists (see the ``findings`` table).

    The report comes from the paths as the user gave them, so that cross-file findings
    (which depend on the order files are met) are the ones ``quizkit validate PATH...``
    reports.
    """
    cols: tuple[list, ...] = tuple([] for _ in range(9))
    for f in report.findings:
        path = f.path if not f.path or remote.is_url(f.path) else os.path.abspath(f.path)
        values = (path, f.record, f.pointer, f.line, f.column, f.rule, f.code,
                  str(f.severity), f.message)
        for col, value in zip(cols, values, strict=True):
            col.append(value)
    return cols


def stage_findings(con: duckdb.DuckDBPyConnection, rows: tuple[list, ...] | None) -> None:
    names = BY_NAME["findings"].column_names
    types = [c.type for c in BY_NAME["findings"].columns]
    if not rows or not rows[0]:
        cols = ", ".join(f"NULL::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
        run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols} LIMIT 0")
        return
    cols = ", ".join(f"unnest(${n})::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
    run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols}",
                dict(zip(names, rows, strict=True)))
