"""How many findings one file lists (``--max-findings``), and the count of the rest.

A document whose every element is wrong would otherwise cost memory in proportion to its
findings, not its size: past the cap, a finding is counted by rule and dropped, and the file
gets one ``findings-capped`` finding saying how many more there were, of which rules, at the
worst severity among them (so the exit code is the one they would give).
"""

from __future__ import annotations

from collections import Counter

from quizkit.catalog import input_rules
from quizkit.catalog.findings import Finding
from quizkit.catalog.rule import Rule


class Budget:
    """How many more findings a file may list (0 at the start: no cap), and the rules of
    those it could not, counted."""

    __slots__ = ("cap", "left", "more")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.left: int | None = cap or None
        self.more: Counter[Rule] = Counter()

    def take(self, rule: Rule) -> bool:
        """Whether a finding of ``rule`` is listed; if not, it is counted."""
        if self.left is None:
            return True
        if self.left > 0:
            self.left -= 1
            return True
        self.more[rule] += 1
        return False

    def finding(self, path: str) -> Finding:
        """The one ``findings-capped`` finding of the file (when :attr:`more` has any)."""
        total = sum(self.more.values())
        rules = ", ".join(f"{r.code} {r.name} {n:,}" for r, n in
                          sorted(self.more.items(), key=lambda item: (-item[1], item[0].code)))
        rule = input_rules.FINDINGS_CAPPED
        return Finding(path=path, pointer="", rule=rule.name,
                       severity=max(r.severity for r in self.more), code=rule.code,
                       message=f"{total:,} more finding{'s' * (total != 1)} not listed (over "
                               f"--max-findings {self.cap:,}): {rules}")
