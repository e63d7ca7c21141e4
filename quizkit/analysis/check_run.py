"""One ``quizkit check`` run: the document rules of ``validate`` and the team's checks over
the tables, in one report.

The team's checks are tried on the empty tables first (:func:`~quizkit.analysis.team_sql.preflight`:
bad SQL is exit 2 before any export is read). The exports are then loaded into an in-memory
database by the one load path (:func:`quizkit.analysis.load.load`) and the checks run over
it, fenced, in a process forked beside the document pass (:mod:`quizkit.analysis.beside`):
both read the same files at once. A ``--db`` file or ``--parquet`` dataset is read as it
is, in this process, before the pass. The checks' findings go into ``validate``'s run
(:func:`quizkit.checks.runner.run`, ``extra``, taken once the pass is done), so the
configuration's select, ignore and severities, the baseline, every report format and the
exit code treat them as any finding. Without an active team check nothing is loaded: the run
is ``validate``'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from quizkit.analysis.beside import Beside
from quizkit.analysis.connect import connect, run
from quizkit.analysis.load import LoadResult
from quizkit.analysis.open_tables import open_tables, reads_findings
from quizkit.analysis.team_sql import (
    TEAM_FINDINGS,
    Failures,
    Outcome,
    Past,
    RowPlace,
    preflight,
    row_counts,
)
from quizkit.analysis.team_sql import run_checks as run_team_checks
from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.checks import engine, runner
from quizkit.checks.baseline import Baseline
from quizkit.inputs import remote
from quizkit.inputs.sources import Source
from quizkit.outputs.interrupts import pause_at
from quizkit.outputs.writer import (
    check_directory,
    make_directory,
    refuse_inputs,
    written_together,
)
from quizkit.reporters import parse_reports
from quizkit.settings.config import ConfigError, Settings
from quizkit.settings.team_checks import TeamCheck

#: Failing rows kept per ``sql`` check by ``--store-failures`` unless told.
FAILURES_LIMIT = 1000


#: What the load and the team's checks give ``check``: what was loaded (``None`` for a
#: database or dataset), the checks' outcome, the rows per table.
_Tables = tuple[LoadResult | None, Outcome, dict[str, float]]


@dataclass
class CheckResult:
    """What ``check`` gave: the report, the team checks' outcome (metric values, notes),
    the rows per table, what was loaded (files read straight) and the failures stored
    (code, file, rows written, rows in all)."""

    report: Report
    outcome: Outcome = field(default_factory=Outcome)
    rows: dict[str, float] = field(default_factory=dict)
    loaded: LoadResult | None = None
    stored: list[tuple[str, Path, int, int]] = field(default_factory=list)

    @property
    def metrics(self) -> dict[str, float]:
        """Every metric check's value by its name, and ``rows.<table>`` (the run history's)."""
        return {**self.outcome.metrics, **self.rows}


def active_checks(s: Settings) -> list[TeamCheck]:
    """The team's checks the settings' select and ignore leave on."""
    disabled = s.adjuster().disabled
    return [c for c in s.checks if c.name not in disabled]


def run_check(paths: Sequence[str], s: Settings, *, db: str | os.PathLike[str] | None = None,
              parquet: str | os.PathLike[str] | None = None,
              store_failures: str | os.PathLike[str] | None = None,
              failures_limit: int = FAILURES_LIMIT, past: Past | None = None,
              notes: Callable[[str], None] | None = None, stdin_format: str = "auto",
              session: tuple[str | None, int | None] = (None, None),
              **options: object) -> CheckResult:
    """Check ``paths`` (or the tables of ``db`` or of the dataset ``parquet``) with the
    document rules and the team's checks of ``s``; ``options`` are :func:`runner.run`'s
    (format, output, reports, ...). ``past(name, runs)``: a metric's history, newest first
    (change checks); ``session``: DuckDB's memory limit and threads loading the files."""
    if sum(map(bool, (paths, db, parquet))) != 1:
        raise ConfigError("give export files, --db FILE or --parquet DIR (one of them)")
    if isinstance(failures_limit, bool) or not isinstance(failures_limit, int) \
            or failures_limit < 0:
        raise ConfigError(f"failures_limit must be a whole number of 0 or more, "
                          f"got {failures_limit!r}")
    say = notes or (lambda _line: None)
    checks = active_checks(s)
    preflight(checks)
    sources: list[Source] = runner.expand_paths(paths, s.exclude, s.include_hidden,
                                                stdin_format, notes) if paths else []
    targets = [Path(store_failures, f"{c.code}.parquet") for c in checks
               if c.sql is not None] if store_failures is not None else []
    reports = [spec.path for spec in parse_reports(
        options.get("format"), options.get("output"),  # type: ignore[arg-type]
        options.get("reports", ()))]  # type: ignore[arg-type]
    refuse_inputs(reports, [db], read_trees=[parquet])  # the files' own: in runner.run
    if store_failures is not None:
        check_directory(store_failures)
        refuse_inputs(targets, [*(src.path for src in sources), db, *s.files_read],
                      read_trees=[parquet])
    result = CheckResult(Report())
    tables: Beside[_Tables] | None = None
    if checks or db or parquet:  # a --db or --parquet is opened (and refused) even with no check
        if any(src.is_stdin for src in sources):
            raise ConfigError("the team's checks read the tables of files: give paths, "
                              "not - (standard input)")
        place = RowPlace(_names(sources), _where(paths, db, parquet), s.limits.max_findings)
        findings = any(reads_findings(c.query) for c in checks)
        keep = failures_limit if store_failures is not None else None

        def load_and_check() -> _Tables:
            pause_at("check-tables")  # the test hook: in the process that loads the files
            with open_tables(paths, db, parquet, findings=findings, settings=s,
                             session=session) as (con, loaded):
                return loaded, run_team_checks(con, checks, place, past=past,
                                               keep=keep), row_counts(con)

        # Files are loaded beside the document pass; a database or dataset is only read.
        tables = Beside(load_and_check, "the process loading the tables to check",
                        apart=bool(paths))

    def team_findings() -> Iterator[Finding]:
        """What the pass reports after its own findings (taken once the pass is done)."""
        if tables is not None:
            result.loaded, result.outcome, result.rows = tables.result()
        if store_failures is not None:
            result.stored = write_failures(store_failures, result.outcome.failures)
        yield from result.outcome.findings

    validating = s
    if tables is not None and tables.apart and s.jobs is None:
        # The pass leaves a core to the load: on two cores, one worker beside DuckDB beats
        # two competing with it (docs/checks.md, "What it costs").
        validating = replace(s, jobs=max(1, engine.default_jobs(sources) - 1))
    with tables if tables is not None else nullcontext():
        result.report = runner.run(paths, validating, sources=sources, extra=team_findings(),
                                   notes=notes, **options)  # type: ignore[arg-type]
    for line in result.outcome.notes:
        say(line)
    for code, target, kept, total in result.stored:
        say(f"store-failures: {code}: {kept:,} of {total:,} failing rows in {target}")
    return result


