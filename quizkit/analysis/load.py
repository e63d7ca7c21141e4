"""Load export files into the analysis tables, in bounded memory, all or nothing.

The work happens in four phases:

1. *Validate* (optional, first, while the process is small): ``quizkit.validate`` over the
   same files gives the ``findings`` rows.
2. *Stage* (outside the transaction, in temp tables, which never touch the database file),
   one batch of files at a time (:data:`BATCH_BYTES`): DuckDB reads the batch and types its
   documents into ``raw``, one row per document with its kind
   (:mod:`quizkit.analysis.readers`); the candidate statements of
   :mod:`quizkit.analysis.transform` turn them into flat ``cand_<table>`` rows, and ``raw`` is
   dropped. Memory holds one batch of documents, whatever the size of the dump; DuckDB's
   ``memory_limit`` and a spill directory bound the rest.
3. *Pick*: the winners among all candidates become the ``new_<table>`` rows (on a Dask
   cluster, the versions' and their entities' are picked on the workers and come back as
   Parquet parts: :mod:`quizkit.cluster.loading`).
4. *Replace* (one transaction): delete the rows the load replaces, insert the new ones, commit.
   Any error or interruption rolls the transaction back, so the database is exactly as it was.

The stages live in modules of their own: the inputs and their batches
(:mod:`~quizkit.analysis.load_inputs`), DuckDB's session settings
(:mod:`~quizkit.analysis.load_session`), the read strategies
(:mod:`~quizkit.analysis.load_read`), staging and picks (:mod:`~quizkit.analysis.load_stage`),
the cluster workers' entry points (:mod:`~quizkit.analysis.load_worker`), the findings
(:mod:`~quizkit.analysis.load_findings`), and the DDL and final replace
(:mod:`~quizkit.analysis.load_replace`). This module runs them in order.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.aftermath import database_state, dataset_parts, dataset_state, table_rows
from quizkit.analysis.connect import DatabaseError, LoadError, connect, lock_down, one_line, run
from quizkit.analysis.dataset import Part, dataset_writer, write_dataset
from quizkit.analysis.files import Skipped
from quizkit.analysis.load_findings import FindingsTable, no_findings
from quizkit.analysis.load_inputs import BATCH_BYTES, Input, batches, list_inputs, offset_of
from quizkit.analysis.load_replace import drop_temps, replace, tally
from quizkit.analysis.load_session import configured, setting
from quizkit.analysis.load_stage import (
    Candidates,
    Tick,
    add_candidates,
    create_candidates,
    pick,
    stage_batch,
)
from quizkit.analysis.team_sql import TeamRows
from quizkit.catalog.findings import Report, Severity
from quizkit.checks.input_report import InputReport
from quizkit.checks.runner import run as validate_run
from quizkit.inputs.sources import Source
from quizkit.inputs.walk import WalkRules
from quizkit.reporters.base import Reporter
from quizkit.settings.config import Settings

Progress = Callable[[str, float], None]
#: Called after each batch with its files, and the files and bytes of the whole load
#: (a progress display).
OnBatch = Callable[[list["Input"], int, int], None]


@dataclass
class LoadResult:
    """What a load did. ``rows`` counts the rows inserted per table."""

    files: int = 0
    documents: int = 0
    unknown_documents: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    findings: int | None = None
    #: The severity of the worst of them (None: none, or not validated).
    worst: Severity | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: The exclude patterns (of the settings) that excluded nothing.
    unmatched: list[str] = field(default_factory=list)
    #: The JSON Lines files loaded with documents of unknown kind, or lines that are not JSON
    #: (which the validation calls an input it could not read: :mod:`quizkit.api` asks it).
    unknown_lines: list[str] = field(default_factory=list)
    #: The sources of the load's one walk, as given (what names a skipped file as
    #: ``validate`` names it).
    walked: list[Source] = field(default_factory=list)
    #: The files read and the inputs that could not be, as ``validate`` reports them (set by
    #: :mod:`quizkit.api` through :func:`quizkit.checks.input_report.report`).
    inputs: InputReport | None = None


class Runner(Protocol):
    """Where the per-file work of a load runs: here, or on a cluster (quizkit.cluster.checking)."""

    def report(self, sources: list[Source], reporter: Reporter) -> Report:
        """Validate ``sources`` (the load's walk), each finding handed to ``reporter`` as
        it is final."""
        ...

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        """The batches of ``inputs`` to stage, of at most ``most`` bytes each (or one larger
        file)."""
        ...

    def candidates(self, batches: list[list[Input]], verdicts: Mapping[str, str]
                   ) -> Iterator[tuple[int, Candidates]]:
        """Stage ``batches``: the candidate rows of each, in order. A runner may start the
        work when called, before the result is iterated (after :meth:`report`).
        ``verdicts`` is filled with the files the validation could not read (name -> why)
        once :meth:`report` returns, before the first batch is asked for; a runner that
        stages no batch before then leaves them out unread."""
        ...

    def pick(self, con: duckdb.DuckDBPyConnection, tick: Tick) -> dict[str, list[Part]]:
        """Pick the winners among the candidates (:data:`transform.PICKS`): the ``new_*``
        temp tables of ``con``. The tables whose new rows were picked and written elsewhere
        come back as their parts; their ``new_<table>`` holds only the ids of those rows
        (what replaces rows already loaded)."""
        ...


class _Clock:
    def __init__(self, result: LoadResult, progress: Progress | None) -> None:
        self.result = result
        self.progress = progress
        self.last = time.perf_counter()

    def tick(self, step: str) -> None:
        now = time.perf_counter()
        seconds = now - self.last
        self.last = now
        self.result.timings[step] = self.result.timings.get(step, 0.0) + seconds
        if self.progress is not None:
            self.progress(step, seconds)


class LocalRunner:
    """The per-file work of a load in this process (validation with all cores)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, settings: Settings) -> None:
        self.con = con
        self.settings = settings

    def report(self, sources: list[Source], reporter: Reporter) -> Report:
        return validate_run([], self.settings, sources=sources, reporter=reporter)

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        return batches(inputs, most)

    def candidates(self, batches: list[list[Input]], verdicts: Mapping[str, str]
                   ) -> Iterator[tuple[int, Candidates]]:
        for batch_no, batch in enumerate(batches):
            skipped = stage_batch(self.con, batch, offset_of(batch_no), verdicts)
            yield batch_no, Candidates({}, skipped)

    def pick(self, con: duckdb.DuckDBPyConnection, tick: Tick) -> dict[str, list[Part]]:
        pick(con, transform.PICKS, tick)
        return {}


