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
    needs_files = False

    def finding(self, f: Finding) -> None:
        where = f" at {f.pointer}" if f.pointer else ""
        self.stream.write(f"{location(f)}: {f.severity} {f.rule} {f.message}{where}\n")

    def finish(self, report: Report) -> None:
        s = report.summary()
        self.stream.write(
            f"{_count(s['files'], 'file')}, {_count(s['documents'], 'document')}: "
            f"{_count(s['errors'], 'error')}, {_count(s['warnings'], 'warning')}, "
            f"{_count(s['infos'], 'info')}\n"
        )


def _count(n: int, word: str) -> str:
    """``1 error``, ``0 errors``, ``2 errors``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