def _names(sources: Sequence[Source]) -> dict[str, str]:
    """The tables' ``file`` (absolute path, or URL) → the name reports give the input."""
    return {(src.path if remote.is_url(src.path) else os.path.abspath(src.path)): src.display
            for src in sources}


def _where(paths: Sequence[str], db: str | os.PathLike[str] | None,
           parquet: str | os.PathLike[str] | None) -> str:
    """What a finding about no one file is placed at: the database, the dataset, the one
    path checked, or the folder the paths share."""
    if db or parquet:
        return os.fspath(db or parquet)  # type: ignore[arg-type]
    if len(paths) == 1:
        return paths[0]
    try:
        return os.path.commonpath([os.path.abspath(p) for p in paths])
    except ValueError:  # paths on several drives, or URLs and files
        return paths[0]


@dataclass
class TeamFindings:
    """The team's checks of a ``load``: called with a connection, the rows of the findings
    table they give over its tables, with the configuration's select, ignore, severities and
    baseline applied, as ``check`` reports them; findings about no one file are placed at
    ``where`` (the database or dataset). ``worst``: the severity of the worst row given, for
    the load's exit code (``--fail-on``)."""

    settings: Settings
    checks: list[TeamCheck]
    where: str
    worst: Severity | None = None

    def __call__(self, con: duckdb.DuckDBPyConnection) -> list[tuple]:
        s = self.settings
        outcome = run_team_checks(con, self.checks,
                                  RowPlace({}, self.where, s.limits.max_findings))
        adjust = s.adjuster()
        known = Baseline.load(s.baseline) if s.baseline is not None else None
        kept = [f for f in map(adjust, outcome.findings)
                if f is not None and (known is None or known(f) is not None)]
        self.worst = max((f.severity for f in kept), default=None)
        return [(f.path, f.record, f.pointer, f.line, f.column, f.rule, f.code,
                 str(f.severity), f.message) for f in kept]


def team_rows(s: Settings, where: str | os.PathLike[str]) -> TeamFindings | None:
    """The team's checks of ``s`` for a load into ``where`` (:class:`TeamFindings`); ``None``:
    no active check. The checks are tried on the empty tables first."""
    checks = active_checks(s)
    if not checks:
        return None
    preflight(checks)
    return TeamFindings(s, checks, os.fspath(where))


def findings_into_table(found: TeamFindings) -> Callable[[duckdb.DuckDBPyConnection], None]:
    """What ``load --db`` runs before it commits when the configuration has team checks:
    the checks over the whole database, their findings in place of those of the last load."""

    def store(con: duckdb.DuckDBPyConnection) -> None:
        rows = found(con)
        run(con, f"DELETE FROM findings WHERE {TEAM_FINDINGS}")
        if rows:
            con.executemany(
                "INSERT INTO findings (file, record, pointer, line, col, rule, code, severity, "
                "message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    return store


def write_failures(directory: str | os.PathLike[str], failures: dict[str, Failures]
                   ) -> list[tuple[str, Path, int, int]]:
    """``DIR/CODE.parquet`` for each ``sql`` check: the failing rows kept (all written at
    once, atomically, through the output layer). (code, file, rows written, rows in all)."""
    out = make_directory(directory)
    stored = []
    with written_together() as together:
        for code, failed in failures.items():
            target = out / f"{code}.parquet"
            con = connect(None)
            try:
                columns = ", ".join(f'"{_unique(c, i, failed.columns)}" {t}'
                                    for i, (c, t) in enumerate(zip(failed.columns,
                                                                   failed.types, strict=True)))
                run(con, f"CREATE TABLE failures ({columns})")
                if failed.rows:
                    marks = ", ".join("?" * len(failed.columns))
                    con.executemany(f"INSERT INTO failures VALUES ({marks})", failed.rows)
                con.table("failures").write_parquet(together.name_for(target))
            finally:
                con.close()
            stored.append((code, target, len(failed.rows), failed.total))
    return stored


def _unique(column: str, index: int, columns: Sequence[str]) -> str:
    """A column name for the failures file: as the query named it (``"`` doubled), made
    unique by its position when the query gives it twice."""
    name = column if columns.index(column) == index else f"{column}_{index + 1}"
    return name.replace('"', '""')
