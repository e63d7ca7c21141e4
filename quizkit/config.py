"""Settings from ``[tool.quizkit]`` / ``quizkit.toml`` and the command line → one object.

A config file is found from the current directory upward: in each directory ``quizkit.toml``
(options at its top level) wins over ``pyproject.toml`` (options under ``[tool.quizkit]``; a
``pyproject.toml`` without that table is passed over). ``--config FILE`` names one instead.
Command-line options win over the file: ``--select``/``--ignore``/``--fail-on`` replace the
file's value, ``--severity`` entries override the file's per rule.

The result is applied in the main process through the engine's ``adjust`` hook
(:meth:`Settings.adjuster`), so workers always run every check and stay simple.

Input rules (``P``: unreadable input, invalid JSON, unknown kind) cannot be ignored or
re-graded: a file that was not checked must never pass silently.
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizkit.findings import Finding, Severity
from quizkit.rules import catalog

#: Options a config file may set. Other components may add theirs (``OPTIONS.add(...)``);
#: their values are kept in :attr:`Settings.extra`.
OPTIONS: set[str] = {"select", "ignore", "severity", "fail-on", "per-path-ignores"}
INPUT_PREFIX = "P"
CONFIG_NAMES = ("quizkit.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration problem (exit code 2). The message names the option and the file."""


@dataclass
class Settings:
    """Resolved rule settings. Selectors are kept as written; :meth:`adjuster` resolves them."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str | None = None
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    #: The config file the settings came from, and its directory (per-path patterns are
    #: relative to it).
    source: Path | None = None
    root: Path | None = None

    @property
    def where(self) -> str:
        return str(self.source) if self.source else "the command line"

    def fail_on_severity(self) -> Severity:
        return Severity.parse(self.fail_on or "error")

    def adjuster(self) -> Adjuster:
        return Adjuster(self)


# --- finding and reading config files ----------------------------------------------------------

def find_config(start: Path | None = None) -> Path | None:
    """The nearest config file from ``start`` (default: the current directory) upward."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            if name == "pyproject.toml" and _pyproject_table(candidate) is None:
                continue
            return candidate
    return None


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML in {path}: {exc}") from None


def _pyproject_table(path: Path) -> dict | None:
    try:
        data = _read_toml(path)
    except ConfigError:
        return None
    table = data.get("tool", {}).get("quizkit") if isinstance(data.get("tool"), dict) else None
    return table if isinstance(table, dict) else None


def load_config(path: Path) -> Settings:
    """Read one config file (``pyproject.toml`` → its ``[tool.quizkit]``; else the top level)."""
    path = Path(path)
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("quizkit", {}) if isinstance(tool, dict) else {}
        prefix = "tool.quizkit."
    else:
        table = data
        prefix = ""
    if not isinstance(table, dict):
        raise ConfigError(f"{prefix.rstrip('.')} in {path} must be a table")
    return settings_from_table(table, path, prefix)


def settings_from_table(table: dict, path: Path | None, prefix: str = "") -> Settings:
    where = str(path) if path else "the configuration"
    s = Settings(source=path, root=path.parent.resolve() if path else None)
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key not in OPTIONS:
            raise ConfigError(f"unknown option {name!r} in {where} "
                              f"(known: {', '.join(sorted(OPTIONS))})")
        if key == "select":
            s.select = _str_list(value, name, where)
        elif key == "ignore":
            s.ignore = _str_list(value, name, where)
        elif key == "severity":
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise ConfigError(f"{name} in {where} must be a table of RULE = \"LEVEL\"")
            s.severity = dict(value)
        elif key == "fail-on":
            if not isinstance(value, str):
                raise ConfigError(f"{name} in {where} must be a string")
            s.fail_on = value
        elif key == "per-path-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{name} in {where} must be a table of \"GLOB\" = [RULES]")
            s.per_path_ignores = {str(k): _str_list(v, f"{name}.{k}", where)
                                  for k, v in value.items()}
        else:
            s.extra[key] = value
    validate(s)
    return s


