"""The exit-code policy of :mod:`quizkit.catalog.exits` on the command line: the errors every
command that reads exports may meet become one line and the same code, whichever met them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from quizkit import api


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
