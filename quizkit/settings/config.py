"""Config files, the command line and the Python API → one immutable :class:`Settings`.

A config file is found from the current directory upward: in each directory ``quizkit.toml``
(options at its top level) wins over ``pyproject.toml`` (options under ``[tool.quizkit]``; a
``pyproject.toml`` without that table is passed over). The search stops at the root of a
repository (a directory holding ``.git``) and at the home directory, after looking there, and
before a directory or a file owned by another user (a configuration someone else can write
could silence every check). ``--config FILE`` names one instead; ``--isolated`` uses none.
Options given on the command line (or to :mod:`quizkit.api`) win over the file:
``select``/``ignore``/``fail-on``/``profile`` replace the file's value, ``severity`` entries
override the file's per rule, ``exclude`` patterns add to the file's.

:func:`resolve` is the one place where this happens; everything after it reads the frozen
:class:`Settings`. Rule settings are applied in the main process by an :class:`Adjuster`
(built once per run), so workers always run every check and stay simple.

Input rules (``P``: unreadable input, invalid JSON, unknown kind) cannot be ignored or
re-graded: a file that was not checked must never pass silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from quizkit.catalog.findings import Adjust, Finding, Report, Severity
from quizkit.catalog.rule import Rule
from quizkit.inputs.bounds import MAX_JOBS
from quizkit.inputs.configfiles import ConfigError, read_toml, type_name
from quizkit.inputs.limits import Limits
from quizkit.model.entities import KIND_NAMES
from quizkit.model.profiles import LoadedProfile, read_profile_file
from quizkit.rules import REGISTRY
from quizkit.settings.path_ignores import PathIgnores
from quizkit.settings.team_checks import TeamCheck, read_checks

INPUT_PREFIX = "P"
CONFIG_NAMES = ("quizkit.toml", "pyproject.toml")
SEVERITIES = ("error", "warning", "info")

#: A rule selector list as the API takes it: ``"S,R"`` or ``["S", "unknown-field"]``.
Rules = str | Iterable[str]
__all__ = ["Adjuster", "ConfigError", "Settings", "find_config", "load_config", "resolve",
           "resolve_selector"]


@dataclass(frozen=True)
class Settings:
    """Everything that shapes one run, resolved from config file, command line and API.

    Rule selectors are kept as written (codes, names, prefixes); :func:`resolve` has checked
    that each names a rule, and :meth:`adjuster` applies them.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    #: (rule selector, level) pairs, in the order given; a later entry wins.
    severity: tuple[tuple[str, str], ...] = ()
    fail_on: Severity = Severity.ERROR
    #: (glob, rule selectors) pairs; globs match paths relative to :attr:`root` or as given.
    per_path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    #: Walk hidden entries (``.git``, ``.venv``) and ``node_modules`` too (quizkit.inputs.walk).
    include_hidden: bool = False
    #: Enum profile file (a config file's ``profile`` is relative to the config file).
    profile: str | None = None
    kind: str | None = None
    jobs: int | None = None
    limits: Limits = field(default_factory=Limits)
    baseline: Path | None = None
    write_baseline: Path | None = None
    #: The result cache's directory (a config file's is relative to the file; ``None``: the
    #: default, see quizkit.cache.location).
    cache_dir: str | None = None
    #: The team's own checks (``[[checks]]``, quizkit.settings.team_checks).
    checks: tuple[TeamCheck, ...] = ()
    #: The config file the settings came from.
    source: Path | None = None
    #: :attr:`profile` as :func:`resolve` read it (see :func:`profile_of`).
    loaded_profile: LoadedProfile | None = field(default=None, compare=False, repr=False)

    @property
    def files_read(self) -> tuple[str | Path, ...]:
        """The files these settings make a run read: config file, profile, baseline."""
        return tuple(f for f in (self.source, self.profile, self.baseline) if f is not None)

    @property
    def where(self) -> str:
        return str(self.source) if self.source else "the command line"

    @property
    def root(self) -> Path | None:
        """The directory per-path patterns are relative to (the config file's)."""
        return self.source.parent.resolve() if self.source else None

    @property
    def team_rules(self) -> tuple[Rule, ...]:
        """The team's checks as catalog rules, for selectors and reports."""
        return tuple(c.rule for c in self.checks)

    def adjuster(self) -> Adjuster:
        return Adjuster(self)

    def exit_code(self, report: Report) -> int:
        """The run's exit code: 3 unreadable input, 1 findings at ``fail_on``, else 0.

        Writing a baseline records the findings rather than judging them: 0 unless 3.
        """
        code = report.exit_code(self.fail_on)
        if self.write_baseline is not None:
            return 3 if code == 3 else 0
        return code


