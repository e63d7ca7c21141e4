"""Report formats, one module each; ``REPORTERS`` maps a format name to its class."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from quizkit.findings import Finding, Report
from quizkit.reporters.base import Reporter
from quizkit.reporters.json_report import JsonReporter
from quizkit.reporters.text import TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    cls.name: cls for cls in (TextReporter, JsonReporter)
}


class ReporterSet(Reporter):
    """Fans the engine's calls out to several reporters."""

    def __init__(self, reporters: list[Reporter]) -> None:
        super().__init__(sys.stdout)
        self.reporters = reporters
        self.needs_findings = any(r.needs_findings for r in reporters)

    def start(self) -> None:
        for r in self.reporters:
            r.start()

    def finding(self, finding: Finding) -> None:
        for r in self.reporters:
            r.finding(finding)

    def file_done(self, path: str) -> None:
        for r in self.reporters:
            r.file_done(path)

    def finish(self, report: Report) -> None:
        for r in self.reporters:
            r.finish(report)


@contextmanager
def open_reporters(fmt: str, output: str | None) -> Iterator[ReporterSet]:
    """The reporters of one run: ``fmt`` to ``output`` (a file path) or to stdout."""
    with ExitStack() as stack:
        stream = stack.enter_context(open(output, "w", encoding="utf-8")) if output else sys.stdout
        yield ReporterSet([REPORTERS[fmt](stream)])


__all__ = ["REPORTERS", "Reporter", "ReporterSet", "open_reporters"]
