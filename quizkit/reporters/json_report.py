"""The JSON report: ``{"summary", "files", "findings"}``, a contract the tests check."""

from __future__ import annotations

import orjson

from quizkit.catalog.findings import Report
from quizkit.reporters.base import Reporter


def report_dict(report: Report) -> dict:
    return {
        "summary": report.summary(),
        "files": [f.to_dict() for f in report.files],
        "findings": [f.to_dict() for f in report.findings],
    }


class JsonReporter(Reporter):
    name = "json"
    description = "one JSON document: summary, files and findings"

    def finish(self, report: Report) -> None:
        self.stream.write(orjson.dumps(report_dict(report), option=orjson.OPT_INDENT_2).decode())
        self.stream.write("\n")
