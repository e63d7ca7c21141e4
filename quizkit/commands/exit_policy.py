"""The exit-code policy of :mod:`quizkit.catalog.exits` on the command line: the errors every
command that reads exports may meet become one line and the same code, whichever met them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from quizkit import api


def fail_on_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--fail-on LEVEL`` of every command that reports findings (it gets ``fail_on``): the
    same levels, default and exit code 1 everywhere."""
    return click.option("--fail-on", type=click.Choice(api.SEVERITIES), default=None,
                        help="Exit 1 when there are findings of this severity or worse "
                             "[default: the config's fail-on, else error].")(fn)


def stops() -> api.StopSignals:
    """The run's stop signals (:mod:`quizkit.outputs.interrupts`)."""
    return click.get_current_context().ensure_object(api.StopSignals)


def unless_stopped() -> None:
    """A DuckDB error that came with a stop signal is DuckDB's words for the stop: the run
    ends as the stop does (its line and code), not with the error."""
    if stops().signum is not None:
        raise KeyboardInterrupt from None


def fail_load(exc: Exception, what: str) -> NoReturn:
    """End a command whose load failed (``what: message``): exit 2 when it met a limit of the
    run (a full disk, a file-size limit, the memory limit), else 3 (an input it could not
    read); a load a stop signal broke ends as the stop does."""
    unless_stopped()
    limited, message = api.load_failure(str(exc))
    api.exits.stop(f"{what}: {message}", api.exits.USAGE if limited else api.exits.INPUT)


@contextmanager
def input_errors() -> Iterator[None]:
    """A named path that does not exist, or an exclude pattern that cannot be used: exit 2
    with one line."""
    try:
        yield
    except api.MissingPath as exc:
        api.exits.stop(api.exits.no_such_path(str(exc)), api.exits.USAGE)
    except api.PatternError as exc:
        api.exits.stop(str(exc), api.exits.USAGE)


def end_with(inputs: api.InputReport) -> None:
    """Report the inputs that could not be read on stderr, and exit as the policy says."""
    for line in inputs.lines():
        click.echo(line, err=True)
    if inputs.exit_code:
        sys.exit(inputs.exit_code)
