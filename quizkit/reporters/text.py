"""Human text: one ``path:line:col: severity rule message`` line per finding, then a summary."""

from __future__ import annotations

from quizkit.findings import Finding, Report
from quizkit.reporters.base import Reporter


def location(f: Finding) -> str:
    """``path:line:col``, with what is known of line and column."""
    parts = [f.path]
    if f.line is not None:
        parts.append(str(f.line))
        if f.column is not None:
            parts.append(str(f.column))
    return ":".join(parts)


class TextReporter(Reporter):
    name = "text"
    description = "path:line:col: severity rule message, then a summary line (the default)"
    needs_findings = False

    def finding(self, f: Finding) -> None:
        where = f" at {f.pointer}" if f.pointer else ""
        self.stream.write(f"{location(f)}: {f.severity} {f.rule} {f.message}{where}\n")

    def finish(self, report: Report) -> None:
        s = report.summary()
        docs = "document" if s["documents"] == 1 else "documents"
        files = "file" if s["files"] == 1 else "files"
        self.stream.write(
            f"{s['files']} {files}, {s['documents']} {docs}: {s['errors']} errors, "
            f"{s['warnings']} warnings, {s['infos']} infos\n"
        )
