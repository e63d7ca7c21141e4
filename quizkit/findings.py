"""The one Finding type, and the Report that collects a run's results.

Everything outside the modules that talk to jsonschema or DuckDB speaks in these types.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum


class Severity(IntEnum):
    """Severities, ordered so that ``a >= b`` means "a is at least as bad as b"."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Snippet:
    """The source lines around a finding, for reports people read (HTML).

    ``lines`` are lines ``first``, ``first + 1``, … of the file, each cut to a window around
    the value when long (``cut`` characters were dropped from the start of each); the value
    is at line ``line``, characters ``start`` to ``end`` of that line's text as kept.
    """

    first: int
    lines: tuple[str, ...]
    line: int
    start: int
    end: int
    cut: int = 0


@dataclass(slots=True)
class Finding:
    """One problem found in one place.

    ``pointer`` is a JSON Pointer into the document (RFC 6901); ``line`` and ``column`` are
    1-based positions of the offending value in the file (``None`` until resolved, or when
    the problem concerns the whole file). ``record`` is the 1-based line of the record in a
    JSON Lines file and ``None`` otherwise. ``snippet`` is filled only when a report asks
    for it (``engine.Options.snippet_lines``).
    """

    path: str
    pointer: str
    rule: str
    severity: Severity
    message: str
    record: int | None = None
    line: int | None = None
    column: int | None = None
    code: str = ""
    snippet: Snippet | None = None

    def sort_key(self) -> tuple:
        return (self.path, self.record or 0, self.line or 0, self.column or 0, self.pointer,
                self.rule, self.message)

    def to_dict(self) -> dict:
        """The JSON report's contract for one finding."""
        return {"path": self.path, "record": self.record, "pointer": self.pointer,
                "line": self.line, "column": self.column, "rule": self.rule,
                "code": self.code, "severity": str(self.severity), "message": self.message}


@dataclass(slots=True)
class FileResult:
    """What one input file gave: its kind(s), document count, size, and whether it parsed."""

    path: str
    kind: str | None = None
    documents: int = 0
    size: int = 0
    readable: bool = True
    kinds: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind, "documents": self.documents,
                "size": self.size, "readable": self.readable}


class Report:
    """The results of one run: files checked and findings, in a deterministic order.

    Counts are kept as files and findings are added; the findings themselves are kept only
    when ``keep_findings`` is true, and the per-file results only when ``keep_files`` is true,
    so a streaming run over a million files stays in flat memory.
    """

    def __init__(self, keep_findings: bool = True, keep_files: bool = True) -> None:
        self.files: list[FileResult] = []
        self.findings: list[Finding] = []
        self.keep_findings = keep_findings
        self.keep_files = keep_files
        self.counts: Counter[Severity] = Counter()
        self.by_rule: Counter[str] = Counter()
        self.file_count = 0
        self.documents = 0
        #: True when some input could not be read or parsed (exit code 3).
        self.unreadable = False

    def add_file(self, result: FileResult) -> None:
        self.file_count += 1
        self.documents += result.documents
        if not result.readable:
            self.unreadable = True
        if self.keep_files:
            self.files.append(result)

    def add(self, finding: Finding) -> None:
        self.counts[finding.severity] += 1
        self.by_rule[finding.rule] += 1
        if self.keep_findings:
            self.findings.append(finding)

    def count(self, severity: Severity) -> int:
        return self.counts[severity]

    def summary(self) -> dict:
        return {
            "files": self.file_count,
            "documents": self.documents,
            "errors": self.count(Severity.ERROR),
            "warnings": self.count(Severity.WARNING),
            "infos": self.count(Severity.INFO),
        }

    def worst(self) -> Severity | None:
        return max((s for s, n in self.counts.items() if n), default=None)

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 clean, 1 findings at or above ``fail_on``, 3 an input could not be read or parsed."""
        if self.unreadable:
            return 3
        worst = self.worst()
        return 1 if worst is not None and worst >= fail_on else 0
