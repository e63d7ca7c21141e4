"""The Python API: each command of the CLI as a function taking the same options.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0

The CLI (``quizkit/commands/``) only parses options, calls these functions, prints what they
return and chooses the exit code. A CLI option ``--some-option`` is the parameter
``some_option`` here, except for the renames in :data:`CLI_RENAMES`; options that only change
what a command prints on the terminal are listed in :data:`CLI_ONLY` (a test checks both
tables against the commands).

Configuration is resolved as on the command line: ``config=None`` looks for ``quizkit.toml``
or ``pyproject.toml`` from the current directory upward, ``config=False`` uses none, and a
path, a :class:`~quizkit.config.Settings` or a config table (a dict as in ``quizkit.toml``)
is used as given. Problems with options or configuration raise
:class:`~quizkit.config.ConfigError` (the CLI's exit code 2); a path that does not exist
raises :class:`~quizkit.sources.MissingPath`; a bad report format or file,
:class:`~quizkit.reporters.ReportSpecError`.
"""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from quizkit.config import ConfigError
from quizkit.documents import Skipped, iter_documents
from quizkit.enums import Inferred, profile_toml
from quizkit.enums import infer as infer_values
from quizkit.output import atomic_write
from quizkit.runner import expand_paths, settings, validate

__all__ = ["CLI_ONLY", "CLI_RENAMES", "infer", "settings", "validate"]

#: (command, CLI option) → API parameter, where the names differ.
CLI_RENAMES: dict[tuple[str, str], str] = {
    ("validate", "report"): "reports",
}

#: (command, CLI option) that have no API parameter, and why.
CLI_ONLY: dict[tuple[str, str], str] = {}


def infer(paths: Iterable[str] | str, *, exclude: Iterable[str] = (),
          format: str | None = None, output: str | None = None,
          skipped: Skipped | None = None) -> Inferred:
    """The enum values seen in ``paths`` (``quizkit enums infer``), with counts and examples.

    With ``output``, also writes them there (atomically) in ``format``: ``toml`` (default, a
    profile for ``profile=``) or ``json``. Inputs that cannot be read, parsed or recognised
    are counted in ``skipped``.
    """
    if format not in (None, *INFER_FORMATS):
        raise ConfigError(f"unknown format {format!r} (use {', '.join(INFER_FORMATS)})")
    path_list = [paths] if isinstance(paths, str) else list(paths)
    seen = infer_values(iter_documents(expand_paths(path_list, exclude), skipped))
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(inferred_text(seen, format or "toml", ", ".join(path_list)))
    return seen


INFER_FORMATS = ("toml", "json")


def inferred_text(seen: Inferred, fmt: str, source: str = "") -> str:
    """Inferred values as a TOML profile or as JSON with counts and an example each."""
    if fmt == "json":
        return orjson.dumps({"files": seen.files, "documents": seen.documents,
                             "enums": seen.to_dict()}, option=orjson.OPT_INDENT_2).decode()
    return profile_toml(seen, source)
