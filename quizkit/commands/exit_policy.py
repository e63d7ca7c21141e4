"""The exit-code policy of :mod:`quizkit.catalog.exits` on the command line: the errors every
command that reads exports may meet become one line and the same code, whichever met them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from quizkit.catalog import exits
from quizkit.checks.input_report import InputReport
from quizkit.inputs.sources import MissingPath
from quizkit.inputs.walk import PatternError


@contextmanager
def input_errors() -> Iterator[None]:
    """A named path that does not exist, or an exclude pattern that cannot be used: exit 2
    with one line."""
    try:
        yield
    except MissingPath as exc:
        exits.stop(exits.no_such_path(str(exc)), exits.USAGE)
    except PatternError as exc:
        exits.stop(str(exc), exits.USAGE)


def end_with(inputs: InputReport) -> None:
    """Report the inputs that could not be read on stderr, and exit as the policy says."""
    for line in inputs.lines():
        click.echo(line, err=True)
    if inputs.exit_code:
        sys.exit(inputs.exit_code)
