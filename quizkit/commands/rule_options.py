"""The configuration and baseline options of ``validate`` (and ``--config`` of ``load``), and
the one place where configuration errors become exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from quizkit.reporters import ReportSpecError
from quizkit.settings.config import ConfigError


def config_option(fn: Callable) -> Callable:
    """Add ``--config FILE`` to a command (passed as ``config_file``)."""
    return click.option(
        "--config", "config_file", type=click.Path(dir_okay=False, path_type=Path),
        help="Config file (quizkit.toml, or pyproject.toml with [tool.quizkit]) instead of "
             "the one found from the current directory upward.")(fn)


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
    """Configuration problems (:class:`ConfigError`) and bad report specs become exit code 2."""
    try:
        yield
    except ReportSpecError as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