def _str_list(value: Any, name: str, where: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{name} in {where} must be a list of rule codes or names")
    return list(value)


# --- merging with the command line -----------------------------------------------------------

def split_list(values: Iterable[str]) -> list[str]:
    """``("S003,U", "R001")`` → ``["S003", "U", "R001"]`` (repeatable, comma-separated)."""
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


def resolve(config: Path | None = None, *, select: Iterable[str] = (), ignore: Iterable[str] = (),
            severity: Iterable[str] = (), fail_on: str | None = None,
            discover: bool = True) -> Settings:
    """The settings of one run: the config file (given, or found), then the command line."""
    path = config if config is not None else (find_config() if discover else None)
    s = load_config(path) if path is not None else Settings()
    cli_select = split_list(select)
    cli_ignore = split_list(ignore)
    if cli_select:
        s.select = cli_select
    if cli_ignore:
        s.ignore = cli_ignore
    for item in severity:
        rule_part, sep, level = item.partition("=")
        if not sep or not rule_part.strip() or not level.strip():
            raise ConfigError(f"--severity expects RULE=LEVEL, got {item!r}")
        s.severity[rule_part.strip()] = level.strip()
    if fail_on is not None:
        s.fail_on = fail_on
    validate(s, cli=bool(cli_select or cli_ignore or severity or fail_on))
    return s


# --- selectors ---------------------------------------------------------------------------------

def resolve_selector(selector: str, where: str) -> set[str]:
    """Rule names a selector stands for: a code, a name, a code prefix (``S``, ``S00``), ALL."""
    key = selector.strip()
    rules = catalog.all_rules()
    if key.upper() == "ALL":
        return {r.name for r in rules}
    try:
        return {catalog.get(key).name}
    except KeyError:
        pass
    if key[:1].isalpha() and key.isalnum():
        hits = {r.name for r in rules if r.code.startswith(key.upper())}
        if hits:
            return hits
    raise ConfigError(f"unknown rule {selector!r} in {where} (see `quizkit rules`)")


def validate(s: Settings, cli: bool = False) -> None:
    """Check every rule and level named, so that a typo is an error rather than a no-op."""
    where = s.where + (" or the command line" if cli and s.source else "")
    for sel in (*(s.select or ()), *s.ignore):
        resolve_selector(sel, where)
    for sel, level in s.severity.items():
        resolve_selector(sel, where)
        try:
            Severity.parse(level)
        except ValueError:
            raise ConfigError(f"unknown severity {level!r} for {sel!r} in {where} "
                              f"(use error, warning or info)") from None
    if s.fail_on is not None:
        try:
            Severity.parse(s.fail_on)
        except ValueError:
            raise ConfigError(f"unknown fail-on level {s.fail_on!r} in {where} "
                              f"(use error, warning or info)") from None
    checked: set[str] = set()  # a generated table repeats a few selectors 100,000 times
    for pattern, sels in s.per_path_ignores.items():
        for sel in sels:
            if sel not in checked:
                resolve_selector(sel, f"per-path-ignores {pattern!r} of {where}")
                checked.add(sel)


# --- applying settings to findings -------------------------------------------------------------

class Adjuster:
    """The engine's ``adjust`` hook for a :class:`Settings`: drop, re-grade or keep a finding."""

    def __init__(self, s: Settings) -> None:
        names = {r.name for r in catalog.all_rules()}
        enabled = set(names)
        if s.select is not None:
            enabled = set().union(*(resolve_selector(x, s.where) for x in s.select))
        for x in s.ignore:
            enabled -= resolve_selector(x, s.where)
        self.disabled = frozenset(names - enabled)
        self.severity: dict[str, Severity] = {}
        for sel, level in s.severity.items():
            for name in resolve_selector(sel, s.where):
                self.severity[name] = Severity.parse(level)
        self.patterns = _PathPatterns(s.per_path_ignores, s.where)
        self.root = s.root
        self._by_path: dict[str, frozenset[str]] = {}

    @property
    def is_noop(self) -> bool:
        return not (self.disabled or self.severity or self.patterns)

    def _path_ignores(self, path: str) -> frozenset[str]:
        hit = self._by_path.get(path)
        if hit is None:
            hit = self.patterns.match(_path_forms(path, self.root))
            self._by_path[path] = hit
        return hit

    def __call__(self, finding: Finding) -> Finding | None:
        if finding.code.startswith(INPUT_PREFIX):
            return finding
        name = finding.rule
        if name in self.disabled:
            return None
        if self.patterns and name in self._path_ignores(finding.path):
            return None
        level = self.severity.get(name)
        if level is not None:
            finding.severity = level
        return finding


class _PathPatterns:
    """Per-path-ignores patterns -> the rule names each ignores, matched fast.

    A pattern without ``*``, ``?`` or ``[`` is a dictionary key (a generated table of one
    entry per file costs one lookup per path, whatever its length); the others are compiled
    once. Selectors are resolved once each, however many patterns repeat them.
    """

    def __init__(self, table: dict[str, list[str]], where: str) -> None:
        resolved: dict[str, frozenset[str]] = {}
        self.literal: dict[str, frozenset[str]] = {}
        self.wild: list[tuple[Callable[[str], object], frozenset[str]]] = []
        for pattern, sels in table.items():
            for x in sels:
                if x not in resolved:
                    resolved[x] = frozenset(resolve_selector(x, where))
            names = frozenset().union(*(resolved[x] for x in sels))
            if _WILDCARD.search(pattern):
                self.wild.append((re.compile(fnmatch.translate(pattern)).match, names))
            else:
                self.literal[pattern] = self.literal.get(pattern, frozenset()) | names

    def __bool__(self) -> bool:
        return bool(self.literal or self.wild)

    def match(self, candidates: list[str]) -> frozenset[str]:
        """The rule names ignored for a path given in its ``candidates`` forms."""
        hit = frozenset().union(*(self.literal.get(c, frozenset()) for c in candidates))
        return hit.union(*(names for match, names in self.wild
                           if any(match(c) for c in candidates)))


_WILDCARD = re.compile(r"[*?\[]")


def _path_forms(path: str, root: Path | None) -> list[str]:
    """The path as given and relative to the config file's directory, with ``/``."""
    forms = [path.replace(os.sep, "/").removeprefix("./")]
    if root is not None and path != "<stdin>":
        try:
            rel = os.path.relpath(os.path.abspath(path), root)
        except ValueError:  # another drive on Windows
            rel = None
        if rel is not None and not rel.startswith(".."):
            forms.append(rel.replace(os.sep, "/"))
    return forms


Adjust = Callable[[Finding], Finding | None]


def chain(*steps: Adjust | None) -> Adjust | None:
    """One adjust hook applying ``steps`` in order (``None`` steps are skipped)."""
    active = [s for s in steps if s is not None]
    if not active:
        return None
    if len(active) == 1:
        return active[0]

    def run(finding: Finding) -> Finding | None:
        for step in active:
            out = step(finding)
            if out is None:
                return None
            finding = out
        return finding

    return run
