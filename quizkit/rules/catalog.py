"""The rule catalog: every rule's stable code, name, default severity and documentation.

Rules are declared where they are checked (``rules/<domain>.py``) with :func:`rule`; the docs
page ``docs/rules.md`` is generated from this catalog (``quizkit rules --markdown``) and a test
keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizkit.findings import Severity


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


_BY_CODE: dict[str, Rule] = {}
_BY_NAME: dict[str, Rule] = {}


def rule(code: str, name: str, severity: Severity, summary: str, explanation: str,
         bad: str = "", good: str = "", group: str = "") -> Rule:
    """Declare a rule. Codes and names are unique across the catalog."""
    r = Rule(code, name, severity, summary, explanation, bad, good, group)
    if code in _BY_CODE or name in _BY_NAME:
        raise ValueError(f"rule {code} {name} declared twice")
    _BY_CODE[code] = r
    _BY_NAME[name] = r
    return r


def _load_all() -> None:
    # Importing the rule modules declares their rules.
    from quizkit.rules import load_rule_modules

    load_rule_modules()


def get(code_or_name: str) -> Rule:
    """Look a rule up by code (case-insensitive) or by name. Raises KeyError."""
    _load_all()
    key = code_or_name.strip()
    r = _BY_CODE.get(key.upper()) or _BY_NAME.get(key.lower())
    if r is None:
        raise KeyError(code_or_name)
    return r


def all_rules() -> list[Rule]:
    _load_all()
    return sorted(_BY_CODE.values(), key=lambda r: r.code)
