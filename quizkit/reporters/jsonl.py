"""JSON Lines: one finding per line, written and flushed as soon as it is final.

Nothing is kept in memory, so a run over a million files can be piped into ``jq`` and the
first findings show up while the run goes on. Each line is the same object as one entry of
the JSON report's ``findings``.
"""

from __future__ import annotations

import orjson

from quizkit.findings import Finding
from quizkit.reporters.base import Reporter


class JsonLinesReporter(Reporter):
    name = "jsonl"
    description = "one JSON object per finding per line, streamed as the run goes (for jq)"
    needs_findings = False
    needs_files = False

    def finding(self, finding: Finding) -> None:
        self.stream.write(orjson.dumps(finding.to_dict()).decode())
        self.stream.write("\n")
        self.stream.flush()
