"""The walk options shared by commands that read exports: ``--exclude``, ``--include-hidden``.

They reach the command as the parameters ``exclude`` and ``include_hidden``, the names the
matching functions of :mod:`quizkit.api` take; :func:`warn_unmatched` is the one warning for a
pattern that matched nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from quizkit.walk import Inputs


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


def warn_unmatched(inputs: Inputs) -> None:
    """One warning on stderr per exclude pattern that matched nothing (the exit code stays)."""
    for pattern in inputs.unmatched:
        click.echo(f"quizkit: warning: exclude pattern {pattern!r} matched nothing", err=True)
