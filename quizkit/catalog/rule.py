"""The rule catalog: every rule's stable code, name, default severity and documentation.

Rules are declared where they are checked (``rules/<domain>.py``) with :func:`rule`; the docs
page ``docs/rules.md`` is generated from this catalog (``quizkit rules --markdown``) and a test
keeps the two in step. The rules themselves are looked up in the one registry,
:data:`quizkit.rules.REGISTRY` (``REGISTRY.get(code_or_name)``, ``REGISTRY.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizkit.catalog.findings import Severity


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    explanation: str
    bad: str = ""
    good: str = ""
    group: str = ""


def rule(code: str, name: str, severity: Severity, summary: str, explanation: str,
         bad: str = "", good: str = "", group: str = "") -> Rule:
    """Declare a rule (a value: the registry collects the rules of the rule modules, and
    checks that codes and names are unique)."""
    return Rule(code, name, severity, summary, explanation, bad, good, group)

