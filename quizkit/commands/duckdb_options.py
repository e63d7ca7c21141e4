"""``--memory-limit`` and ``--threads``, shared by the commands that load exports into DuckDB
(load, check, diff, query, summary): the same names, defaults, bounds and help everywhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from quizkit import api


def duckdb_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``fn`` ``memory_limit`` and ``threads``."""
    fn = click.option("--threads", type=click.IntRange(1, api.MAX_THREADS), default=None,
                      help=f"DuckDB threads, at most {api.MAX_THREADS} "
                           "[default: the number of cores].")(fn)
    return click.option("--memory-limit", metavar="SIZE", default=api.DEFAULT_MEMORY_LIMIT,
                        show_default=True,
                        help="DuckDB's memory limit (e.g. 512MB, 2GiB; MB = 10^6 bytes, "
                             "MiB = 2^20); beyond it DuckDB spills to a temporary "
                             "directory.")(fn)
