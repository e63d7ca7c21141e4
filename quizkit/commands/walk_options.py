"""The input options shared by commands that read exports: ``--exclude``, ``--include-hidden``,
and ``--stdin-format`` for those that read stdin.

They reach the command as the parameters ``exclude``, ``include_hidden`` and ``stdin_format``,
the names the
matching functions of :mod:`quizkit.api` take; :func:`warn_unmatched` is the one warning for a
pattern that matched nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from quizkit import api


def walk_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--exclude`` and ``--include-hidden`` to a click command."""
    command = click.option(
        "--include-hidden", is_flag=True, default=False,
        help="Also walk hidden files and directories (.git, .venv, any name starting with a "
        "dot) and node_modules, which walking skips by default.")(command)
    return click.option(
        "--exclude", multiple=True, metavar="PATTERN",
        help="Skip what matches this gitignore-style PATTERN while walking directories "
        "(repeatable): invalid/, samples/invalid, **/tmp/*, *.jsonl. Files named "
        "explicitly are always read. A pattern that matches nothing is a warning.")(command)


def stdin_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--stdin-format`` to a click command that reads ``-``."""
    return click.option(
        "--stdin-format", type=click.Choice(sorted(api.STDIN_FORMATS)), default="auto",
        show_default=True,
        help="What - (stdin) holds: json (one document), jsonl (JSON Lines: one document "
        "per line), or auto: JSON Lines when the first of several lines is a whole JSON "
        "value.")(command)


def warn_unmatched(patterns: list[str]) -> None:
    """The warnings for exclude patterns that matched nothing, on stderr."""
    for line in api.unmatched_lines(patterns):
        click.echo(line, err=True)
