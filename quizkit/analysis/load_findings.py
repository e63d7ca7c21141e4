"""The findings of a load's validation, staged as temp table ``new_findings`` as they arrive.

The validation hands each finding to :class:`FindingsTable` (a reporter) as soon as it is
final; every :data:`CHUNK` findings go into DuckDB, which spills past its memory limit. So a
load keeps neither the findings nor the per-file results in Python memory, whatever their
number, and the files the validation could not read are the only thing kept (for what
DuckDB reads: :mod:`quizkit.analysis.load_stage`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence

import duckdb

from quizkit.analysis.connect import run
from quizkit.analysis.tables import BY_NAME
from quizkit.catalog import input_rules
from quizkit.catalog.findings import Finding, Report
from quizkit.inputs import remote
from quizkit.inputs.sources import Source
from quizkit.reporters.base import Reporter

#: Findings sent to DuckDB at once.
CHUNK = 20_000

#: The input rules whose finding on a whole file (no record) means the checks could not read
#: the file.
UNREAD_RULES = frozenset(r.name for r in (
    input_rules.UNREADABLE, input_rules.INVALID_JSON, input_rules.BAD_ENCODING,
    input_rules.EMPTY_INPUT, input_rules.TOO_DEEP, input_rules.INPUT_TOO_LARGE))


class FindingsTable(Reporter):
    """A reporter that appends the findings to temp table ``new_findings`` of ``con`` (made
    empty here), :data:`CHUNK` at a time, in the report's order.

    The findings come from the paths as the user gave them, so that cross-file findings
    (which depend on the order files are met) are the ones ``quizkit validate PATH...``
    reports; the table holds their absolute paths.
    """

    name = "load"
    needs_findings = False
    needs_files = False

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        super().__init__(io.StringIO())
        self.con = con
        self.count = 0
        #: The message of the first whole-file finding of each file the checks could not
        #: read, by the path as reported.
        self.unread: dict[str, str] = {}
        self._rows: list[tuple] = []
        names = BY_NAME["findings"].column_names
        types = [c.type for c in BY_NAME["findings"].columns]
        cols = ", ".join(f'NULL::{t} AS "{n}"' for n, t in zip(names, types, strict=True))
        run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols} LIMIT 0")
        self._insert = ("INSERT INTO new_findings SELECT "
                        + ", ".join(f"unnest(${n})::{t}" for n, t in zip(names, types,
                                                                          strict=True)))
        self._names = names

    def finding(self, finding: Finding) -> None:
        f = finding
        if f.record is None and f.rule in UNREAD_RULES:
            self.unread.setdefault(f.path, f.message)
        path = f.path if not f.path or remote.is_url(f.path) else os.path.abspath(f.path)
        self._rows.append((path, f.record, f.pointer, f.line, f.column, f.rule, f.code,
                           str(f.severity), f.message))
        if len(self._rows) >= CHUNK:
            self.flush()

    def finish(self, report: Report) -> None:
        self.flush()

    def flush(self) -> None:
        """The findings not yet in the table, into it."""
        if not self._rows:
            return
        columns = [list(c) for c in zip(*self._rows, strict=True)]
        self.count += len(self._rows)
        self._rows = []
        run(self.con, self._insert, dict(zip(self._names, columns, strict=True)))

    def unreadable(self, sources: Sequence[Source]) -> dict[str, str]:
        """The validation's verdict for a load: the files it could not read as a whole, by
        the name the ``file`` columns hold, each with the message of its finding. (A JSON
        Lines file with some lines it could not parse is read: those lines are documents of
        unknown kind.)"""
        out = {}
        for source in sources:
            reason = self.unread.get(source.display)
            if reason is not None:
                path = source.path
                out[path if remote.is_url(path) else os.path.abspath(path)] = reason
        return out


def no_findings(con: duckdb.DuckDBPyConnection) -> None:
    """An empty ``new_findings`` (a load without validation)."""
    FindingsTable(con)
