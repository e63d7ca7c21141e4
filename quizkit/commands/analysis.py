"""Commands for analysis: ``load``, ``summary sizes|starts|overview``, ``query``, ``export``.

Exit codes follow the contract in docs/architecture.md: 0 fine; 2 usage or database error
(including a refused or failing query); 3 an input could not be read or parsed. Files that
cannot be read are skipped with a warning; the rest is loaded and the exit code is 3.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click
import duckdb

from quizkit.analysis import summaries
from quizkit.analysis.connect import DatabaseError, connect, one_line
from quizkit.analysis.export import export_parquet, foreign_tables
from quizkit.analysis.files import InputError, Skipped
from quizkit.analysis.load import LoadError, LoadResult, load, load_paths
from quizkit.analysis.output import FORMATS, render, write_rows
from quizkit.analysis.query import QueryError, lock_down, stream
from quizkit.commands.walk_options import walk_options, warn_unmatched
from quizkit.numbers import plural, thousands
from quizkit.output import refuse_inputs
from quizkit.walk import PatternError

EXIT_USAGE = 2
EXIT_INPUT = 3


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"quizkit: error: {message}", err=True)
    sys.exit(code)


def _warn_skipped(skipped: list[Skipped]) -> None:
    for s in skipped:
        click.echo(f"quizkit: warning: skipped {s.path}: {s.reason}", err=True)


def _warn_unknown(result: LoadResult) -> None:
    if result.unknown_documents:
        click.echo(f"quizkit: warning: {result.unknown_documents} document(s) of unknown kind or "
                   "unparsable lines were not loaded (see the files and findings tables)",
                   err=True)


def _warn_walk(result: LoadResult) -> None:
    """The warnings of a load: skipped files, documents of unknown kind, unused excludes."""
    _warn_skipped(result.skipped)
    _warn_unknown(result)
    warn_unmatched(result.unmatched)


@contextmanager
def _source(paths: tuple[str, ...], db: str | None, *, findings: bool = False,
            exclude: tuple[str, ...] = (), include_hidden: bool = False,
            ) -> Iterator[tuple[duckdb.DuckDBPyConnection, bool]]:
    """A connection to ``--db`` (read-only) or to memory loaded from ``paths``.

    Yields (connection, whether some input file was skipped).
    """
    if paths and db:
        raise click.UsageError("give export files or --db FILE, not both")
    if not paths and not db:
        raise click.UsageError("give export files to read, or --db FILE")
    skipped = False
    try:
        if db:
            con = connect(db, read_only=True)
        else:
            con = connect(None)
            result = load(con, paths, findings=findings, exclude=exclude,
                          include_hidden=include_hidden)
            _warn_walk(result)
            skipped = bool(result.skipped)
    except InputError as exc:
        _fail(str(exc), EXIT_INPUT)
    except PatternError as exc:
        _fail(str(exc), EXIT_USAGE)
    except LoadError as exc:
        _fail(f"could not load the files: {exc}", EXIT_INPUT)
    except DatabaseError as exc:
        _fail(str(exc), EXIT_USAGE)
    try:
        yield con, skipped
    finally:
        con.close()


def _walk(exclude: tuple[str, ...], include_hidden: bool) -> dict[str, Any]:
    """The walk options of a command reading files, as keyword arguments of :func:`_source`."""
    return {"exclude": exclude, "include_hidden": include_hidden}


def _source_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = walk_options(fn)
    fn = click.option("--db", type=click.Path(dir_okay=False),
                      help="Read this database (from `quizkit load`) instead of files.")(fn)
    fn = click.argument("paths", nargs=-1, type=click.Path())(fn)
    return fn


def _format_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(fn)


@click.command("load")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--db", required=True, type=click.Path(dir_okay=False),
              help="DuckDB database file to load into (created if missing).")
@click.option("--findings/--no-findings", default=True, show_default=True,
              help="Also validate the files and load the findings (slower).")
@click.option("--timings", is_flag=True, help="Print the time of each step to stderr.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but warnings and errors.")
@walk_options
def load_command(paths: tuple[str, ...], db: str, findings: bool, timings: bool,
                 quiet: bool, exclude: tuple[str, ...], include_hidden: bool) -> None:
    """Load exports of any kind (files, directories; .json, .jsonl, .ndjson, .gz) into DuckDB.

    Loading runs in one transaction: on failure the database is left as it was. Loading the
    same files again replaces their rows. The tables are described in docs/tables.md.
    """
    progress = None
    if timings:
        def progress(step: str, seconds: float) -> None:
            click.echo(f"  {step:<28} {seconds:8.3f} s", err=True)
    refuse_inputs([db], paths)
    try:
        result = load_paths(db, paths, findings=findings, progress=progress, exclude=exclude,
                            include_hidden=include_hidden)
    except InputError as exc:
        _fail(str(exc), EXIT_INPUT)
    except PatternError as exc:
        _fail(str(exc), EXIT_USAGE)
    except LoadError as exc:
        _fail(f"load failed, the database is unchanged: {exc}", EXIT_INPUT)
    except DatabaseError as exc:
        _fail(str(exc), EXIT_USAGE)
    _warn_walk(result)
    if not quiet:
        rows = ", ".join(f"{thousands(n)} {t}" for t, n in result.rows.items() if t != "files")
        click.echo(f"Loaded {plural(result.files, 'file')} "
                   f"({plural(result.documents, 'document')}) into {db}: "
                   f"{rows}" + ("" if result.findings is None
                                else f", {plural(result.findings, 'finding')}") + ".")
    if result.skipped:
        sys.exit(EXIT_INPUT)


@click.group("summary")
def summary() -> None:
    """Ready summaries of package sizes, starts and games, and an overview.

    Read files straight (loaded in memory) or a database from `quizkit load --db`.
    """


def _run_summary(name: str, paths: tuple[str, ...], db: str | None, fmt: str,
                 section: str | None, walk: dict[str, Any], **options: Any) -> None:
    with _source(paths, db, **walk) as (con, skipped):
        try:
            sections = summaries.SUMMARIES[name](con, **options)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        except duckdb.Error as exc:
            _fail(f"summary failed (is this a quizkit database?): {one_line(exc)}", EXIT_USAGE)
    if section is not None:
        chosen = [s for s in sections if s.name == section]
        if not chosen:
            names = ", ".join(s.name for s in sections)
            raise click.UsageError(f"no section {section!r} (sections: {names})")
        sections = chosen
    click.echo(render(sections, fmt, titles=section is None), nl=False)
    if skipped:
        sys.exit(EXIT_INPUT)


def _summary_options(grouped: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option("--section", help="Print only this section (e.g. for one clean CSV).")(
            fn)
        fn = click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
                          help="Rows of every ranked list; 0 for all.")(fn)
        if grouped:
            fn = click.option("--by", "by", multiple=True,
                              type=click.Choice(summaries.GROUP_NAMES),
                              help="Groupings to show (repeatable; default: all four).")(fn)
        return _format_option(_source_options(fn))
    return wrap


@summary.command("sizes")
@_summary_options(grouped=True)
def sizes_command(paths: tuple[str, ...], db: str | None, fmt: str, top: int,
                  by: tuple[str, ...], section: str | None, exclude: tuple[str, ...],
                  include_hidden: bool) -> None:
    """Package sizes (meta.size): distribution, largest, media counts, groups."""
    _run_summary("sizes", paths, db, fmt, section, _walk(exclude, include_hidden), top=top,
                 by=by or summaries.GROUP_NAMES)


@summary.command("starts")
@_summary_options(grouped=True)
def starts_command(paths: tuple[str, ...], db: str | None, fmt: str, top: int,
                   by: tuple[str, ...], section: str | None, exclude: tuple[str, ...],
                   include_hidden: bool) -> None:
    """Starts (meta.starts) and games: totals, top, groups, games per package and version."""
    _run_summary("starts", paths, db, fmt, section, _walk(exclude, include_hidden), top=top,
                 by=by or summaries.GROUP_NAMES)


@summary.command("overview")
@_summary_options(grouped=False)
def overview_command(paths: tuple[str, ...], db: str | None, fmt: str, top: int,
                     section: str | None, exclude: tuple[str, ...],
                     include_hidden: bool) -> None:
    """Counts of every table, shares of published and deleted versions, files, findings."""
    _run_summary("overview", paths, db, fmt, section, _walk(exclude, include_hidden), top=top)


_MENTIONS_FINDINGS = re.compile(r"\bfindings\b", re.IGNORECASE)


@click.command("query")
@click.argument("sql")
@_source_options
@_format_option
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help="Write at most this many rows.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Stop the query after this long (exit 2).")
def query_command(sql: str, paths: tuple[str, ...], db: str | None, fmt: str,
                  limit: int | None, timeout: float | None, exclude: tuple[str, ...],
                  include_hidden: bool) -> None:
    """Run one reading SQL statement (SELECT) over the tables of docs/tables.md.

    A database file is opened read-only; statements that write are refused (exit 2). Reading
    files straight, the findings table is filled only when the SQL mentions it. Rows are
    written as they come, in batches, so a result of any size takes little memory.
    """
    findings = bool(paths) and bool(_MENTIONS_FINDINGS.search(sql))
    with _source(paths, db, findings=findings,
                 **_walk(exclude, include_hidden)) as (con, skipped):
        try:
            lock_down(con)
            with stream(con, sql, limit=limit, timeout=timeout) as rows:
                write_rows(rows.columns, rows.batches, fmt, sys.stdout.write)
        except QueryError as exc:
            sys.stdout.flush()
            _fail(str(exc), EXIT_USAGE)
    if skipped:
        sys.exit(EXIT_INPUT)


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
    try:
        con = connect(db, read_only=True)
    except DatabaseError as exc:
        _fail(str(exc), EXIT_USAGE)
    try:
        foreign = foreign_tables(con)
        written = export_parquet(con, out_dir)
    except duckdb.Error as exc:
        _fail(f"export failed: {one_line(exc)}", EXIT_USAGE)
    finally:
        con.close()
    if foreign:
        click.echo(f"quizkit: warning: not exported, not quizkit's tables: "
                   f"{', '.join(map(ascii, foreign))}", err=True)
    if not quiet:
        for _table, path, rows in written:
            click.echo(f"{path}  {rows} rows")


COMMANDS = (load_command, summary, query_command, export_command)
