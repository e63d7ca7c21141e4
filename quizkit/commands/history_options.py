"""``--history PATH`` and ``--dataset NAME``: the run history of the commands that check
exports (docs/history.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from quizkit import api


def history_options(fn: Callable) -> Callable:
    """Add ``--history`` and ``--dataset`` to a command; it gets ``history`` and
    ``dataset`` (``None`` when not given)."""
    fn = click.option(
        "--dataset", metavar="NAME",
        help="The name the run is kept under in the --history [default: the inputs' common "
             "path].")(fn)
    return click.option(
        "--history", metavar="PATH",
        help="Record the run (exit code, files, documents) and its metrics (findings per "
             "rule) in this history: a DuckDB file (.duckdb) or a folder of Parquet files, "
             "local or s3:// (docs/history.md).")(fn)


@contextmanager
def history_errors() -> Iterator[None]:
    """A history that cannot be used: exit 2 with one line."""
    try:
        yield
    except api.HistoryError as exc:
        api.exits.stop(str(exc), api.exits.USAGE)
