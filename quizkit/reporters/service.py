"""``--format service`` / ``service-jsonl``: one validation block per checked version, in the
service's own shape (see :mod:`quizkit.reporters.service_blocks` and docs/service.md).

The engine outlines every document that holds versions in its one pass (each version's ids
and the entity each finding's pointer concerns, ``Report.outlines``); the blocks are made
from those outlines and the run's findings at ``finish``. No input is read again, so
standard input gives its blocks too.
"""

from __future__ import annotations

from typing import Any, TextIO

import orjson

from quizkit.catalog.findings import Report
from quizkit.model.service_names import DEFAULT_NAMES, ServiceNames
from quizkit.reporters.base import Reporter, ReportOptions
from quizkit.reporters.service_blocks import blocks_for, now_ms


class ServiceReporter(Reporter):
    """A JSON array of ``{packageId, versionId, validation}`` blocks."""

    name = "service"
    description = "The service's validation blocks, one per version (JSON array)."
    needs_findings = True
    needs_outlines = True

    def __init__(self, stream: TextIO, options: ReportOptions | None = None) -> None:
        super().__init__(stream, options)
        self.names: ServiceNames = DEFAULT_NAMES
        self.timestamp: int | None = None

    def configure(self, *, names: ServiceNames | None = None) -> None:
        """The profile's ``[service]`` names."""
        self.names = names or DEFAULT_NAMES

    def start(self) -> None:
        self.timestamp = now_ms()  # the run's time, taken once so every block agrees

    def blocks(self, report: Report) -> list[dict]:
        return blocks_for(report, timestamp=self.timestamp, names=self.names)

    def finish(self, report: Report) -> None:
        self.stream.write(orjson.dumps(self.blocks(report), option=orjson.OPT_INDENT_2).decode())
        self.stream.write("\n")


class ServiceLinesReporter(ServiceReporter):
    """The same blocks as JSON Lines: one block per line."""

    name = "service-jsonl"
    description = "The service's validation blocks, one per version (JSON Lines)."

    def finish(self, report: Report) -> None:
        for block in self.blocks(report):
            self.stream.write(orjson.dumps(block).decode())
            self.stream.write("\n")


def configure(reporters: Any, *, names: ServiceNames | None = None) -> None:
    """Configure every service reporter of a reporter set (or a single reporter)."""
    for r in getattr(reporters, "reporters", [reporters]):
        if isinstance(r, ServiceReporter):
            r.configure(names=names)

