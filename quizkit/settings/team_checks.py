"""Checks a team writes itself: the ``[[checks]]`` tables of a config file, read and checked.

Each check has a ``code`` in the team's namespace (``X`` and digits, never a built-in code
or a prefix of built-in codes), a ``name``, a ``description`` for the catalog, and one of

- ``sql``: a query over quizkit's tables returning failing rows, each a finding of
  ``severity`` with ``message`` (a template over the row's columns: ``"package {id}"``);
- ``metric``: a query giving one number, with ``warn-if`` and/or ``error-if`` thresholds
  (``"> 0.02"``); with ``change`` (``"last"`` or ``"avg-N"``) the thresholds apply to the
  change from the run history, in percent (``"< -20%"``) or absolute.

Every problem is a :class:`~quizkit.inputs.configfiles.ConfigError` naming the key path
(``checks[2].warn-if``). The SQL itself is checked where it runs (quizkit.analysis).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizkit.catalog.findings import Severity
from quizkit.catalog.rule import Rule
from quizkit.inputs.configfiles import ConfigError, type_name
from quizkit.rules import REGISTRY

#: The group of team checks in the catalog (``quizkit rules``).
GROUP = "team"
CODE = re.compile(r"X[0-9]+")
NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
THRESHOLD = re.compile(r"\s*(<=|>=|==|!=|<|>)\s*"
                       r"([-+]?[0-9][0-9_]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*(%?)\s*")
CHANGE = re.compile(r"last|avg-([1-9][0-9]*)")
_COMPARE = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__,
            "==": float.__eq__, "!=": float.__ne__}
_COMMON = {"code", "name", "description"}
_SQL_KEYS = _COMMON | {"sql", "severity", "message"}
_METRIC_KEYS = _COMMON | {"metric", "warn-if", "error-if", "change"}


@dataclass(frozen=True, slots=True)
class Limit:
    """``> 0.02``, ``< -20%``: crossed by a value (a change in percent when ``percent``)."""

    op: str
    value: float
    percent: bool
    text: str

    def crossed(self, x: float) -> bool:
        return bool(_COMPARE[self.op](float(x), self.value))


@dataclass(frozen=True, slots=True)
class TeamCheck:
    """One check of ``[[checks]]``: ``sql`` (failing rows) or ``metric`` (one number)."""

    code: str
    name: str
    description: str
    sql: str | None = None
    severity: Severity = Severity.ERROR
    message: str | None = None
    metric: str | None = None
    warn_if: Limit | None = None
    error_if: Limit | None = None
    #: ``None``, ``"last"`` or ``"avg-N"``.
    change: str | None = None
    #: Where it was written, for messages: ``checks[0] (X001) in quizkit.toml``.
    where: str = ""

    @property
    def query(self) -> str:
        return self.sql if self.sql is not None else self.metric or ""

    @property
    def runs(self) -> int:
        """Past runs a change check compares with (0: not a change check)."""
        if self.change is None:
            return 0
        return 1 if self.change == "last" else int(self.change.removeprefix("avg-"))

    @property
    def fields(self) -> tuple[str, ...]:
        """The columns the message template names."""
        return template_fields(self.message or "")

    @property
    def rule(self) -> Rule:
        """The check as a catalog rule (``quizkit rules``, selectors, reports)."""
        if self.sql is not None:
            how = f"Each row of this query is a finding:\n\n    {self.sql.strip()}"
        else:
            limits = ", ".join(f"{label} {t.text}" for label, t in
                               (("warning if", self.warn_if), ("error if", self.error_if)) if t)
            of = f"its change from {self.change} of the run history" if self.change \
                else "its value"
            how = f"A metric ({limits}, on {of}):\n\n    {(self.metric or '').strip()}"
        severity = self.severity if self.sql is not None else (
            Severity.ERROR if self.error_if else Severity.WARNING)
        return Rule(self.code, self.name, severity, self.description or self.name,
                    f"A check of this team's configuration. {how}", group=GROUP)


def template_fields(template: str) -> tuple[str, ...]:
    """The field names of a ``{column}`` template (raises ValueError for a bad one)."""
    out = []
    for _text, name, spec, conversion in string.Formatter().parse(template):
        if name is not None:
            if not name.isidentifier():
                raise ValueError(f"{{{name}}} is not a column name")
            if spec or conversion:
                raise ValueError(f"{{{name}}} takes no format: write {{{name}}} (values are "
                                 "shown as the query gives them)")
            out.append(name)
    return tuple(out)


def read_checks(value: Any, name: str, where: str) -> tuple[TeamCheck, ...]:
    """The ``[[checks]]`` array of a config file (``name``: ``checks`` or
    ``tool.quizkit.checks``)."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{name} in {where} must be an array of tables ([[checks]]), "
                          f"not {type_name(value)}")
    checks = [_one(table, f"{name}[{i}]", where) for i, table in enumerate(value)]
    for attribute in ("code", "name"):
        seen: dict[str, int] = {}
        for i, c in enumerate(checks):
            key = getattr(c, attribute)
            if key in seen:
                raise ConfigError(f"{name}[{i}].{attribute} in {where}: {key!r} is also the "
                                  f"{attribute} of {name}[{seen[key]}]")
            seen[key] = i
    return tuple(checks)


