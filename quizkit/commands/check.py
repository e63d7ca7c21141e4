"""``quizkit check``: the document rules of ``validate`` and the team's own checks
(``[[checks]]`` in the configuration, docs/checks.md) in one run and one report."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import click

from quizkit import api
from quizkit.commands.duckdb_options import duckdb_options
from quizkit.commands.exit_policy import fail_load
from quizkit.commands.validate import run_command, validate_options


@contextmanager
def _table_errors() -> Iterator[None]:
    """A database or dataset that cannot be used is exit 2; exports that cannot be loaded
    are exit 3, or 2 when the load met a limit of the run, as for ``load``."""
    try:
        yield
    except api.DatabaseError as exc:
        api.exits.stop(str(exc), api.exits.USAGE)
    except api.UnreadablePart as exc:
        api.exits.stop(f"cannot load the tables to check: {exc}", api.exits.INPUT)
    except api.LoadError as exc:
        fail_load(exc, "cannot load the tables to check")


@click.command("check")
@click.argument("paths", nargs=-1)
@click.option("--db", type=click.Path(dir_okay=False),
              help="Run the team's checks over this database (from `quizkit load`) instead "
                   "of files (no document rules then).")
@click.option("--parquet", type=click.Path(file_okay=False),
              help="Run the team's checks over this Parquet dataset (from `quizkit load "
                   "--parquet`) instead of files.")
@click.option("--store-failures", type=click.Path(file_okay=False), metavar="DIR",
              help="Write each sql check's failing rows to DIR/CODE.parquet (atomically).")
@click.option("--failures-limit", type=click.IntRange(0, None), default=api.FAILURES_LIMIT,
              show_default=True,
              help="Rows written per check by --store-failures (the count of all is printed).")
@duckdb_options
@validate_options
def check(paths: tuple[str, ...], db: str | None, parquet: str | None,
          store_failures: str | None, failures_limit: int, memory_limit: str,
          threads: int | None, **options: Any) -> None:
    """Check exports with the document rules and the configuration's own checks
    ([[checks]]: SQL over the tables of docs/tables.md, metrics with thresholds).

    Exit codes as for validate (docs/cli.md); a check whose SQL is refused or fails is 2,
    naming the check.
    """
    with _table_errors():
        run_command(partial(api.check, db=db, parquet=parquet, store_failures=store_failures,
                            failures_limit=failures_limit, memory_limit=memory_limit,
                            threads=threads), paths, **options)
