"""What every reporter implements.

The engine calls ``start`` once, ``finding`` for each finding as soon as it is final (files in
input order, so the stream is deterministic), and ``finish`` once with the whole report.
Streaming formats write in ``finding``; whole-document formats write in ``finish``.
"""

from __future__ import annotations

from typing import TextIO

from quizkit.findings import Finding, Report


class Reporter:
    """Base class: subclasses set ``name`` and override what they need."""

    name = ""
    #: True when the reporter needs the findings kept in memory until ``finish``.
    needs_findings = True

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def start(self) -> None:
        """Called before the first file is checked."""

    def finding(self, finding: Finding) -> None:
        """Called for each finding, in the report's order, as soon as it is known."""

    def file_done(self, path: str) -> None:
        """Called when a file has been checked and all its findings were given."""

    def finish(self, report: Report) -> None:
        """Called once at the end with the complete report."""
