"""The limit options shared by commands that read exports: ``--max-file-size`` and friends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from quizkit import api


class SizeType(click.ParamType):
    """A size such as ``100MB`` (10⁶ bytes each), ``512MiB`` (2²⁰), or a number of bytes."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        try:
            return api.parse_size(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


SIZE = SizeType()


def limit_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the limit options to a click command: ``max_file_size``, ``max_decompressed_size``
    (bytes), ``max_depth`` and ``max_findings``, the parameters :func:`quizkit.api.validate`
    takes."""
    options = [
        click.option("--max-file-size", type=SIZE,
                     default=api.format_size(api.DEFAULT_MAX_FILE_SIZE), show_default=True,
                     help=f"Refuse inputs larger than this (e.g. 100MB; {api.SIZE_HELP})."),
        click.option("--max-decompressed-size", type=SIZE,
                     default=api.format_size(api.DEFAULT_MAX_DECOMPRESSED), show_default=True,
                     help="Stop decompressing a .gz input beyond this size (gzip bombs; "
                          f"{api.SIZE_HELP})."),
        click.option("--max-depth", type=click.IntRange(1, api.PARSER_MAX_DEPTH),
                     default=api.DEFAULT_MAX_DEPTH, show_default=True,
                     help=f"Refuse documents nested deeper (at most {api.PARSER_MAX_DEPTH}, the "
                     "parser's own limit)."),
        click.option("--max-findings", type=click.IntRange(0, api.MAX_ROWS),
                     default=api.DEFAULT_MAX_FINDINGS, show_default=True, metavar="N",
                     help="List at most N findings per file; the rest are counted by rule in "
                          "one findings-capped finding (0: no cap)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