#: What ``config=`` may be: a config file, settings or a config table to start from, ``None``
#: to look for a config file from the current directory upward, ``False`` for none.
ConfigSource = str | os.PathLike[str] | Mapping[str, Any] | Settings | bool | None


# --- reading config files ----------------------------------------------------------------------

def find_config(start: Path | None = None) -> Path | None:
    """The nearest config file from ``start`` (default: the current directory) upward.

    A ``pyproject.toml`` is read to see whether it has a ``[tool.quizkit]`` table, so an
    invalid one is a :class:`ConfigError`, not silently passed over.
    """
    here = (start or Path.cwd()).resolve()
    home = _home()
    for directory in (here, *here.parents):
        if not _owned_by_us(directory):
            return None
        for name in CONFIG_NAMES:
            candidate = directory / name
            if not candidate.exists():
                continue
            if not _owned_by_us(candidate):
                return None
            if name == "pyproject.toml" and _tool_table(candidate) is None:
                continue
            return candidate
        if directory == home or (directory / ".git").exists():
            return None
    return None


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):  # no home directory known
        return None


def _owned_by_us(path: Path) -> bool:
    """Whether ``path`` belongs to the user running quizkit (always, where there are no
    owners to compare)."""
    if not hasattr(os, "geteuid"):
        return True
    try:
        return path.stat().st_uid == os.geteuid()
    except OSError:
        return False


def _tool_table(path: Path) -> Any:
    tool = read_toml(path, "config file").get("tool")
    return tool.get("quizkit") if isinstance(tool, dict) else None


def load_config(path: str | os.PathLike[str]) -> Settings:
    """Read one config file (``pyproject.toml`` → its ``[tool.quizkit]``; else the top level)."""
    path = Path(path)
    if path.name == "pyproject.toml":
        table, prefix = _tool_table(path) or {}, "tool.quizkit."
    else:
        table, prefix = read_toml(path, "config file"), ""
    if not isinstance(table, dict):
        raise ConfigError(f"{prefix.rstrip('.')} in {path} must be a table")
    return settings_from_table(table, path, prefix)


