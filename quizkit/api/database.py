"""``load``, ``summary``, ``charts``, ``query`` and ``export``: the analysis side (DuckDB)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from quizkit.analysis import summaries
from quizkit.analysis.check_run import findings_into_table, team_rows
from quizkit.analysis.connect import DatabaseError, connect, lock_down, one_line
from quizkit.analysis.export import export_parquet, export_targets, foreign_tables
from quizkit.analysis.load import LoadResult, OnBatch, load_parquet, load_paths
from quizkit.analysis.load_session import session_options
from quizkit.analysis.open_tables import open_tables, reads_findings, with_inputs
from quizkit.analysis.query import query as run_query
from quizkit.analysis.query import stream
from quizkit.analysis.sections import Section
from quizkit.analysis.summary_output import summary_text, write_charts
from quizkit.api.validating import settings
from quizkit.catalog.findings import Report, findings_code
from quizkit.checks.engine import CheckMany
from quizkit.checks.runner import path_list
from quizkit.checks.runner import run as run_validation
from quizkit.cluster.checking import connect as connect_cluster
from quizkit.cluster.loading import TASK_BYTES, ClusterRunner
from quizkit.inputs.sources import Source
from quizkit.outputs.writer import atomic_write, check_directory, refuse_inputs
from quizkit.outputs.writer import resolve as resolve_output
from quizkit.pages.formats import render, write_rows
from quizkit.pages.html_summary import missing_charts
from quizkit.reporters.base import Reporter
from quizkit.settings.config import ConfigError, ConfigSource, Settings


def load(paths: Iterable[str] | str, db: str | os.PathLike[str] | None = None, *,
         parquet: str | os.PathLike[str] | None = None, findings: bool = True,
         memory_limit: str | None = None, threads: int | None = None,
         scheduler: str | None = None,
         timings: Callable[[str, float], None] | None = None,
         on_batch: OnBatch | None = None, config: ConfigSource = None,
         exclude: Iterable[str] = (), include_hidden: bool = False,
         baseline: str | os.PathLike[str] | None = None, fail_on: str | None = None,
         on_commit: Callable[[], None] | None = None) -> LoadResult:
    """Load exports (files, directories, ``s3://`` URLs) into the DuckDB database ``db`` or
    the Parquet dataset ``parquet`` (one of them; ``quizkit load``); the rows per table.

    Directories are walked as ``quizkit validate`` walks them, with the configuration's and
    these ``exclude`` patterns and ``include_hidden``. With ``findings``, the files are
    also validated and the findings table holds what ``quizkit validate`` would report with
    the same configuration (``config`` as for :func:`validate`; ``config=settings(...)``
    gives select, ignore, severity, profile and the rest), and the findings of the
    configuration's own checks over the whole database or dataset (docs/checks.md).
    ``memory_limit`` and ``threads`` are DuckDB's (memory stays bounded whatever the dump's
    size); ``scheduler`` (``tcp://host:8786``) runs the per-file work on that Dask cluster
    (``parquet`` only). ``timings(step, seconds)`` is called after each step
    (``LoadResult.timings`` has them all), ``on_batch(batch, total_files, total_bytes)`` after
    each batch of files read. ``LoadResult.inputs`` reports the files that could not be read
    as ``validate`` reports them; ``baseline`` absorbs the findings it holds, there and in the
    findings table; its ``exit_code`` is ``validate``'s, findings at or above ``fail_on``
    (default: the configuration's, else ``error``) making it 1. ``on_commit()`` is called
    as the load is committed (with stop signals held back: a stop before it leaves the
    database or dataset as it was, after it loaded).
    """
    if (db is None) == (parquet is None):
        raise ConfigError("give --db FILE or --parquet DIR (one of them)")
    if scheduler and parquet is None:
        raise ConfigError("--scheduler loads into a Parquet dataset: give --parquet DIR")
    memory_limit, threads = duckdb_session(memory_limit, threads)
    s = settings(config, exclude=exclude, include_hidden=include_hidden, baseline=baseline,
                 fail_on=fail_on)
    paths = path_list(paths)
    refuse_inputs([db], [*paths, *s.files_read], written_trees=[parquet])
    common = dict(findings=findings, settings=s, progress=timings, memory_limit=memory_limit,
                  threads=threads, on_batch=on_batch, on_commit=on_commit)
    team = team_rows(s, db or parquet) if findings else None  # type: ignore[arg-type]
    if team is not None and db is not None:
        common["before_commit"] = findings_into_table(team)
    elif team is not None:
        common["team"] = team
    result = with_inputs(_load(paths, db, parquet, s, scheduler, common), paths, s)
    assert result.inputs is not None
    if team is not None and team.worst is not None:  # the findings table holds them too
        result.worst = max(team.worst, result.worst or team.worst)
    result.inputs.findings_code = findings_code(result.worst, s.fail_on)
    return result


def _load(paths: list[str], db: str | os.PathLike[str] | None,
          parquet: str | os.PathLike[str] | None, s: Settings, scheduler: str | None,
          common: dict) -> LoadResult:
    if db is not None:
        return load_paths(db, paths, **common)
    if not scheduler:
        return load_parquet(parquet, paths, **common)
    with connect_cluster(scheduler) as client:
        def report(sources: list[Source], check_many: CheckMany,
                   reporter: Reporter) -> Report:
            return run_validation([], s, check_many=check_many, sources=sources,
                                  reporter=reporter)
        return load_parquet(parquet, paths, runner=ClusterRunner(client, report),
                            batch_bytes=TASK_BYTES, **common)


@dataclass(frozen=True)
class Answer:
    """What ``summary`` and ``query`` give: the sections, and the text in the asked format.

    ``loaded`` tells what was loaded when files were read straight (``None`` for ``db``).
    """

    sections: list[Section]
    text: str
    loaded: LoadResult | None = None


def summary(name: str, paths: Iterable[str] | str = (), *, db: str | os.PathLike[str] | None = None,
            parquet: str | os.PathLike[str] | None = None, top: int = 10,
            by: Iterable[str] = (), every: str = "month", section: str | None = None,
            format: str = "table", output: str | os.PathLike[str] | None = None,
            config: ConfigSource = None, baseline: str | os.PathLike[str] | None = None,
            memory_limit: str | None = None, threads: int | None = None) -> Answer:
    """A ready summary (``quizkit summary sizes|starts|overview|all``) of files, of ``db`` or
    of the Parquet dataset ``parquet``.

    ``by`` (sizes and starts): the groupings to show, default all; ``every``: the period of
    games over time (day, week, month); ``section``: only that one (``summary.section`` for
    ``all``). ``format`` ``html`` is one page with charts. ``output`` also writes the text
    there, atomically. Files are walked with the configuration's excludes (``config`` as for
    :func:`validate`); ``baseline`` absorbs the unreadable inputs' findings it holds.
    ``memory_limit`` and ``threads`` are DuckDB's, loading files.
    """
    session = duckdb_session(memory_limit, threads)
    names = summaries.SUMMARIES_ORDER if name == "all" else (name,)
    if any(n not in summaries.SUMMARIES for n in names):
        raise ConfigError(f"no summary {name!r} (summaries: "
                          f"{', '.join((*summaries.SUMMARIES, 'all'))})")
    paths = path_list(paths)
    s = _reading(paths, config, baseline)
    if output is not None:
        resolve_output(output)  # a bad output fails now, not after loading
        refuse_inputs([output], [*paths, db, *s.files_read], read_trees=[parquet])
    groups, loaded = _summaries(names, paths, db, parquet, top=top, by=by, every=every,
                                settings=s, session=session)
    try:
        text = summary_text(groups, format, section)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(text)
    shown = summaries.flatten(groups if section is None else summaries.only(groups, section))
    return Answer(shown, text, loaded)


@dataclass(frozen=True)
class Charts:
    """What ``charts`` wrote (SVG and PNG files), and what was loaded (``None`` for ``db``)."""

    written: list[Path]
    loaded: LoadResult | None = None
    #: ``summary.section: why`` for each charted section without a chart (no rows, all 0).
    missing: list[str] = field(default_factory=list)


def charts(out: str | os.PathLike[str], paths: Iterable[str] | str = (), *,
           db: str | os.PathLike[str] | None = None,
           parquet: str | os.PathLike[str] | None = None, top: int = 10,
           by: Iterable[str] = (), every: str = "month", config: ConfigSource = None,
           baseline: str | os.PathLike[str] | None = None, memory_limit: str | None = None,
           threads: int | None = None) -> Charts:
    """Every chart of the summaries (``quizkit summary charts``) as ``summary.section.svg``
    and ``.png`` in the directory ``out``; the options as for :func:`summary`."""
    session = duckdb_session(memory_limit, threads)
    check_directory(out)  # a bad directory fails now, not after loading; made when written
    paths = path_list(paths)
    s = _reading(paths, config, baseline)
    groups, loaded = _summaries(summaries.SUMMARIES_ORDER, paths, db, parquet,
                                top=top, by=by, every=every, settings=s, session=session)
    return Charts(write_charts(groups, out, inputs=[*paths, db, *s.files_read],
                               read_trees=[parquet]), loaded, missing_charts(groups))


def duckdb_session(memory_limit: str | None, threads: int | None
                   ) -> tuple[str | None, int | None]:
    """The DuckDB options of a command that loads, checked
    (:func:`~quizkit.analysis.load_session.session_options`)."""
    try:
        return session_options(memory_limit, threads)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _reading(paths: Sequence[str], config: ConfigSource,
             baseline: str | os.PathLike[str] | None) -> Settings:
    """The settings of reading files (their config file and baseline); a database or a
    dataset is read without any, and no configuration is looked for."""
    return settings(config, baseline=baseline) if paths else Settings()


def _summaries(names: Sequence[str], paths: Sequence[str], db: str | os.PathLike[str] | None,
               parquet: str | os.PathLike[str] | None, *, top: int, by: Iterable[str],
               every: str, settings: Settings, session: tuple[str | None, int | None]
               ) -> tuple[list[tuple[str, list[Section]]], LoadResult | None]:
    with open_tables(paths, db, parquet, findings=False, settings=settings,
                     session=session) as (con, loaded):
        try:
            groups = summaries.summarize(con, names, top=top,
                                         by=tuple(by) or summaries.GROUP_NAMES, every=every)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        except duckdb.Error as exc:
            raise DatabaseError(f"summary failed (is this a quizkit database?): "
                                f"{one_line(exc)}") from None
    return groups, loaded


def query(sql: str, paths: Iterable[str] | str = (), *,
          db: str | os.PathLike[str] | None = None,
          parquet: str | os.PathLike[str] | None = None, format: str = "table",
          limit: int | None = None, timeout: float | None = None,
          config: ConfigSource = None, write: Callable[[str], object] | None = None,
          loaded: Callable[[LoadResult], None] | None = None,
          baseline: str | os.PathLike[str] | None = None, memory_limit: str | None = None,
          threads: int | None = None) -> Answer:
    """Run one reading SQL statement (``quizkit query``) over files, ``db`` or the Parquet
    dataset ``parquet``.

    ``limit`` keeps at most that many rows; ``timeout`` (seconds) stops the query with
    :class:`~quizkit.analysis.query.QueryTimeout`. Reading files straight, the findings table
    is filled (with ``config`` applied) only when the SQL mentions it, and ``loaded`` is told
    what was loaded before the rows come. With ``write``, the rows are written to it in
    ``format`` batch by batch, in constant memory, and the answer holds no rows. Raises
    :class:`~quizkit.analysis.query.QueryError` for refused or failing SQL. ``memory_limit``
    and ``threads`` are DuckDB's, loading files.
    """
    session = duckdb_session(memory_limit, threads)
    paths = path_list(paths)
    s = _reading(paths, config, baseline)
    findings = bool(paths) and reads_findings(sql)
    with open_tables(paths, db, parquet, findings=findings, settings=s,
                     session=session) as (con, result):
        if result is not None and loaded is not None:
            loaded(result)
        lock_down(con)
        if write is not None:
            with stream(con, sql, limit=limit, timeout=timeout) as rows:
                write_rows(rows.columns, rows.batches, format, write)
            return Answer([], "", result)
        section = run_query(con, sql, limit=limit, timeout=timeout)
    return Answer([section], render([section], format, single=True), result)



@dataclass(frozen=True)
class Exported:
    """What ``export`` wrote: (table, path, rows) per table, and the tables left out because
    they are not quizkit's."""

    written: list[tuple[str, Path, int]]
    foreign: list[str]


def export(db: str | os.PathLike[str], parquet: str | os.PathLike[str]) -> Exported:
    """Write one Parquet file per quizkit table of ``db`` into the directory ``parquet``."""
    targets = export_targets(parquet)
    refuse_inputs(targets, [db])
    con = connect(db, read_only=True, allowed=targets)
    try:
        foreign = foreign_tables(con)
        return Exported(export_parquet(con, parquet), foreign)
    except duckdb.Error as exc:
        raise DatabaseError(f"export failed: {one_line(exc)}") from None
    finally:
        con.close()
