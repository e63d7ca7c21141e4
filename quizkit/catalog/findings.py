"""The one Finding type, and the Report that collects a run's results.

Everything outside the modules that talk to jsonschema or DuckDB speaks in these types.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import orjson

from quizkit.catalog import exits

#: The longest a value taken from an input may be in a message, in characters: a report line
#: stays readable whatever the input holds (a 1 MB string, a whole package of the wrong type).
VALUE_LIMIT = 80
#: The most values a message lists (allowed enum values, unknown fields); the rest are counted.
LIST_LIMIT = 5


def cut(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text``, or its start and an ellipsis with the length when it is longer than
    ``limit``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit - 1]}… ({len(text):,} characters)"


def json_text(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A value as JSON for a message (``null``, ``"a"``, ``{"a":1}``), cut to ``limit``.

    Messages speak JSON, the language of the input, never Python's ``None`` or ``'a'``.
    """
    if isinstance(value, str) and len(value) > 4 * limit:
        # Only the start is shown: encode that much, and say how long the whole is.
        head = orjson.dumps(value[: 2 * limit]).decode()[: limit - 1]
        return f"{head}… ({len(value):,} characters)"
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # an integer beyond 64 bits, read as a Python int
        text = ""
    if len(text) <= 2 * limit and isinstance(value, (dict, list, int)):
        text = json.dumps(value, ensure_ascii=False)  # spaced as people write it: {"a": 1}
    return cut(text, limit)


def json_list(values: Sequence[Any], limit: int = LIST_LIMIT, sep: str = ", ") -> str:
    """The first ``limit`` values as JSON, then how many more there are."""
    shown = sep.join(json_text(v) for v in values[:limit])
    more = len(values) - limit
    return f"{shown} and {more:,} more" if more > 0 else shown


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


#: A step that changes a finding on its way to the report (re-grades it, or drops it: None):
#: the config's severities, a baseline, a baseline being recorded.
Adjust = Callable[[Finding], Finding | None]


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
        #: Findings per rule code (the rule's name for a finding without a code).
        self.by_code: Counter[str] = Counter()
        self.file_count = 0
        self.documents = 0
        #: Inputs that could not be read or parsed, and how many of them a baseline absorbed
        #: (it held every input finding of the file): only the others make exit code 3.
        self.unreadable_files = 0
        self.absorbed = 0
        #: ``(path, record, outline)`` of each document that holds versions, in input order,
        #: kept with the findings: the service's blocks are made from them
        #: (``quizkit.reporters.service_blocks.blocks_for``) without reading an input again.
        self.outlines: list[tuple[str, int | None, Any]] = []

    def add_file(self, result: FileResult) -> None:
        self.file_count += 1
        self.documents += result.documents
        if not result.readable:
            self.unreadable_files += 1
        if self.keep_files:
            self.files.append(result)

    def add(self, finding: Finding) -> None:
        self.counts[finding.severity] += 1
        self.by_rule[finding.rule] += 1
        self.by_code[finding.code or finding.rule] += 1
        if self.keep_findings:
            self.findings.append(finding)

    @property
    def unreadable(self) -> bool:
        """Whether an input that could not be read or parsed is left after the baseline
        (exit code 3)."""
        return self.unreadable_files > self.absorbed

    def count(self, severity: Severity) -> int:
        return self.counts[severity]

    def summary(self) -> dict:
        return {
            "files": self.file_count,
            "documents": self.documents,
            "errors": self.count(Severity.ERROR),
            "warnings": self.count(Severity.WARNING),
            "infos": self.count(Severity.INFO),
            "unreadable": self.unreadable_files,
        }

    def worst(self) -> Severity | None:
        return max((s for s, n in self.counts.items() if n), default=None)

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 clean, 1 findings at or above ``fail_on``, 3 an input could not be read or parsed
        (the policy of :mod:`quizkit.catalog.exits`)."""
        worst = self.worst()
        return exits.for_run(self.unreadable_files - self.absorbed,
                             exits.FINDINGS if worst is not None and worst >= fail_on
                             else exits.OK)