def _str_list(value: Any, name: str, where: str) -> tuple[str, ...]:
    """A list of strings; a lone string is the wrong type, as the docs say (a list of one
    is written ``["name"]``)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{name} in {where} must be an array of strings, "
                          f"not {type_name(value)}")
    return tuple(value)


def _rule_table(value: Any, name: str, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{name} in {where} must be a table of RULE = \"LEVEL\"")
    return tuple(value.items())


def _bool(value: Any, name: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} in {where} must be true or false, not {type_name(value)}")
    return value


def _level(value: Any, name: str, where: str) -> Severity:
    if not isinstance(value, str):
        raise ConfigError(f"{name} in {where} must be a string, not {type_name(value)}")
    return parse_level(value, f"fail-on level {value!r} in {where}")


def _path_rules(value: Any, name: str, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{name} in {where} must be a table of \"GLOB\" = [RULES]")
    return tuple((str(k), _str_list(v, f"{name}.{k}", where)) for k, v in value.items())


def _relative_file(value: Any, name: str, where: str, base: Path | None) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{name} in {where} must be a string, not {type_name(value)}")
    return str((base or Path.cwd()) / value)


#: Config-file keys: the :class:`Settings` field each sets, and how its value is read
#: (value, key as written, file) → field value. A new option is one line here.
KEYS: dict[str, tuple[str, Callable[..., Any]]] = {
    "select": ("select", _str_list),
    "ignore": ("ignore", _str_list),
    "severity": ("severity", _rule_table),
    "fail-on": ("fail_on", _level),
    "per-path-ignores": ("per_path_ignores", _path_rules),
    "exclude": ("exclude", _str_list),
    "include-hidden": ("include_hidden", _bool),
    "profile": ("profile", None),  # a path: relative to the file, see settings_from_table
    "cache-dir": ("cache_dir", None),
    "checks": ("checks", read_checks),
}


def settings_from_table(table: Mapping[str, Any], path: Path | None,
                        prefix: str = "") -> Settings:
    """Settings from a config table (a file's, or one given to the API with ``path`` None)."""
    where = str(path) if path else "the configuration"
    values: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if key not in KEYS:
            raise ConfigError(f"unknown option {name!r} in {where} "
                              f"(known: {', '.join(sorted(KEYS))})")
        attribute, read = KEYS[key]
        if read is None:
            values[attribute] = _relative_file(value, name, where,
                                               path.parent if path else None)
        else:
            values[attribute] = read(value, name, where)
    settings = Settings(source=path, **values)
    check(settings)
    return settings


# --- the command line and the API --------------------------------------------------------------

def split_list(values: Rules) -> tuple[str, ...]:
    """``("S003,U", "R001")`` → ``("S003", "U", "R001")`` (repeatable, comma-separated)."""
    if isinstance(values, str):
        values = (values,)
    return tuple(part.strip() for v in values for part in v.split(",") if part.strip())


def _severity_pairs(severity: Mapping[str, str] | Iterable[str]) -> tuple[tuple[str, str], ...]:
    if isinstance(severity, Mapping):
        return tuple((str(k), str(v)) for k, v in severity.items())
    pairs = []
    for item in ((severity,) if isinstance(severity, str) else severity):
        rule_part, sep, level = item.partition("=")
        if not sep or not rule_part.strip() or not level.strip():
            raise ConfigError(f"--severity expects RULE=LEVEL, got {item!r}")
        pairs.append((rule_part.strip(), level.strip()))
    return tuple(pairs)


def parse_level(level: str | Severity, what: str) -> Severity:
    """``"warning"`` → :attr:`Severity.WARNING`; ``what`` names the value in the error."""
    if isinstance(level, Severity):
        return level
    try:
        return Severity.parse(level)
    except ValueError:
        raise ConfigError(f"unknown {what} (use error, warning or info)") from None


def _base(config: ConfigSource) -> Settings:
    if isinstance(config, Settings):
        return config
    if config is None or config is True:
        found = find_config()
        return load_config(found) if found is not None else Settings()
    if config is False:
        return Settings()
    if isinstance(config, Mapping):
        return settings_from_table(config, None)
    return load_config(config)


def resolve(config: ConfigSource = None, *, select: Rules | None = None,
            ignore: Rules | None = None, severity: Mapping[str, str] | Iterable[str] = (),
            fail_on: str | Severity | None = None, exclude: Iterable[str] = (),
            include_hidden: bool = False, profile: str | os.PathLike[str] | None = None,
            kind: str | None = None,
            jobs: int | None = None, limits: Limits | None = None,
            baseline: str | os.PathLike[str] | None = None,
            write_baseline: str | os.PathLike[str] | None = None,
            cache_dir: str | os.PathLike[str] | None = None) -> Settings:
    """The settings of one run: the config (given, found or none), then these options.

    Raises :class:`ConfigError` naming the first problem (an unknown rule or level, a bad
    file, options that cannot be combined).
    """
    base = _base(config)
    changes: dict[str, Any] = {}
    if select is not None and split_list(select):
        changes["select"] = split_list(select)
    if ignore is not None and split_list(ignore):
        changes["ignore"] = split_list(ignore)
    if severity:
        changes["severity"] = (*base.severity, *_severity_pairs(severity))
    if fail_on is not None:
        changes["fail_on"] = parse_level(fail_on, f"fail-on level {fail_on!r}")
    if exclude:
        changes["exclude"] = (*((exclude,) if isinstance(exclude, str) else exclude),
                              *base.exclude)
    if include_hidden:
        changes["include_hidden"] = True
    if profile is not None:
        changes["profile"] = os.fspath(profile)
    if kind is not None:
        if kind not in KIND_NAMES:
            raise ConfigError(f"unknown kind {kind!r} (kinds: {', '.join(KIND_NAMES)})")
        changes["kind"] = kind
    if jobs is not None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
            raise ConfigError(f"jobs must be a whole number from 1 to {MAX_JOBS}, "
                              f"got {jobs!r}")
        changes["jobs"] = jobs
    if limits is not None:
        changes["limits"] = limits
    if baseline is not None:
        changes["baseline"] = Path(baseline)
    if write_baseline is not None:
        changes["write_baseline"] = Path(write_baseline)
    if cache_dir is not None:
        changes["cache_dir"] = os.fspath(cache_dir)
    settings = replace(base, **changes)
    if settings.baseline is not None and settings.write_baseline is not None:
        raise ConfigError("--baseline and --write-baseline cannot be combined "
                          "(rewrite the baseline with --write-baseline alone)")
    if changes:
        check(settings, cli=True)
    if settings.profile is not None:  # read now: a bad profile fails before any walk
        settings = replace(settings, loaded_profile=profile_of(settings))
    return settings


def profile_of(s: Settings) -> LoadedProfile:
    """The enum profile of ``s``: as :func:`resolve` read it, or read now for settings made
    by hand."""
    if s.loaded_profile is not None and s.loaded_profile.path == s.profile:
        return s.loaded_profile
    return read_profile_file(s.profile)


# --- selectors ---------------------------------------------------------------------------------

class Selectors:
    """Rule selectors → rule names, each selector resolved once (per run or per check)."""

    def __init__(self, team: Iterable[Rule] = ()) -> None:
        self.team = {key: r for r in team for key in (r.code, r.name)}
        self.rules = (*REGISTRY.rules, *self.team.values())
        self.all = frozenset(r.name for r in self.rules)
        self._known: dict[str, frozenset[str]] = {}

    def __call__(self, selector: str, where: str) -> frozenset[str]:
        """Rule names a selector stands for: a code, a name, a code prefix (``S``), ALL."""
        hit = self._known.get(selector)
        if hit is None:
            hit = self._known[selector] = self._lookup(selector, where)
        return hit

    def _lookup(self, selector: str, where: str) -> frozenset[str]:
        key = selector.strip()
        if key.upper() == "ALL":
            return self.all
        try:
            return frozenset({REGISTRY.get(key).name})
        except KeyError:
            pass
        if key.upper() in self.team or key in self.team:
            return frozenset({self.team.get(key.upper(), self.team.get(key)).name})  # type: ignore[union-attr]
        if key[:1].isalpha() and key.isalnum():
            hits = frozenset(r.name for r in self.rules if r.code.startswith(key.upper()))
            if hits:
                return hits
        raise ConfigError(f"unknown rule {selector!r} in {where} (see `quizkit rules`)")

    def union(self, selectors: Iterable[str], where: str) -> frozenset[str]:
        return frozenset().union(*(self(s, where) for s in selectors))


def resolve_selector(selector: str, where: str) -> frozenset[str]:
    """Rule names a selector stands for (see :class:`Selectors`)."""
    return Selectors()(selector, where)


def check(s: Settings, cli: bool = False) -> None:
    """Check every rule and level named, so that a typo is an error rather than a no-op."""
    where = s.where + (" or the command line" if cli and s.source else "")
    selectors = Selectors(s.team_rules)
    selectors.union((*(s.select or ()), *s.ignore), where)
    for sel, level in s.severity:
        selectors(sel, where)
        parse_level(level, f"severity {level!r} for {sel!r} in {where}")
    for pattern, sels in s.per_path_ignores:
        if pattern.strip().startswith("!"):
            raise ConfigError(f"per-path-ignores {pattern!r} of {where}: negation ('!') is "
                              "not supported; list the paths whose findings to ignore")
        for sel in sels:
            selectors(sel, f"per-path-ignores {pattern!r} of {where}")


# --- applying settings to findings -------------------------------------------------------------

class Adjuster:
    """The engine's ``adjust`` hook for a :class:`Settings`: drop, re-grade or keep a finding."""

    def __init__(self, s: Settings) -> None:
        selectors = Selectors(s.team_rules)
        enabled = set(selectors.all)
        if s.select is not None:
            enabled = set(selectors.union(s.select, s.where))
        enabled -= selectors.union(s.ignore, s.where)
        self.disabled = selectors.all - enabled
        self.severity: dict[str, Severity] = {}
        for sel, level in s.severity:
            for name in selectors(sel, s.where):
                self.severity[name] = parse_level(level, f"severity {level!r}")
        self.paths = PathIgnores((pattern, selectors.union(sels, s.where))
                                 for pattern, sels in s.per_path_ignores)
        self.root = s.root
        self._by_path: dict[str, frozenset[str]] = {}

    @property
    def is_noop(self) -> bool:
        return not (self.disabled or self.severity or self.paths)

    def _path_ignores(self, path: str) -> frozenset[str]:
        hit = self._by_path.get(path)
        if hit is None:
            hit = frozenset().union(*(self.paths.match(form)
                                      for form in _path_forms(path, self.root)))
            self._by_path[path] = hit
        return hit

    def __call__(self, finding: Finding) -> Finding | None:
        if finding.code.startswith(INPUT_PREFIX):
            return finding
        name = finding.rule
        if name in self.disabled:
            return None
        if self.paths and name in self._path_ignores(finding.path):
            return None
        level = self.severity.get(name)
        if level is not None:
            finding.severity = level
        return finding


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
