"""JSON Lines: one finding per line, written and flushed as soon as it is final.

Nothing is kept in memory, so a run over a million files can be piped into ``jq`` and the
first findings show up while the run goes on. Each line is the same object as one entry of
the JSON report's ``findings``.
"""

from __future__ import annotations

import orjson

from quizkit.catalog.findings import Finding
from quizkit.reporters.base import LineReporter


class JsonLinesReporter(LineReporter):
    name = "jsonl"
    description = "one JSON object per finding per line, streamed as the run goes (for jq)"

    def line(self, finding: Finding) -> str:
        return orjson.dumps(finding.to_dict()).decode()