def load(con: duckdb.DuckDBPyConnection, paths: Sequence[str | os.PathLike[str]], *,
         findings: bool = True, settings: Settings | None = None,
         progress: Progress | None = None,
         memory_limit: str | None = None, threads: int | None = None,
         on_batch: OnBatch | None = None, runner: Runner | None = None,
         batch_bytes: int = BATCH_BYTES, on_commit: Callable[[], None] | None = None,
         seal: bool = False,
         before_commit: Callable[[duckdb.DuckDBPyConnection], None] | None = None
         ) -> LoadResult:
    """Load the export files under ``paths`` into the tables of ``con``.

    ``settings`` (rule selection, severities, per-path ignores, profile, limits) shape the
    findings table as they shape ``quizkit validate``'s report, and its excludes and
    hidden-entry policy the walk of directories, as ``validate`` walks; ``None``: the
    defaults.

    ``progress(step, seconds)`` is called after each step and ``on_batch(batch, total_files,
    total_bytes)`` after each batch staged; an exception either raises aborts the load like
    any other failure (the database is left unchanged). ``runner`` runs the per-file work
    elsewhere (a Dask cluster). ``on_commit()`` is called as the load is committed, with stop
    signals held back (:func:`quizkit.outputs.interrupts.held_back`): a stop after it leaves the
    database loaded, a stop before it leaves it as it was. ``seal`` turns the connection's
    file and network access off once the inputs are read, for good (a connection closed
    after this load). ``before_commit(con)`` runs in the load's transaction, over the
    tables as they will be committed (the team's checks: their findings).
    Raises :class:`quizkit.analysis.files.InputError` for a path that does not exist,
    :class:`LoadError` when the load fails, :class:`DatabaseError` for an unusable database.
    """
    # The tables are replaced in order, and so on one thread: inserted from several threads,
    # a table is written in partly filled row groups that the checkpoint then rewrites. The
    # commit checkpoints straight away: the rows not yet in the file are then written once,
    # compressed, instead of to the WAL and again at the next checkpoint (when the database
    # is closed).
    with _staged(con, paths, findings=findings, settings=settings, progress=progress,
                 memory_limit=memory_limit, threads=threads, on_batch=on_batch, runner=runner,
                 batch_bytes=batch_bytes) as (result, clock, inputs, ready), \
            setting(con, "preserve_insertion_order", "true"), \
            setting(con, "checkpoint_threshold", "'0B'"):
        if ready:  # the rows a cluster picks are written as parts of a dataset only
            raise LoadError("this runner's loads go into a Parquet dataset (load_parquet)")
        if seal:  # the inputs are read: the rest is the database's own work
            lock_down(con)
        replace(con, validated=[i.name for i in inputs], rows=result.rows, tick=clock.tick,
                on_commit=on_commit, before_commit=before_commit)
        (result.files, result.documents, result.unknown_documents,
         result.unknown_lines) = tally(con)
    return result


