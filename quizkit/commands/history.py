"""``quizkit history``: each metric of a run history over its runs (docs/history.md)."""

from __future__ import annotations

import click

from quizkit import api
from quizkit.commands.history_options import history_errors
from quizkit.commands.rule_options import config_errors


@click.command("history")
@click.option("--history", "location", metavar="PATH", required=True,
              help="The history: a DuckDB file or a folder of Parquet files, local or s3://.")
@click.option("--dataset", metavar="NAME",
              help="Only the runs of this dataset [default: every dataset].")
@click.option("--last", type=click.IntRange(1), metavar="N",
              help="Only the N newest runs [default: all].")
@click.option("--format", "fmt", type=click.Choice(api.HISTORY_FORMATS), default="text",
              show_default=True, help="Output format (html: one page with a chart per metric).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write to this file (atomically) instead of stdout.")
def history_command(location: str, dataset: str | None, last: int | None, fmt: str,
                    output: str | None) -> None:
    """Show each metric of a run history over its runs (`validate --history` records them).

    Exit codes (docs/cli.md): 0 shown; 2 a history that cannot be read or is not one.
    """
    with config_errors(), history_errors():
        view = api.history(location, dataset=dataset, last=last, format=fmt, output=output)
    if output is None:
        click.echo(view.text, nl=False)
