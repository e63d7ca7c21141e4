"""What a diff found: the changes, counts per table, the measures, and the exit code."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from typing import Any

from quizkit.diff.compare import CHANGES
from quizkit.diff.fields import Field
from quizkit.settings.config import ConfigError


@dataclass(slots=True)
class Location:
    """Where one side's copy of a record is: file, pointer to the record, line and column
    (``record``: the line of a JSON Lines document; a database row has only its file)."""

    path: str
    pointer: str | None
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "pointer": self.pointer, "line": self.line,
                "column": self.column}


@dataclass(slots=True)
class Change:
    """One record that differs: its table (``kind``), key, kind of change, where it is on
    each side, and for ``changed`` the fields."""

    kind: str
    id: str
    change: str
    old: Location | None
    new: Location | None
    fields: list[Field] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "id": self.id, "change": self.change,
                               "old": self.old.to_dict() if self.old else None,
                               "new": self.new.to_dict() if self.new else None}
        if self.change == "changed":
            out["fields"] = [f.to_dict() for f in self.fields]
        return out


@dataclass(frozen=True, slots=True)
class Threshold:
    """``TABLE.CHANGE OP NUMBER[%]`` (``packages.removed > 1%``): a percent is of the
    table's records on the old side."""

    table: str
    change: str
    op: str
    value: float
    percent: bool
    text: str

    def holds(self, summary: dict[str, dict[str, int]]) -> bool:
        counts = summary.get(self.table, {})
        n = counts.get(self.change, 0)
        if self.percent:
            old = sum(counts.get(c, 0) for c in ("removed", "changed", "moved", "unchanged"))
            n = 100.0 * n / old if old else (100.0 if n else 0.0)
        return _OPS[self.op](n, self.value)


_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
        "==": operator.eq, "!=": operator.ne}
_THRESHOLD = re.compile(r"^\s*(\w+)\.(\w+)\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


def parse_threshold(text: str, tables: tuple[str, ...]) -> Threshold:
    """A ``--fail-if`` expression; raises :class:`ConfigError` naming what is wrong."""
    m = _THRESHOLD.match(text)
    if m is None:
        raise ConfigError(f"--fail-if {text!r}: write TABLE.CHANGE OP NUMBER, e.g. "
                          "'packages.removed > 1%'")
    table, change, op, value, percent = m.groups()
    if table not in tables:
        raise ConfigError(f"--fail-if {text!r}: no table {table!r} (tables: "
                          f"{', '.join(tables)})")
    if change not in (*CHANGES, "unchanged"):
        raise ConfigError(f"--fail-if {text!r}: no change {change!r} (changes: "
                          f"{', '.join((*CHANGES, 'unchanged'))})")
    return Threshold(table, change, op, float(value), bool(percent), text.strip())


@dataclass
class DiffResult:
    """The diff of two exports (``quizkit diff``), as the API returns it."""

    old: list[str]
    new: list[str]
    summary: dict[str, dict[str, int]]
    totals: dict[str, dict[str, int]]
    changes: list[Change]
    #: Inputs that could not be read or parsed: (side, path, reason).
    unreadable: list[tuple[str, str, str]] = field(default_factory=list)
    #: The kinds of change that make a difference (``fail_on``).
    fail_on: tuple[str, ...] = CHANGES
    thresholds: tuple[Threshold, ...] = ()
    #: The thresholds that held.
    crossed: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.crossed = [t.text for t in self.thresholds if t.holds(self.summary)]

    def counts(self) -> dict[str, int]:
        """Records per kind of change, over every table."""
        return {c: sum(t.get(c, 0) for t in self.summary.values())
                for c in (*CHANGES, "unchanged")}

    @property
    def different(self) -> bool:
        """Whether the exports differ in a way that counts: a ``fail_on`` change, or with
        thresholds, one that held."""
        if self.thresholds:
            return bool(self.crossed)
        counts = self.counts()
        return any(counts[c] for c in self.fail_on)

    @property
    def exit_code(self) -> int:
        """As diff(1): 0 the same, 1 different, 3 an input could not be read (the rest was
        still compared)."""
        if self.unreadable:
            return 3
        return 1 if self.different else 0

    def measures(self) -> dict[str, dict[str, Any]]:
        """The totals with their difference and percent (``None`` from an old 0)."""
        out = {}
        for name, t in self.totals.items():
            diff = t["new"] - t["old"]
            pct = round(100.0 * diff / t["old"], 2) if t["old"] else None
            out[name] = {"old": t["old"], "new": t["new"], "difference": diff, "percent": pct}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "summary": self.summary,
                "totals": self.measures(),
                "changes": [c.to_dict() for c in self.changes],
                "unreadable": [{"side": s, "path": p, "reason": r}
                               for s, p, r in self.unreadable],
                "thresholds": {"crossed": self.crossed}}