@contextmanager
def _staged(con: duckdb.DuckDBPyConnection, paths: Sequence[str | os.PathLike[str]], *,
            findings: bool, settings: Settings | None, progress: Progress | None,
            memory_limit: str | None, threads: int | None, on_batch: OnBatch | None,
            runner: Runner | None, batch_bytes: int
            ) -> Iterator[tuple[LoadResult, _Clock, list[Input], dict[str, list[Part]]]]:
    """Every input staged in ``con`` (:func:`stage_all`), for the block that writes the
    result (a database's tables or a dataset); a DuckDB error in either is a
    :class:`LoadError`, and the temp tables go when the block ends."""
    result = LoadResult()
    clock = _Clock(result, progress)
    settings = settings or Settings()
    with configured(con, memory_limit=memory_limit, threads=threads):
        try:
            inputs, ready = stage_all(
                con, paths, findings=findings, result=result, clock=clock, on_batch=on_batch,
                runner=runner or LocalRunner(con, settings), batch_bytes=batch_bytes,
                walk=WalkRules(settings.exclude, settings.include_hidden))
            yield result, clock, inputs, ready
        except duckdb.Error as exc:
            raise LoadError(one_line(exc)) from None
        finally:
            drop_temps(con)


def stage_all(con: duckdb.DuckDBPyConnection, paths: Sequence[str | os.PathLike[str]], *,
              findings: bool, result: LoadResult, clock: _Clock, on_batch: OnBatch | None,
              runner: Runner, batch_bytes: int = BATCH_BYTES,
              walk: WalkRules | None = None) -> tuple[list[Input], dict[str, list[Part]]]:
    """Validate, stage every batch and pick the winners: temp tables ``new_<table>``,
    ``new_files`` and ``new_findings`` (and the ``win_*`` tables :data:`transform.DIRECT`
    reads). Directories are walked with ``walk`` (the settings' excludes, as the validation
    of the findings walks them). Returns the inputs, and the parts of the tables the runner
    picked and wrote elsewhere (:meth:`Runner.pick`)."""
    listed = list_inputs(paths, walk)
    inputs = listed.inputs
    result.skipped.extend(listed.skipped)
    result.unmatched.extend(listed.unmatched)
    result.walked = listed.sources
    total_bytes = sum(i.size for i in inputs)
    groups = runner.batches(inputs, batch_bytes)
    create_candidates(con)
    verdicts: dict[str, str] = {}  # filled by the validation, read by the staging
    # A cluster starts staging now, beside the validation.
    staged = runner.candidates(groups, verdicts)
    clock.tick("discover")
    if findings:
        table = FindingsTable(con)
        report = runner.report(listed.sources, table)
        table.flush()
        verdicts.update(table.unreadable(listed.sources))
        result.findings = table.count
        result.worst = report.worst()
        clock.tick("validate")
    else:
        no_findings(con)
    for batch_no, cands in staged:
        add_candidates(con, cands)
        result.skipped.extend(cands.skipped)
        clock.tick("read")
        if on_batch is not None:
            on_batch(groups[batch_no], len(inputs), total_bytes)
    ready = runner.pick(con, clock.tick)
    run(con, "CREATE OR REPLACE TEMP TABLE new_files AS SELECT *, "
             "CAST(now() AT TIME ZONE 'UTC' AS TIMESTAMP) AS loaded_at FROM cand_files")
    return inputs, ready


