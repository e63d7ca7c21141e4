"""Report formats, one module each; ``REPORTERS`` maps a format name to its class."""

from __future__ import annotations

from quizkit.reporters.base import Reporter
from quizkit.reporters.json_report import JsonReporter
from quizkit.reporters.text import TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    cls.name: cls for cls in (TextReporter, JsonReporter)
}

__all__ = ["REPORTERS", "Reporter"]
