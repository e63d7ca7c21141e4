"""The configuration and baseline options of ``validate`` (and ``--config`` of ``load``), and
the one place where configuration errors become exit code 2."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from quizkit import api


def config_option(fn: Callable) -> Callable:
    """Add ``--config FILE`` and ``--isolated`` to a command; it gets ``config_file``: the
    file, ``None`` to look for one, or ``False`` for none (``--isolated``)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, config_file: Path | None, isolated: bool, **kwargs: Any) -> Any:
        if isolated and config_file is not None:
            raise click.UsageError("--isolated uses no config file: leave out --config")
        return fn(*args, config_file=False if isolated else config_file, **kwargs)

    wrapper = click.option(
        "--isolated", is_flag=True,
        help="Use no config file: do not look for quizkit.toml or pyproject.toml.")(wrapper)
    return click.option(
        "--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
        help="Config file (quizkit.toml, or pyproject.toml with [tool.quizkit]) instead of "
             "the one found from the current directory upward (up to the repository root or "
             "the home directory; never one owned by another user).")(wrapper)


def baseline_option(fn: Callable) -> Callable:
    """Add ``--baseline FILE`` to a command that reads exports (passed as ``baseline_file``):
    the unreadable inputs whose findings it holds do not make exit 3."""
    return click.option(
        "--baseline", "baseline_file", type=click.Path(dir_okay=False, path_type=Path),
        help="A baseline from `quizkit validate --write-baseline`: an input that cannot be "
             "read or parsed and whose finding it holds does not make exit 3.")(fn)


def rule_options(fn: Callable) -> Callable:
    """Add ``--config``, the rule options and the baseline options to a command."""
    options = [
        config_option,
        click.option("--select", multiple=True, metavar="RULES",
                     help="Only these rules (codes, names or code prefixes; comma-separated, "
                          "repeatable). Replaces the config's select."),
        click.option("--ignore", multiple=True, metavar="RULES",
                     help="Leave out these rules. Replaces the config's ignore."),
        click.option("--severity", "severity", multiple=True, metavar="RULE=LEVEL",
                     help="Re-grade a rule: error, warning or info (repeatable)."),
        click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False,
                                                                    path_type=Path),
                     help="Report and fail only on findings not in this baseline."),
        click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False,
                                                                           path_type=Path),
                     help="Record today's findings in this baseline file (exit 0 unless an "
                          "input could not be read)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


@contextmanager
def config_errors() -> Iterator[None]:
    """Configuration problems (:class:`~quizkit.api.ConfigError`) and bad report specs: exit 2."""
    try:
        yield
    except api.ReportSpecError as exc:
        raise click.UsageError(str(exc)) from None
    except api.ConfigError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(api.exits.USAGE)
