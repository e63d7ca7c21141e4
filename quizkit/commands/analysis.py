"""Commands for analysis: ``load``, ``summary sizes|starts|overview``, ``query``, ``export``.

Exit codes follow the policy of :mod:`quizkit.catalog.exits` (docs/cli.md): 0 fine; 1
findings at or above ``--fail-on`` (``load``, as ``validate``); 2 usage or database error (a
path that does not exist, a refused or failing query); 3 an input could not be read or
parsed. Such an input is reported as ``quizkit validate`` reports it
(:mod:`quizkit.checks.input_report`); the rest is loaded and the exit code is 3, unless the
``--baseline`` holds the input's finding.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from quizkit import api
from quizkit.commands.duckdb_options import duckdb_options
from quizkit.commands.exit_policy import (
    end_with,
    fail_load,
    fail_on_option,
    stops,
    unless_stopped,
)
from quizkit.commands.progress_option import progress_option
from quizkit.commands.rule_options import baseline_option, config_errors, config_option
from quizkit.commands.wait_option import SECONDS, scheduler_address, wait_option
from quizkit.commands.walk_options import walk_options, warn_unmatched


def _warn_unknown(result: api.LoadResult) -> None:
    if result.unknown_documents:
        click.echo(f"quizkit: warning: {api.plural(result.unknown_documents, 'document')} not "
                   "loaded: unknown kind, or a line that is not JSON (see the files and "
                   "findings tables)", err=True)


@contextmanager
def _errors(load_failed: str = "load failed") -> Iterator[None]:
    """The analysis errors → one line and the exit code of the contract (a failed load says
    itself whether the database or dataset changed, :mod:`quizkit.analysis.aftermath`)."""
    try:
        try:
            with config_errors():
                yield
        except (api.LoadError, api.DatabaseError, api.QueryError):
            unless_stopped()
            raise
    except api.InputError as exc:  # a path that does not exist, stdin
        api.exits.stop(str(exc), api.exits.USAGE)
    except api.UnreadablePart as exc:  # a FIFO or device among a dataset's parts
        api.exits.stop(str(exc), api.exits.INPUT)
    except api.PatternError as exc:
        api.exits.stop(str(exc), api.exits.USAGE)
    except api.LoadError as exc:
        fail_load(exc, load_failed)
    except (api.DatabaseError, api.QueryError, api.ClusterError, api.WaitTimeout) as exc:
        sys.stdout.flush()  # the rows written before a query failed, then the error
        api.exits.stop(str(exc), api.exits.USAGE)


def _warn_loaded(result: api.LoadResult) -> None:
    warn_unmatched(result.unmatched)
    _warn_unknown(result)


def _end(loaded: api.LoadResult | None) -> None:
    """The inputs that could not be read, and the exit code (files read straight)."""
    if loaded is not None and loaded.inputs is not None:
        end_with(loaded.inputs)


def _print(answer: api.Answer) -> None:
    """The answer on stdout, after the warnings about what was loaded; then the inputs that
    could not be read, and the exit code."""
    if answer.loaded is not None:
        _warn_loaded(answer.loaded)
    click.echo(answer.text, nl=False)
    _end(answer.loaded)


def _source_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = duckdb_options(config_option(baseline_option(fn)))
    fn = click.option("--parquet", type=click.Path(file_okay=False),
                      help="Read this Parquet dataset (from `quizkit load --parquet`) "
                           "instead of files.")(fn)
    fn = click.option("--db", type=click.Path(dir_okay=False),
                      help="Read this database (from `quizkit load`) instead of files.")(fn)
    fn = click.argument("paths", nargs=-1, type=click.Path())(fn)
    return fn


def _format_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--format", "fmt", type=click.Choice(api.TABLE_FORMATS), default="table",
                        show_default=True, help="Output format.")(fn)


@click.command("load")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--db", type=click.Path(dir_okay=False),
              help="DuckDB database file to load into (created if missing).")
@click.option("--parquet", type=click.Path(file_okay=False),
              help="Parquet dataset directory to load into instead (one folder per table; "
                   "created if missing; docs/scaling.md).")
@click.option("--findings/--no-findings", default=True, show_default=True,
              help="Also validate the files and load the findings (slower), with the "
                   "configuration applied as by `quizkit validate`.")
@fail_on_option
@duckdb_options
@click.option("--scheduler", envvar="DASK_SCHEDULER_ADDRESS", metavar="ADDRESS",
              help="Run the per-file work on this Dask cluster (tcp://host:8786 or tls://; "
                   "default "
                   "$DASK_SCHEDULER_ADDRESS, used with --parquet only); needs --parquet.")
@wait_option
@click.option("--timings", is_flag=True, help="Print the time of each step to stderr.")
@click.option("-q", "--quiet", is_flag=True,
              help="Print nothing but warnings and errors (no progress display).")
@progress_option
@walk_options
@config_option
@baseline_option
def load_command(paths: tuple[str, ...], db: str | None, parquet: str | None, findings: bool,
                 fail_on: str | None, memory_limit: str, threads: int | None,
                 scheduler: str | None, timings: bool,
                 quiet: bool, progress: bool | None, exclude: tuple[str, ...],
                 include_hidden: bool, config_file: Path | None,
                 baseline_file: Path | None) -> None:
    """Load exports of any kind (files, directories, s3:// URLs; .json, .jsonl, .ndjson, .gz)
    into DuckDB or a Parquet dataset.

    Memory stays bounded whatever the size of the dump (--memory-limit). Loading into --db
    runs in one transaction: on failure or interruption the database is left as it was.
    Loading the same files again replaces their rows. The tables are described in
    docs/tables.md, the dataset and clusters in docs/scaling.md.
    """
    if scheduler and not parquet and click.get_current_context().get_parameter_source(
            "scheduler") == click.core.ParameterSource.ENVIRONMENT:
        scheduler = None  # DASK_SCHEDULER_ADDRESS is for the loads a cluster can do
    ctx = click.get_current_context()
    scheduler = scheduler_address(ctx, next(p for p in ctx.command.params
                                            if p.name == "scheduler"), scheduler)

    def show_step(step: str, seconds: float) -> None:
        progress_line.clear()  # drawn again by the next batch
        click.echo(f"  {step:<28} {seconds:8.3f} s", err=True)

    committed = False

    def on_commit() -> None:
        nonlocal committed
        committed = True

    stops().outcome = lambda: (" after the load was committed" if committed
                                else ": nothing loaded")
    with _errors(), \
            api.ProgressLine.for_run(quiet=quiet, force=progress) as progress_line:
        def on_batch(batch: list[Any], total_files: int, total_bytes: int) -> None:
            progress_line.set_totals(total_files, total_bytes)
            progress_line.advance_many((item.name, item.size) for item in batch)

        result = api.load(paths, db, parquet=parquet, findings=findings,
                          memory_limit=memory_limit, threads=threads, scheduler=scheduler,
                          timings=show_step if timings else None, on_batch=on_batch,
                          config=config_file, exclude=exclude, include_hidden=include_hidden,
                          baseline=baseline_file, fail_on=fail_on, on_commit=on_commit)
    _warn_loaded(result)
    inputs = result.inputs or api.InputReport(result.files, result.documents)
    for line in inputs.lines()[:len(inputs.findings)]:
        click.echo(line, err=True)
    if not quiet:
        rows = ", ".join(f"{api.thousands(n)} {t}" for t, n in result.rows.items() if t != "files")
        click.echo(f"Loaded {api.files_line(inputs.files, inputs.documents, inputs.unreadable)} "
                   f"into {db or parquet}: "
                   f"{rows}" + ("" if result.findings is None
                                else f", {api.plural(result.findings, 'finding')}") + ".")
    sys.exit(inputs.exit_code)


@click.group("summary")
def summary() -> None:
    """Ready summaries of package sizes, starts and games, and an overview.

    Read files straight (loaded in memory) or a database from `quizkit load --db`.
    """


def _run_summary(name: str, paths: tuple[str, ...], db: str | None, parquet: str | None,
                 fmt: str, section: str | None, output: str | None, **options: Any) -> None:
    with _errors():
        answer = api.summary(name, paths, db=db, parquet=parquet, format=fmt, section=section,
                             output=output, **_renamed(options))
    if output is not None:  # written; only the warnings and the exit code are left
        answer = replace(answer, text="")
    _print(answer)


def _renamed(options: dict[str, Any]) -> dict[str, Any]:
    """The CLI's ``config_file`` and ``baseline_file`` by the API's names."""
    options = dict(options)
    options["config"] = options.pop("config_file", None)
    options["baseline"] = options.pop("baseline_file", None)
    return options


def _summary_options(grouped: bool, every: bool = False
                     ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option("--section", help="Print only this section (e.g. for one clean CSV).")(
            fn)
        fn = click.option("-o", "--output", type=click.Path(dir_okay=False),
                          help="Write to this file (atomically) instead of stdout.")(fn)
        fn = _every_option(_top_option(fn)) if every else _top_option(fn)
        if grouped:
            fn = _by_option(fn)
        return click.option("--format", "fmt", type=click.Choice(api.SUMMARY_FORMATS),
                            default="table", show_default=True,
                            help="Output format (html: one page with charts).")(
            _source_options(fn))
    return wrap


def _top_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--top", type=click.IntRange(0, api.MAX_ROWS), default=10,
                        show_default=True,
                        help="Rows of every ranked list; 0 for all.")(fn)


def _by_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--by", "by", multiple=True, type=click.Choice(api.GROUP_NAMES),
                        help="Groupings to show (repeatable; default: all four).")(fn)


def _every_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--every", type=click.Choice(api.EVERY), default="month",
                        show_default=True, help="Period of games over time.")(fn)


@summary.command("sizes")
@_summary_options(grouped=True)
def sizes_command(paths: tuple[str, ...], db: str | None, parquet: str | None, fmt: str,
                  top: int, by: tuple[str, ...], section: str | None,
                  output: str | None,
                  config_file: Path | None, baseline_file: Path | None, memory_limit: str,
                  threads: int | None) -> None:
    """Package sizes (meta.size): distribution, histogram, largest, media counts, groups."""
    _run_summary("sizes", paths, db, parquet, fmt, section, output, top=top, by=by,
                 config_file=config_file, baseline_file=baseline_file,
                 memory_limit=memory_limit, threads=threads)


@summary.command("starts")
@_summary_options(grouped=True, every=True)
def starts_command(paths: tuple[str, ...], db: str | None, parquet: str | None, fmt: str,
                   top: int, every: str, by: tuple[str, ...], section: str | None,
                   output: str | None,
                   config_file: Path | None, baseline_file: Path | None, memory_limit: str,
                   threads: int | None) -> None:
    """Starts (meta.starts) and games: totals, top, groups, games per package and version,
    games over time."""
    _run_summary("starts", paths, db, parquet, fmt, section, output, top=top, by=by,
                 every=every,
                 config_file=config_file, baseline_file=baseline_file,
                 memory_limit=memory_limit, threads=threads)


@summary.command("overview")
@_summary_options(grouped=False)
def overview_command(paths: tuple[str, ...], db: str | None, parquet: str | None, fmt: str,
                     top: int, section: str | None, output: str | None,
                     config_file: Path | None, baseline_file: Path | None,
                     memory_limit: str, threads: int | None) -> None:
    """Counts of every table, shares of published and deleted versions, files, findings."""
    _run_summary("overview", paths, db, parquet, fmt, section, output, top=top,
                 config_file=config_file, baseline_file=baseline_file,
                 memory_limit=memory_limit, threads=threads)


@summary.command("all")
@_summary_options(grouped=True, every=True)
def all_command(paths: tuple[str, ...], db: str | None, parquet: str | None, fmt: str,
                top: int, every: str, by: tuple[str, ...], section: str | None,
                output: str | None,
                config_file: Path | None, baseline_file: Path | None, memory_limit: str,
                threads: int | None) -> None:
    """Every summary (overview, sizes, starts) at once; sections are named summary.section."""
    _run_summary("all", paths, db, parquet, fmt, section, output, top=top, by=by, every=every,
                 config_file=config_file, baseline_file=baseline_file,
                 memory_limit=memory_limit, threads=threads)


@summary.command("charts")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Directory for the charts (created if missing).")
@_every_option
@_by_option
@_top_option
@_source_options
def charts_command(paths: tuple[str, ...], db: str | None, parquet: str | None, top: int,
                   by: tuple[str, ...], every: str, out: str, config_file: Path | None,
                   baseline_file: Path | None, memory_limit: str, threads: int | None) -> None:
    """Write every chart of the summaries as SVG and PNG files (summary.section.svg/.png)."""
    with _errors():
        done = api.charts(out, paths, db=db, parquet=parquet, top=top, by=by, every=every,
                          config=config_file, baseline=baseline_file,
                          memory_limit=memory_limit, threads=threads)
    text = "".join(f"{path}\n" for path in done.written)
    for why in done.missing:
        click.echo(f"quizkit: no chart for {why}", err=True)
    _print(api.Answer([], text, done.loaded))


@click.command("query")
@click.argument("sql")
@_source_options
@_format_option
@click.option("--limit", type=click.IntRange(0, api.MAX_ROWS), default=None,
              help="Write at most this many rows.")
@click.option("--timeout", type=SECONDS, default=None, metavar="SECONDS",
              help=f"Stop the query after this long, at most {api.MAX_SECONDS:g} (exit 2).")
def query_command(sql: str, paths: tuple[str, ...], db: str | None, parquet: str | None,
                  fmt: str, limit: int | None, timeout: float | None,
                  config_file: Path | None, baseline_file: Path | None, memory_limit: str,
                  threads: int | None) -> None:
    """Run one reading SQL statement (SELECT) over the tables of docs/tables.md.

    A database file is opened read-only; statements that write are refused (exit 2). Reading
    files straight, the findings table is filled only when the SQL mentions it, with the
    configuration applied as by `quizkit validate`. Rows are written as they come, in
    batches, so a result of any size takes little memory.
    """
    with _errors():
        answer = api.query(sql, paths, db=db, parquet=parquet, format=fmt, limit=limit,
                           timeout=timeout, config=config_file, write=sys.stdout.write,
                           loaded=_warn_loaded, baseline=baseline_file,
                           memory_limit=memory_limit, threads=threads)
    sys.stdout.flush()
    _end(answer.loaded)


@click.command("export")
@click.option("--db", required=True, type=click.Path(dir_okay=False),
              help="Database from `quizkit load`.")
@click.option("--parquet", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for the Parquet files (created if missing).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def export_command(db: str, out_dir: str, quiet: bool) -> None:
    """Write one Parquet file per quizkit table of the database (docs/tables.md).

    Other tables in the database are left out (named in a warning).
    """
    with _errors():
        exported = api.export(db, out_dir)
    if exported.foreign:
        click.echo(f"quizkit: warning: not exported, not quizkit's tables: "
                   f"{', '.join(map(ascii, exported.foreign))}", err=True)
    if not quiet:
        for _table, path, rows in exported.written:
            click.echo(f"{path}  {rows} rows")


COMMANDS = (load_command, summary, query_command, export_command)
