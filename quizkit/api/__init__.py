"""The Python API: each command of the CLI as a function taking the same options, and the one
way in for the commands (``quizkit/commands/`` import nothing else of quizkit).

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0

The CLI only parses options, calls these functions, prints what they return and chooses the
exit code. A CLI option ``--some-option`` is the parameter ``some_option`` here, except for
the renames in :data:`CLI_RENAMES`; options that only change what a command prints on the
terminal are listed in :data:`CLI_ONLY` (a test checks both tables against the commands).

Configuration is resolved as on the command line, by :func:`settings`: ``config=None`` looks
for ``quizkit.toml`` or ``pyproject.toml`` from the current directory upward,
``config=False`` uses none, and a path, a :class:`~quizkit.settings.config.Settings` (from
:func:`settings`) or a config table (a dict as in ``quizkit.toml``) is used as given.
Problems with options or configuration raise :class:`ConfigError` (the CLI's exit code 2); a
path that does not exist raises :class:`MissingPath`; a bad report format or file,
:class:`ReportSpecError`.

This module is a table, not an implementation: each name is imported from the module that
defines it when first used, so ``quizkit validate`` never imports the analysis side (DuckDB,
PyArrow) nor the cluster's (Dask). :mod:`quizkit.api.validating` holds ``validate``,
``infer`` and ``settings``; :mod:`quizkit.api.database` ``load``, ``summary``, ``charts``,
``query`` and ``export``; :mod:`quizkit.api.comparing` ``diff``;
:mod:`quizkit.api.reference` ``rules``, the schemas and ``generate``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what __getattr__ gives, for type checkers and editors
    from quizkit.analysis.check_run import CheckResult
    from quizkit.analysis.load import LoadResult
    from quizkit.api.comparing import diff
    from quizkit.api.database import Answer, Charts, Exported, charts, export, load, query, summary
    from quizkit.api.reference import export_schemas, generate, rules, schema, schemas
    from quizkit.api.run_history import history
    from quizkit.api.team_checking import check
    from quizkit.api.validating import infer, schema_book, settings, validate
    from quizkit.diff.result import DiffResult
    from quizkit.history.trends import HistoryView
    from quizkit.model.editor import editor_settings
    from quizkit.model.profiles import read_profile_file
    from quizkit.settings.config import ConfigError

#: The functions and results of the API, by the module that defines them.
_API: dict[str, tuple[str, ...]] = {
    "quizkit.api.validating": ("validate", "infer", "settings", "schema_book"),
    "quizkit.api.team_checking": ("check",),
    "quizkit.analysis.check_run": ("CheckResult", "FAILURES_LIMIT"),
    "quizkit.api.database": ("load", "summary", "charts", "query", "export", "Answer",
                             "Charts", "Exported"),
    "quizkit.api.comparing": ("diff",),
    "quizkit.api.run_history": ("history",),
    "quizkit.api.reference": ("rules", "schemas", "schema", "export_schemas", "generate"),
    "quizkit.model.editor": ("editor_settings",),
    "quizkit.model.profiles": ("read_profile_file",),
    "quizkit.analysis.load": ("LoadResult", "LoadError"),
    "quizkit.diff.result": ("DiffResult",),
    "quizkit.history.trends": ("HistoryView",),
    "quizkit.settings.config": ("ConfigError", "SEVERITIES"),
}

#: What the commands need besides the functions: errors to catch, the choices and bounds of
#: their options, and the helpers that word their output, by the module that defines them.
_FOR_COMMANDS: dict[str, tuple[str, ...]] = {
    "quizkit.catalog.display": ("printable",),
    "quizkit.checks.documents": ("SkippedInputs",),
    "quizkit.checks.engine": ("WorkersError",),
    "quizkit.checks.enum_inference": ("INFER_FORMATS", "inferred_text"),
    "quizkit.checks.input_report": ("InputReport",),
    "quizkit.cluster.checking": ("ClusterError",),
    "quizkit.history.history_store": ("HistoryError",),
    "quizkit.inputs.bounds": ("MAX_JOBS", "MAX_PACKAGES", "MAX_ROWS", "MAX_SECONDS",
                              "MAX_THREADS"),
    "quizkit.inputs.limits": ("DEFAULT_MAX_DECOMPRESSED", "DEFAULT_MAX_DEPTH",
                              "DEFAULT_MAX_FILE_SIZE", "DEFAULT_MAX_FINDINGS",
                              "PARSER_MAX_DEPTH", "SIZE_HELP", "format_size", "parse_size"),
    "quizkit.inputs.sources": ("MissingPath", "STDIN_FORMATS"),
    "quizkit.inputs.waits": ("WaitTimeout",),
    "quizkit.inputs.walk": ("PatternError", "unmatched_lines"),
    "quizkit.model.entities": ("KIND_NAMES",),
    "quizkit.outputs.interrupts": ("StopSignals",),
    "quizkit.outputs.numbers": ("plural", "thousands"),
    "quizkit.outputs.progress": ("ProgressLine",),
    "quizkit.reporters": ("REPORTERS", "ReportSpecError"),
    "quizkit.reporters.text": ("COLOR_CHOICES", "files_line"),
    "quizkit.analysis.aftermath": ("load_failure",),
    "quizkit.analysis.connect": ("DatabaseError",),
    "quizkit.analysis.dataset": ("UnreadablePart",),
    "quizkit.analysis.files": ("InputError",),
    "quizkit.analysis.load_session": ("DEFAULT_MEMORY_LIMIT",),
    "quizkit.analysis.query": ("QueryError",),
    "quizkit.analysis.summary_output": ("SUMMARY_FORMATS",),
    "quizkit.diff.compare": ("CHANGES",),
}

#: Names given under another name: API name → ``module:name``.
_RENAMED: dict[str, str] = {
    "exits": "quizkit.catalog.exits:",  # the module: the exit codes and their wording
    "TABLE_FORMATS": "quizkit.pages.formats:FORMATS",
    "DIFF_FORMATS": "quizkit.diff.output:FORMATS",
    "RULE_FORMATS": "quizkit.catalog.rule_docs:FORMATS",
    "HISTORY_FORMATS": "quizkit.history.trends:FORMATS",
    "GROUP_NAMES": "quizkit.analysis.summaries:GROUP_NAMES",
    "EVERY": "quizkit.analysis.summaries:EVERY",
    "parse_seconds": "quizkit.inputs.waits:parse",
    "WAIT_ENV": "quizkit.inputs.waits:ENV",
    "WAIT_DEFAULT": "quizkit.inputs.waits:DEFAULT",
    "parse_scheduler": "quizkit.cluster.scheduler_probe:parse",
}

_WHERE: dict[str, str] = {
    **{name: f"{module}:{name}" for table in (_API, _FOR_COMMANDS)
       for module, names in table.items() for name in names},
    **_RENAMED,
}

__all__ = ["CLI_ONLY", "CLI_RENAMES", "COMMANDS", "Answer", "Charts", "CheckResult",
           "ConfigError", "DiffResult", "Exported", "HistoryView", "LoadResult", "charts",
           "check", "diff",
           "editor_settings", "export", "export_schemas", "generate", "history", "infer", "load",
           "query", "read_profile_file", "rules", "schema", "schema_book", "schemas", "settings",
           "summary", "validate"]

#: (command, CLI option or argument) → API parameter, where the names differ.
CLI_RENAMES: dict[tuple[str, str], str] = {
    ("validate", "report"): "reports",
    ("validate", "no_cache"): "cache",
    ("check", "report"): "reports",
    ("check", "no_cache"): "cache",
    ("diff", "report"): "reports",
    ("rules", "rule_id"): "rule",
    ("schema list", "all"): "records",
    ("schema editor", "match"): "matches",
}

#: (command, CLI option) that have no API parameter, and why.
CLI_ONLY: dict[tuple[str, str], str] = {
    ("load", "quiet"): "only silences the one-line summary the command prints",
    ("load", "progress"): "the CLI's progress line; the API reports each batch to on_batch",
    ("export", "quiet"): "only silences the list of files the command prints",
    **{(name, "isolated"): "config=False"
       for name in ("validate", "check", "rules", "load", "query", "enums infer",
                    "summary all", "summary charts",
                    "summary overview", "summary sizes", "summary starts")},
}

#: Each CLI command → the name of its API function (:data:`COMMANDS` holds the functions).
_COMMAND_FUNCTIONS: dict[str, str] = {
    "validate": "validate", "check": "check", "diff": "diff", "load": "load",
    "query": "query",
    "export": "export", "summary sizes": "summary", "summary starts": "summary",
    "summary overview": "summary", "summary all": "summary", "summary charts": "charts",
    "enums infer": "infer", "rules": "rules", "samples generate": "generate",
    "schema list": "schemas", "schema show": "schema", "schema export": "export_schemas",
    "schema editor": "editor_settings", "history": "history",
}


def __getattr__(name: str) -> Any:
    """A name of the API, imported from its module when first asked for."""
    if name == "COMMANDS":  # each CLI command → its API function (the test of options)
        commands: dict[str, Callable[..., object]] = {
            command: __getattr__(function) for command, function in _COMMAND_FUNCTIONS.items()}
        return commands
    if name not in _WHERE:
        raise AttributeError(f"module 'quizkit.api' has no attribute {name!r}")
    module, _, attribute = _WHERE[name].partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, "COMMANDS"})