def _text(table: Mapping[str, Any], key: str, path: str, where: str,
          required: bool = True) -> str | None:
    value = table.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"a {type_name(value)}" \
            if not isinstance(value, str) else "empty"
        raise ConfigError(f"{path}.{key} in {where} must be a non-empty string ({what})")
    return value


def _code(code: str, path: str, where: str) -> str:
    builtin = [r.code for r in REGISTRY.rules if r.code.startswith(code.upper())]
    if builtin:
        raise ConfigError(f"{path}.code in {where}: {code!r} is "
                          + ("a built-in code" if code.upper() in builtin
                             else f"a prefix of built-in codes ({builtin[0]}, ...)")
                          + "; a team's codes are X and digits (X001)")
    if not CODE.fullmatch(code):
        raise ConfigError(f"{path}.code in {where}: {code!r} is not X and digits (X001)")
    return code


def _name(name: str, path: str, where: str) -> str:
    if not NAME.fullmatch(name):
        raise ConfigError(f"{path}.name in {where}: {name!r} must be lower-case letters, "
                          "digits and dashes (video-over-limit)")
    try:
        REGISTRY.get(name)
    except KeyError:
        return name
    raise ConfigError(f"{path}.name in {where}: {name!r} is the name of a built-in rule")


def threshold(text: Any, path: str, where: str, change: bool) -> Limit:
    """``"> 0.02"`` → :class:`Limit`; percent only for a change check."""
    if not isinstance(text, str):
        raise ConfigError(f"{path} in {where} must be a string such as \"> 0.02\", "
                          f"not {type_name(text)}")
    match = THRESHOLD.fullmatch(text)
    if match is None:
        raise ConfigError(f"{path} in {where}: {text!r} is not a threshold such as \"> 0.02\", "
                          "\"<= 100\" or, for a change, \"< -20%\"")
    op, number, percent = match.groups()
    if percent and not change:
        raise ConfigError(f"{path} in {where}: {text!r} is in percent, which only a check "
                          "with change = \"last\" or \"avg-N\" compares")
    return Limit(op, float(number.replace("_", "")), bool(percent), text.strip())


def _one(table: Mapping[str, Any], path: str, where: str) -> TeamCheck:
    kinds = [k for k in ("sql", "metric") if k in table]
    if len(kinds) != 1:
        raise ConfigError(f"{path} in {where} must have one of sql (failing rows) or metric "
                          f"(one number), not {' and '.join(kinds) or 'neither'}")
    known = _SQL_KEYS if kinds[0] == "sql" else _METRIC_KEYS
    for key in table:
        if key not in known:
            raise ConfigError(f"unknown key {path}.{key} in {where} for a {kinds[0]} check "
                              f"(known: {', '.join(sorted(known))})")
    code = _code(_text(table, "code", path, where) or "", path, where)
    name = _name(_text(table, "name", path, where) or "", path, where)
    description = table.get("description", "")
    if not isinstance(description, str):
        raise ConfigError(f"{path}.description in {where} must be a string, "
                          f"not {type_name(description)}")
    label = f"{path} ({code}) in {where}"
    if kinds[0] == "sql":
        return _sql_check(table, path, where, code, name, description, label)
    return _metric_check(table, path, where, code, name, description, label)


def _sql_check(table: Mapping[str, Any], path: str, where: str, code: str, name: str,
               description: str, label: str) -> TeamCheck:
    sql = _text(table, "sql", path, where) or ""
    level = table.get("severity", "error")
    try:
        severity = Severity.parse(level) if isinstance(level, str) else None
    except ValueError:
        severity = None
    if severity is None:
        raise ConfigError(f"{path}.severity in {where}: {level!r} is not error, warning or "
                          "info")
    message = _text(table, "message", path, where, required=False)
    try:
        template_fields(message or "")
    except ValueError as exc:
        raise ConfigError(f"{path}.message in {where}: {exc}") from None
    return TeamCheck(code, name, description, sql=sql, severity=severity, message=message,
                     where=label)


def _metric_check(table: Mapping[str, Any], path: str, where: str, code: str, name: str,
                  description: str, label: str) -> TeamCheck:
    metric = _text(table, "metric", path, where) or ""
    change = table.get("change")
    if change is not None and (not isinstance(change, str) or not CHANGE.fullmatch(change)):
        raise ConfigError(f"{path}.change in {where}: {change!r} is not \"last\" or "
                          "\"avg-N\" (avg-7: the mean of the last 7 runs)")
    limits = {key: threshold(table[key], f"{path}.{key}", where, change is not None)
              for key in ("warn-if", "error-if") if key in table}
    if not limits:
        raise ConfigError(f"{path} in {where}: a metric needs warn-if or error-if "
                          "(\"> 0.02\")")
    return TeamCheck(code, name, description, metric=metric, warn_if=limits.get("warn-if"),
                     error_if=limits.get("error-if"), change=change, where=label)
