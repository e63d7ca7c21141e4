"""Human text: findings grouped by file, coloured on a terminal, then a summary line.

::

    exports/pkg.json
      3:17     error    S001 wrong-type  expected a number, got a string  at /rounds/0/position

    1 file, 1 document: 1 error, 0 warnings, 0 infos

Findings stream as files are checked; the engine gives them file by file, so a file's header
is written when its first finding comes (findings of cross-file checks come at the end and
repeat the header of their file). ``--show`` hides findings below a severity from this report
only: the summary line still counts every finding, and says how many were hidden. A pointer
names keys from the inputs, which may hold control characters: they are shown escaped
(``\\x1b``), never sent to the terminal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from quizkit.catalog.display import printable
from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.pointers import readable
from quizkit.outputs.numbers import plural
from quizkit.reporters.base import Reporter, ReportOptions, rule_label

COLOR_CHOICES = ("auto", "always", "never")

_RESET = "\x1b[0m"
_STYLE = {
    Severity.ERROR: "\x1b[1;31m",    # bold red
    Severity.WARNING: "\x1b[33m",    # yellow
    Severity.INFO: "\x1b[36m",       # cyan
    "path": "\x1b[1;4m",             # bold, underlined
    "dim": "\x1b[2m",
}


def location(f: Finding) -> str:
    """``path:line:col``, with what is known of line and column."""
    return ":".join([f.path, *_line_col(f)])


def files_line(files: int, documents: int, unreadable: int) -> str:
    """``12 files (1 unreadable), 30 documents``: what a run read, as every command that
    reads exports says it."""
    gone = f" ({unreadable:,} unreadable)" if unreadable else ""
    return f"{plural(files, 'file')}{gone}, {plural(documents, 'document')}"


def concise_line(f: Finding) -> str:
    """``path:line:col: severity code name message at pointer``: one finding on one line."""
    pointer = f" at {readable(f.pointer)}" if f.pointer else ""
    return f"{location(f)}: {f.severity} {rule_label(f)} {f.message}{pointer}"


def _line_col(f: Finding) -> list[str]:
    if f.line is None:
        return []
    return [str(f.line)] + ([str(f.column)] if f.column is not None else [])


def use_color(choice: str, stream: TextIO, environ: Mapping[str, str]) -> bool:
    """``always``/``never`` as said; ``auto``: a terminal, unless ``NO_COLOR`` is set
    (https://no-color.org: present and not empty)."""
    if choice == "always":
        return True
    if choice == "never" or environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class TextReporter(Reporter):
    name = "text"
    description = ("findings grouped by file (line:col, severity, rule, message, pointer), "
                   "coloured on a terminal, then a summary line (the default)")
    needs_findings = False
    needs_files = False

    def __init__(self, stream: TextIO, options: ReportOptions | None = None) -> None:
        super().__init__(stream, options)
        self.color = use_color(self.options.color, stream, os.environ)
        self._current: str | None = None
        self.hidden = 0

    def _paint(self, text: str, style: Severity | str) -> str:
        return f"{_STYLE[style]}{text}{_RESET}" if self.color else text

    def start(self) -> None:
        """The head of the report: the config file in use, if any (it may select, ignore or
        exclude; a run never applies one silently)."""
        if self.options.config is not None:
            self.stream.write(self._paint(f"config: {printable(str(self.options.config))}",
                                          "dim") + "\n\n")

    def finding(self, f: Finding) -> None:
        if f.severity < self.options.show:
            self.hidden += 1
            return
        if f.path != self._current:
            if self._current is not None:
                self.stream.write("\n")
            self.stream.write(self._paint(f.path, "path") + "\n")
            self._current = f.path
        where = ":".join(_line_col(f)) or "-"
        severity = self._paint(f"{f.severity!s:<7}", f.severity)
        pointer = self._paint(f"  at {readable(f.pointer)}", "dim") if f.pointer else ""
        record = self._paint(f" (record {f.record})", "dim") if f.record is not None else ""
        self.stream.write(f"  {where:<8} {severity}  {rule_label(f)}  {printable(f.message)}"
                          f"{pointer}"
                          f"{record}\n")

    def finish(self, report: Report) -> None:
        s = report.summary()
        counts = [self._paint(plural(s[key], word), sev) if s[key] else plural(s[key], word)
                  for key, word, sev in (("errors", "error", Severity.ERROR),
                                         ("warnings", "warning", Severity.WARNING),
                                         ("infos", "info", Severity.INFO))]
        hidden = (f" ({plural(self.hidden, 'finding')} below {self.options.show} not shown)"
                  if self.hidden else "")
        if self._current is not None:
            self.stream.write("\n")
        self.stream.write(f"{files_line(s['files'], s['documents'], s['unreadable'])}: "
                          f"{', '.join(counts)}{hidden}\n")


class ConciseReporter(TextReporter):
    """One ``path:line:col: severity rule message`` line per finding, for editors and grep.

    Editors and terminals turn ``path:line:col`` into a link; every line stands alone, so
    ``grep`` and ``sort`` work on it. Colour, ``--show`` and the summary line are the text
    report's.
    """

    name = "concise"
    description = ("one line per finding, path:line:col: severity rule message (for editors "
                   "and grep), then the summary line")

    def finding(self, f: Finding) -> None:
        if f.severity < self.options.show:
            self.hidden += 1
            return
        pointer = f" at {readable(f.pointer)}" if f.pointer else ""
        severity = self._paint(str(f.severity), f.severity)
        self.stream.write(f"{self._paint(location(f), 'path')}: {severity} {rule_label(f)} "
                          f"{printable(f.message)}{pointer}\n")