def load_paths(db: str | os.PathLike[str] | None, paths: Sequence[str | os.PathLike[str]],
               **options: object) -> LoadResult:
    """Open ``db`` (created if missing), load ``paths``, close it.

    A database file that did not exist before and whose first load fails is removed again.
    """
    existed = db is not None and Path(db).exists()
    con = None
    ok = False
    try:  # connect inside: a Ctrl-C just after DuckDB created the file still removes it
        con = connect(db)
        before = table_rows(con) if existed else None
        result = load(con, paths, seal=True, **options)  # type: ignore[arg-type]
        ok = True
        return result
    except (LoadError, DatabaseError) as exc:
        if con is None or db is None:  # never opened: connect's message says why
            raise
        con.close()
        con = None
        _remove_new(db, existed)
        raise type(exc)(f"{exc}; {database_state(db, before)}") from None
    finally:
        if con is not None:
            con.close()
        if not ok and db is not None:
            _remove_new(db, existed)


def _remove_new(db: str | os.PathLike[str], existed: bool) -> None:
    """Remove the database file a first load made (and its WAL), if it failed."""
    if existed:
        return
    for leftover in (Path(db), Path(f"{os.fspath(db)}.wal")):
        with suppress(OSError):  # e.g. never made, on a read-only file system
            leftover.unlink(missing_ok=True)


def load_parquet(root: str | os.PathLike[str], paths: Sequence[str | os.PathLike[str]], *,
                 findings: bool = True, settings: Settings | None = None,
                 progress: Progress | None = None,
                 memory_limit: str | None = None, threads: int | None = None,
                 on_batch: OnBatch | None = None, runner: Runner | None = None,
                 batch_bytes: int = BATCH_BYTES,
                 on_commit: Callable[[], None] | None = None,
                 team: TeamRows | None = None) -> LoadResult:
    """Load ``paths`` into the Parquet dataset ``root`` (see quizkit.analysis.dataset), with
    the options of :func:`load`. Staging happens in a private in-memory database that
    spills to a temporary directory. ``team(con)``: the findings of the team's checks over
    the dataset as this load leaves it (:func:`~quizkit.analysis.dataset.write_dataset`)."""
    con = connect(None)
    try:
        with dataset_writer(root):
            before = dataset_parts(root)
            try:
                result = _load_dataset(con, root, paths, findings=findings, settings=settings,
                                       progress=progress, memory_limit=memory_limit,
                                       threads=threads, on_batch=on_batch, runner=runner,
                                       batch_bytes=batch_bytes, on_commit=on_commit,
                                       team=team)
            except (LoadError, DatabaseError) as exc:
                raise type(exc)(f"{exc}; {dataset_state(root, before)}") from None
    finally:
        con.close()
    return result


def _load_dataset(con: duckdb.DuckDBPyConnection, root: str | os.PathLike[str],
                  paths: Sequence[str | os.PathLike[str]], *,
                  on_commit: Callable[[], None] | None, team: TeamRows | None,
                  **options: Any) -> LoadResult:
    with _staged(con, paths, **options) as (result, clock, inputs, ready):
        try:
            result.rows = write_dataset(con, root, validated=[i.name for i in inputs],
                                        ready=ready, on_commit=on_commit, team=team)
        except OSError as exc:
            raise DatabaseError(f"cannot write dataset {root}: "
                                f"{exc.strerror or exc}") from None
        result.rows.pop("findings", None)
        (result.files, result.documents, result.unknown_documents,
         result.unknown_lines) = tally(con)
        clock.tick("write")
    return result
