"""``--wait-timeout SECONDS``, shared by the commands that wait for peers (a Dask cluster,
object storage)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from quizkit import api


class Seconds(click.ParamType):
    """A number of seconds above 0, finite, at most a day (``inf`` and ``nan`` are not)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        if isinstance(value, float):
            return value
        try:
            return api.parse_seconds(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


SECONDS = Seconds()


def _set(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is None:
        return
    try:
        seconds = api.parse_seconds(value)
    except ValueError as exc:
        if ctx.get_parameter_source("wait_timeout") == click.core.ParameterSource.ENVIRONMENT:
            raise click.UsageError(f"{api.WAIT_ENV}: {exc}", ctx=ctx) from None
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    os.environ[api.WAIT_ENV] = repr(seconds)  # read by every layer that waits


def wait_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--wait-timeout`` (also ``$QUIZKIT_WAIT_TIMEOUT``); the command gets no argument."""
    return click.option(
        "--wait-timeout", envvar=api.WAIT_ENV, metavar="SECONDS", expose_value=False,
        callback=_set, is_eager=True,
        help=f"Give up waiting for a peer (the Dask scheduler, its first worker, object "
             f"storage) after this many seconds: exit 2 [default: {api.WAIT_DEFAULT:g}; "
             f"${api.WAIT_ENV}].")(fn)


def scheduler_address(ctx: click.Context, param: click.Parameter,
                      value: str | None) -> str | None:
    """A ``--scheduler`` callback: the address checked (``$DASK_SCHEDULER_ADDRESS`` too)."""
    if value is None:
        return None
    try:
        api.parse_scheduler(value)
    except ValueError as exc:
        source = ctx.get_parameter_source(param.name or "scheduler")
        where = "DASK_SCHEDULER_ADDRESS" if source == click.core.ParameterSource.ENVIRONMENT \
            else "--scheduler"
        raise click.UsageError(f"{where} {api.printable(value)!r}: {exc}", ctx=ctx) from None
    return value
