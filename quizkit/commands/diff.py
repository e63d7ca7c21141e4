"""``quizkit diff``: what changed between two exports."""

from __future__ import annotations

import sys

import click

from quizkit import api
from quizkit.commands.duckdb_options import duckdb_options
from quizkit.commands.exit_policy import fail_load, input_errors
from quizkit.commands.walk_options import walk_options


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(api.DIFF_FORMATS), default="text",
              show_default=True,
              help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the report to this file instead of stdout.")
@click.option("--report", "reports", multiple=True, metavar="FORMAT:PATH",
              help="Also write a report in FORMAT to PATH (repeatable; PATH - is stdout).")
@click.option("--color", type=click.Choice(api.COLOR_CHOICES), default="auto", show_default=True,
              help="Colour the text report: auto colours on a terminal unless NO_COLOR is set.")
@click.option("--fail-on", metavar="KINDS",
              help=f"Exit 1 only for these kinds of change (comma-separated: "
                   f"{','.join(api.CHANGES)}) [default: all].")
@click.option("--fail-if", multiple=True, metavar="EXPR",
              help="Exit 1 only when this threshold holds: TABLE.CHANGE OP NUMBER[%], e.g. "
                   "'packages.removed > 1%' (a percent of the table's old records; "
                   "repeatable: any one).")
@duckdb_options
@click.option("-j", "--jobs", type=click.IntRange(1, api.MAX_JOBS), default=None,
              help="Processes reading the exports [default: the number of cores].")
@click.option("--scheduler", envvar="DASK_SCHEDULER_ADDRESS", metavar="ADDRESS",
              help="Read both exports on this Dask cluster (tcp://host:8786; default "
                   "$DASK_SCHEDULER_ADDRESS); the workers read the inputs themselves.")
@walk_options
def diff_command(old: str, new: str, fmt: str, output: str | None, reports: tuple[str, ...],
                 color: str, fail_on: str | None, fail_if: tuple[str, ...],
                 memory_limit: str | None, threads: int | None, jobs: int | None,
                 scheduler: str | None, exclude: tuple[str, ...],
                 include_hidden: bool) -> None:
    """Compare two exports OLD and NEW (files, directories, s3:// URLs, a .duckdb file from
    `quizkit load` or a Parquet dataset folder), record by record.

    Exit codes (as diff(1)): 0 no difference; 1 differences (see --fail-on, --fail-if);
    2 usage error; 3 an input could not be read (the rest is still compared and reported).
    """
    try:
        with input_errors():
            result = api.diff(old, new, format=fmt, output=output, reports=reports,
                              color=color, fail_on=fail_on, fail_if=fail_if,
                              memory_limit=memory_limit, threads=threads, jobs=jobs,
                              scheduler=scheduler, exclude=exclude,
                              include_hidden=include_hidden,
                              notes=lambda line: click.echo(line, err=True))
    except (api.ConfigError, api.ReportSpecError) as exc:
        raise click.UsageError(str(exc)) from None
    except api.ClusterError as exc:
        api.exits.stop(str(exc), api.exits.USAGE)
    except api.DatabaseError as exc:  # a side that cannot be read
        api.exits.stop(str(exc), api.exits.INPUT)
    except api.LoadError as exc:
        fail_load(exc, "cannot load a side")
    sys.exit(result.exit_code)
