"""The limit options shared by commands that read exports: ``--max-file-size`` and friends."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from quizkit.inputs.bounds import MAX_ROWS
from quizkit.inputs.limits import (
    DEFAULT_MAX_DECOMPRESSED,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_FILE_SIZE,
    DEFAULT_MAX_FINDINGS,
    PARSER_MAX_DEPTH,
    SIZE_HELP,
    Limits,
    format_size,
    parse_size,
)


class SizeType(click.ParamType):
    """A size such as ``100MB`` (10⁶ bytes each), ``512MiB`` (2²⁰), or a number of bytes."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        try:
            return parse_size(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


SIZE = SizeType()


def limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the limit options to a click command; it receives them as one ``limits`` argument."""

    @functools.wraps(command)
    def wrapper(*args: Any, max_file_size: int, max_decompressed_size: int, max_depth: int,
                max_findings: int, **kwargs: Any) -> Any:
        limits = Limits(max_file_size=max_file_size, max_decompressed=max_decompressed_size,
                        max_depth=max_depth, max_findings=max_findings)
        return command(*args, limits=limits, **kwargs)

    options = [
        click.option("--max-file-size", type=SIZE, default=format_size(DEFAULT_MAX_FILE_SIZE),
                     show_default=True,
                     help=f"Refuse inputs larger than this (e.g. 100MB; {SIZE_HELP})."),
        click.option("--max-decompressed-size", type=SIZE,
                     default=format_size(DEFAULT_MAX_DECOMPRESSED), show_default=True,
                     help="Stop decompressing a .gz input beyond this size (gzip bombs; "
                          f"{SIZE_HELP})."),
        click.option("--max-depth", type=click.IntRange(1, PARSER_MAX_DEPTH),
                     default=DEFAULT_MAX_DEPTH, show_default=True,
                     help=f"Refuse documents nested deeper (at most {PARSER_MAX_DEPTH}, the "
                     "parser's own limit)."),
        click.option("--max-findings", type=click.IntRange(0, MAX_ROWS),
                     default=DEFAULT_MAX_FINDINGS, show_default=True, metavar="N",
                     help="List at most N findings per file; the rest are counted by rule in "
                          "one findings-capped finding (0: no cap)."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
