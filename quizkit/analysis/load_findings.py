"""The findings of a load's validation, staged as temp table ``new_findings``."""

from __future__ import annotations

import os
from collections.abc import Sequence

import duckdb

from quizkit import remote
from quizkit.analysis.connect import run
from quizkit.analysis.tables import BY_NAME
from quizkit.engine import unreadable_reason
from quizkit.findings import Report
from quizkit.rules import input_rules
from quizkit.sources import Source


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


#: The input rules whose finding means the checks could not read a file (or a whole
#: document of it).
UNREAD_RULES = frozenset(r.name for r in (
    input_rules.UNREADABLE, input_rules.INVALID_JSON, input_rules.BAD_ENCODING,
    input_rules.EMPTY_INPUT, input_rules.TOO_DEEP, input_rules.INPUT_TOO_LARGE))


def unreadable_files(report: Report, sources: Sequence[Source]) -> dict[str, str]:
    """The validation's verdict for a load: the files it could not read as a whole (by the
    name the ``file`` columns hold), each with the message of its first such finding.

    A JSON Lines file with some lines it could not parse is read (those lines are documents
    of unknown kind); one with no line read is not. A file whose finding the settings left
    out (an ignored rule) is judged again (:func:`quizkit.engine.unreadable_reason`).
    """
    by_name = {s.display: s for s in sources}
    bad = {r.path: by_name[r.path] for r in report.files
           if not r.readable and r.path in by_name
           and (r.documents == 0 or not by_name[r.path].is_lines)}
    why: dict[str, str] = {}
    for f in report.findings:
        if f.path in bad and f.rule in UNREAD_RULES and f.record is None:
            why.setdefault(f.path, f.message)
    out = {}
    for display, source in bad.items():
        reason = why.get(display) or unreadable_reason(source) or "cannot be read"
        out[source.path if remote.is_url(source.path) else os.path.abspath(source.path)] = reason
    return out
