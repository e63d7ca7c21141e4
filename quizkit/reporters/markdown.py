"""A Markdown summary for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

Counts by severity and by rule, the files with the most errors, then the first findings with
their locations. Table cells are escaped so that a ``|`` or a newline in a message cannot
break the table, and ``<``/``>`` cannot turn into HTML.
"""

from __future__ import annotations

from collections import Counter

from quizkit.catalog.display import printable
from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.pointers import readable
from quizkit.outputs.numbers import plural, thousands
from quizkit.reporters.base import Reporter, rule_code, rule_of
from quizkit.reporters.text import location

_ESCAPES = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[",
            "]": "\\]", "<": "&lt;", ">": "&gt;", "&": "&amp;"}
_CELL = str.maketrans(_ESCAPES)


def cell(text: str) -> str:
    """Plain text made safe for one GitHub-flavoured Markdown table cell."""
    text = text.translate(_CELL)
    return text.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def code(text: str) -> str:
    """``text`` as a code span inside a table cell (``|`` still needs its backslash)."""
    text = text.replace("\n", " ").replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _bold_count(n: int, word: str) -> str:
    return f"**{thousands(n)}** {word}" + ("" if n == 1 else "s")


class MarkdownReporter(Reporter):
    name = "markdown"
    description = "a Markdown summary for a PR comment or $GITHUB_STEP_SUMMARY"
    needs_files = False

    def finish(self, report: Report) -> None:
        self.stream.write(self.render(report))

    def render(self, report: Report) -> str:
        s = report.summary()
        lines = [self._headline(s), ""]
        lines += [
            f"{plural(s['files'], 'file')}, {plural(s['documents'], 'document')}: "
            f"{_bold_count(s['errors'], 'error')}, {_bold_count(s['warnings'], 'warning')}, "
            f"{_bold_count(s['infos'], 'info')}",
            "",
        ]
        if not report.findings:
            return "\n".join(lines)
        lines += self._by_severity(report) + self._by_rule(report) + self._worst_files(report)
        lines += self._listing(report)
        return "\n".join(lines)

    @staticmethod
    def _headline(s: dict) -> str:
        if s["errors"]:
            mark, what = "❌", plural(s["errors"], "error")
        elif s["warnings"]:
            mark, what = "⚠️", plural(s["warnings"], "warning")
        elif s["infos"]:
            mark, what = "ℹ️", plural(s["infos"], "info")
        else:
            mark, what = "✅", "no findings"
        return f"## {mark} quizkit: {what}"

    @staticmethod
    def _by_severity(report: Report) -> list[str]:
        lines = ["| severity | findings |", "|---|---:|"]
        for sev in (Severity.ERROR, Severity.WARNING, Severity.INFO):
            lines.append(f"| {sev} | {thousands(report.count(sev))} |")
        return [*lines, ""]

    @staticmethod
    def _by_rule(report: Report) -> list[str]:
        counts: Counter[tuple[str, str]] = Counter()
        severities: dict[tuple[str, str], Severity] = {}
        for f in report.findings:
            r = rule_of(f)
            key = (rule_code(f), r.name if r else "")
            counts[key] += 1
            severities[key] = max(severities.get(key, f.severity), f.severity)
        ordered = sorted(counts, key=lambda k: (-severities[k], -counts[k], k))
        lines = ["### By rule", "", "| rule | name | severity | findings |",
                 "|---|---|---|---:|"]
        for key in ordered:
            lines.append(f"| {code(key[0])} | {cell(key[1])} | {severities[key]} | "
                         f"{thousands(counts[key])} |")
        return [*lines, ""]

    def _worst_files(self, report: Report) -> list[str]:
        per_file: dict[str, Counter[Severity]] = {}
        for f in report.findings:
            per_file.setdefault(f.path, Counter())[f.severity] += 1
        order = {path: i for i, path in enumerate(per_file)}
        worst = sorted(per_file, key=lambda p: (-per_file[p][Severity.ERROR],
                                                -per_file[p][Severity.WARNING],
                                                -per_file[p][Severity.INFO], order[p]))
        shown = worst[: self.options.worst_files]
        title = "### Files with the most findings"
        if len(worst) > len(shown):
            title += f" ({len(shown)} of {len(worst)})"
        lines = [title, "", "| file | errors | warnings | infos |", "|---|---:|---:|---:|"]
        for path in shown:
            c = per_file[path]
            lines.append(f"| {code(path)} | {thousands(c[Severity.ERROR])} | "
                         f"{thousands(c[Severity.WARNING])} | {thousands(c[Severity.INFO])} |")
        return [*lines, ""]

    def _listing(self, report: Report) -> list[str]:
        total = len(report.findings)
        shown = report.findings[: self.options.max_listed]
        title = "### Findings" if len(shown) == total else \
            f"### Findings (first {len(shown)} of {total})"
        lines = [title, "", "| severity | rule | location | pointer | message |",
                 "|---|---|---|---|---|"]
        for f in shown:
            lines.append(self._row(f))
        if len(shown) < total:
            lines += ["", f"… and {total - len(shown)} more; the JSON, JSON Lines or SARIF "
                          "report lists them all."]
        return [*lines, ""]

    @staticmethod
    def _row(f: Finding) -> str:
        r = rule_of(f)
        rule = code(rule_code(f)) + (f" {cell(r.name)}" if r else "")
        where = location(f) + (f" (record {f.record})" if f.record is not None else "")
        pointer = code(readable(f.pointer)) if f.pointer else ""
        # control characters escaped line by line: a line break stays a <br>
        message = cell("\n".join(printable(line) for line in f.message.split("\n")))
        return f"| {f.severity} | {rule} | {code(where)} | {pointer} | {message} |"
