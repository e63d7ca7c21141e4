"""The Python API: each command of the CLI as a function taking the same options.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0

The CLI (``quizkit/commands/``) only parses options, calls these functions, prints what they
return and chooses the exit code. A CLI option ``--some-option`` is the parameter
``some_option`` here, except for the renames in :data:`CLI_RENAMES`; options that only change
what a command prints on the terminal are listed in :data:`CLI_ONLY` (a test checks both
tables against the commands).

Configuration is resolved as on the command line: ``config=None`` looks for ``quizkit.toml``
or ``pyproject.toml`` from the current directory upward, ``config=False`` uses none, and a
path, a :class:`~quizkit.settings.config.Settings` or a config table (a dict as in ``quizkit.toml``)
is used as given. Problems with options or configuration raise
:class:`~quizkit.settings.config.ConfigError` (the CLI's exit code 2); a path that does not exist
raises :class:`~quizkit.inputs.sources.MissingPath`; a bad report format or file,
:class:`~quizkit.reporters.ReportSpecError`.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import duckdb
import orjson

from quizkit.analysis import summaries
from quizkit.analysis.check_run import (
    FAILURES_LIMIT,
    CheckResult,
    findings_into_table,
    run_check,
)
from quizkit.analysis.connect import DatabaseError, connect, lock_down, one_line
from quizkit.analysis.export import export_parquet, export_targets, foreign_tables
from quizkit.analysis.load import LoadResult, OnBatch, load_parquet, load_paths, open_tables
from quizkit.analysis.load import load as load_into
from quizkit.analysis.query import query as run_query
from quizkit.analysis.query import stream
from quizkit.analysis.sections import Section
from quizkit.analysis.summary_output import summary_text, write_charts
from quizkit.catalog import rule_docs
from quizkit.catalog.findings import Report
from quizkit.checks import input_report
from quizkit.checks.documents import SkippedInputs, iter_documents
from quizkit.checks.engine import CheckMany
from quizkit.checks.enum_inference import Inferred, profile_toml
from quizkit.checks.enum_inference import infer as infer_values
from quizkit.checks.runner import (
    expand_paths,
    path_list,
    read_profile_file,
    schema_book,
    settings,
)
from quizkit.checks.runner import run as run_validation
from quizkit.cluster.checking import connect as connect_cluster
from quizkit.cluster.loading import TASK_BYTES, ClusterRunner
from quizkit.diff import output as diff_output
from quizkit.diff.result import DiffResult
from quizkit.diff.run import diff as run_diff
from quizkit.diff.run import input_files
from quizkit.generate import Summary, generate_corpus
from quizkit.history.trends import HistoryView, show_history
from quizkit.inputs import remote
from quizkit.inputs.bounds import MAX_THREADS
from quizkit.inputs.limits import duckdb_size
from quizkit.inputs.sources import Source
from quizkit.model.editor import editor_settings
from quizkit.model.entities import KIND_NAMES
from quizkit.model.enums import dumps_schema
from quizkit.model.schemas import BASE_URI, SchemaBook, bundled, schema_id
from quizkit.outputs.writer import atomic_write, check_directory, make_directory, refuse_inputs
from quizkit.outputs.writer import resolve as resolve_output
from quizkit.pages.formats import render, write_rows
from quizkit.pages.html_summary import missing_charts
from quizkit.reporters.base import Reporter
from quizkit.rules import REGISTRY
from quizkit.settings.config import ConfigError, ConfigSource, Settings
from quizkit.validation import validate

__all__ = ["CLI_ONLY", "CLI_RENAMES", "COMMANDS", "Answer", "Charts", "CheckResult",
           "ConfigError", "DiffResult", "Exported", "HistoryView", "LoadResult", "charts",
           "check", "diff", "editor_settings", "export", "export_schemas", "generate",
           "history", "infer", "load", "query", "read_profile_file", "rules", "schema",
           "schema_book", "schemas", "settings", "summary", "validate"]

#: (command, CLI option or argument) → API parameter, where the names differ.
CLI_RENAMES: dict[tuple[str, str], str] = {
    ("validate", "report"): "reports",
    ("check", "report"): "reports",
    ("diff", "report"): "reports",
    ("rules", "rule_id"): "rule",
    ("schema list", "all"): "records",
    ("schema editor", "match"): "matches",
}

#: (command, CLI option) that have no API parameter, and why.
CLI_ONLY: dict[tuple[str, str], str] = {
    ("load", "quiet"): "only silences the one-line summary the command prints",
    ("load", "progress"): "the CLI's progress line; the API reports each batch to on_batch",
    ("export", "quiet"): "only silences the list of files the command prints",
    **{(name, "isolated"): "config=False"
       for name in ("validate", "check", "rules", "load", "query", "enums infer",
                    "summary all", "summary charts", "summary overview", "summary sizes",
                    "summary starts")},
}


def infer(paths: Iterable[str] | str, *, exclude: Iterable[str] = (),
          include_hidden: bool = False, stdin_format: str = "auto",
          format: str | None = None, output: str | None = None,
          skipped: SkippedInputs | None = None, config: ConfigSource = None,
          baseline: str | os.PathLike[str] | None = None,
          notes: Callable[[str], None] | None = None) -> Inferred:
    """The enum values seen in ``paths`` (``quizkit enums infer``), with counts and examples.

    With ``output``, also writes them there (atomically) in ``format``: ``toml`` (default, a
    profile for ``profile=``) or ``json``. Inputs that cannot be read or parsed are listed in
    ``skipped`` with the reason, documents of unknown kind counted, and reported as
    ``validate`` reports them in ``Inferred.inputs`` (:mod:`quizkit.checks.input_report`; a
    ``baseline`` absorbs the findings it holds). ``exclude``, ``include_hidden`` and
    ``stdin_format`` are the walk's (:mod:`quizkit.inputs.walk`), added to the configuration's
    (``config`` as for :func:`validate`); ``notes`` hears of exclude patterns that matched
    nothing.
    """
    if format not in (None, *INFER_FORMATS):
        raise ConfigError(f"unknown format {format!r} (use {', '.join(INFER_FORMATS)})")
    paths = path_list(paths)
    s = settings(config, exclude=exclude, include_hidden=include_hidden)
    sources = expand_paths(paths, s.exclude, s.include_hidden, stdin_format, notes)
    if output is not None:  # a bad output fails now, not after reading the corpus
        resolve_output(output)
        refuse_inputs([output], [*(source.path for source in sources), *s.files_read, baseline])
    skipped = skipped if skipped is not None else SkippedInputs()
    seen = infer_values(iter_documents(sources, skipped))
    seen.inputs = input_report.report(skipped.sources, files=len(sources),
                                      documents=seen.documents, baseline=baseline)
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(inferred_text(seen, format or "toml", ", ".join(paths)))
    return seen


INFER_FORMATS = ("toml", "json")


def inferred_text(seen: Inferred, fmt: str, source: str = "") -> str:
    """Inferred values as a TOML profile or as JSON with counts and an example each."""
    if fmt == "json":
        return orjson.dumps({"files": seen.files, "documents": seen.documents,
                             "enums": seen.to_dict()}, option=orjson.OPT_INDENT_2).decode()
    return profile_toml(seen, source)


# --- analysis ----------------------------------------------------------------------------------

def history(history: str | os.PathLike[str], *, dataset: str | None = None,
            last: int | None = None, format: str = "text",
            output: str | os.PathLike[str] | None = None) -> HistoryView:
    """The runs of a run history (``quizkit history``; recorded by ``validate(history=...)``)
    with each metric over them, as ``format`` (text, json, csv, markdown, html) text, also
    written to ``output``: only the runs of ``dataset``, the ``last`` newest. Raises
    :class:`~quizkit.history.history_store.HistoryError` for a location that is no history.
    """
    return show_history(os.fspath(history), dataset=dataset, last=last, format=format,
                        output=output)


def load(paths: Iterable[str] | str, db: str | os.PathLike[str] | None = None, *,
         parquet: str | os.PathLike[str] | None = None, findings: bool = True,
         memory_limit: str | None = None, threads: int | None = None,
         scheduler: str | None = None,
         timings: Callable[[str, float], None] | None = None,
         on_batch: OnBatch | None = None, config: ConfigSource = None,
         exclude: Iterable[str] = (), include_hidden: bool = False,
         baseline: str | os.PathLike[str] | None = None,
         on_commit: Callable[[], None] | None = None, **options: object) -> LoadResult:
    """Load exports (files, directories, ``s3://`` URLs) into the DuckDB database ``db`` or
    the Parquet dataset ``parquet`` (one of them; ``quizkit load``); the rows per table.

    Directories are walked as ``quizkit validate`` walks them, with the configuration's and
    ``options``' ``exclude`` patterns and ``include_hidden``. With ``findings``, the files are
    also validated and the findings table holds what ``quizkit validate`` would report with
    the same configuration (``config`` and ``options`` as for :func:`validate`: select,
    ignore, severity, per-path ignores, profile, exclude, include_hidden), and, in a
    database, the findings of the configuration's own checks over the whole database
    (docs/checks.md). ``memory_limit`` and ``threads`` are DuckDB's (memory stays bounded
    whatever the dump's size); ``scheduler`` (``tcp://host:8786``) runs the per-file work on
    that Dask cluster (``parquet`` only). ``timings(step, seconds)`` is called after each step
    (``LoadResult.timings`` has them all), ``on_batch(batch, total_files, total_bytes)`` after
    each batch of files read. ``LoadResult.inputs`` reports the files that could not be read
    as ``validate`` reports them; ``baseline`` absorbs the findings it holds, there and in the
    findings table. ``on_commit()`` is called as the load is committed (with stop signals held
    back: a stop before it leaves the database or dataset as it was, after it loaded).
    """
    if (db is None) == (parquet is None):
        raise ConfigError("give --db FILE or --parquet DIR (one of them)")
    if scheduler and parquet is None:
        raise ConfigError("--scheduler loads into a Parquet dataset: give --parquet DIR")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= MAX_THREADS):
        raise ConfigError(f"threads must be a whole number from 1 to {MAX_THREADS}, "
                          f"got {threads!r}")
    s = settings(config, exclude=exclude, include_hidden=include_hidden, baseline=baseline,
                 **options)
    try:
        memory_limit = duckdb_size(memory_limit)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    paths = path_list(paths)
    refuse_inputs([db], [*paths, *s.files_read], written_trees=[parquet])
    common = dict(findings=findings, settings=s, progress=timings, memory_limit=memory_limit,
                  threads=threads, on_batch=on_batch, on_commit=on_commit)
    if db is not None and findings:
        common["before_commit"] = findings_into_table(s, db)
    return _with_inputs(_load(paths, db, parquet, s, scheduler, common), paths, s)


def _with_inputs(result: LoadResult, paths: Sequence[str], s: Settings) -> LoadResult:
    """``result`` with its :class:`~quizkit.checks.input_report.InputReport`: the files it skipped,
    as the walk of ``paths`` names them, checked as ``validate`` checks them."""
    skipped = dict.fromkeys(item.path for item in result.skipped)
    reasons = {item.path: item.reason for item in result.skipped}
    walked: dict[str, Source] = {}
    if skipped:  # listed again, only to name them as validate does
        local = [path for path in paths if not remote.is_url(path)]
        walked = {os.path.abspath(source.path): source
                  for source in expand_paths(local, s.exclude, s.include_hidden)}
    unreadable = [(walked.get(path) or Source(input_report.as_given(path, paths)),
                   reasons[path], None) for path in skipped]
    result.inputs = input_report.report(unreadable, files=result.files + len(skipped),
                                        documents=result.documents, baseline=s.baseline)
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


@contextmanager
def _tables(paths: Sequence[str], db: str | os.PathLike[str] | None, *, findings: bool,
            config: ConfigSource, parquet: str | os.PathLike[str] | None = None,
            baseline: str | os.PathLike[str] | None = None
            ) -> Iterator[tuple[duckdb.DuckDBPyConnection, LoadResult | None]]:
    """A connection to ``db`` (read-only), to the dataset ``parquet``, or to memory loaded
    from ``paths``."""
    if sum(map(bool, (paths, db, parquet))) > 1:
        raise ConfigError("give export files, --db FILE or --parquet DIR, not both")
    if not paths and not db and not parquet:
        raise ConfigError("give export files to read, or --db FILE, or --parquet DIR")
    def fill(con: duckdb.DuckDBPyConnection) -> LoadResult:
        s = settings(config, baseline=baseline)
        return _with_inputs(load_into(con, list(paths), findings=findings, settings=s),
                            paths, s)

    with open_tables(db, parquet, fill) as opened:
        yield opened


def summary(name: str, paths: Iterable[str] | str = (), *, db: str | os.PathLike[str] | None = None,
            parquet: str | os.PathLike[str] | None = None, top: int = 10,
            by: Iterable[str] = (), every: str = "month", section: str | None = None,
            format: str = "table", output: str | os.PathLike[str] | None = None,
            config: ConfigSource = None,
            baseline: str | os.PathLike[str] | None = None) -> Answer:
    """A ready summary (``quizkit summary sizes|starts|overview|all``) of files, of ``db`` or
    of the Parquet dataset ``parquet``.

    ``by`` (sizes and starts): the groupings to show, default all; ``every``: the period of
    games over time (day, week, month); ``section``: only that one (``summary.section`` for
    ``all``). ``format`` ``html`` is one page with charts. ``output`` also writes the text
    there, atomically. Files are walked with the configuration's excludes (``config`` as for
    :func:`validate`); ``baseline`` absorbs the unreadable inputs' findings it holds.
    """
    names = summaries.SUMMARIES_ORDER if name == "all" else (name,)
    if any(n not in summaries.SUMMARIES for n in names):
        raise ConfigError(f"no summary {name!r} (summaries: "
                          f"{', '.join((*summaries.SUMMARIES, 'all'))})")
    paths = path_list(paths)
    if output is not None:
        resolve_output(output)  # a bad output fails now, not after loading
        refuse_inputs([output], [*paths, db, *_files_read(paths, config, baseline)],
                      read_trees=[parquet])
    groups, loaded = _summaries(names, paths, db, parquet, top=top, by=by, every=every,
                                config=config, baseline=baseline)
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
           baseline: str | os.PathLike[str] | None = None) -> Charts:
    """Every chart of the summaries (``quizkit summary charts``) as ``summary.section.svg``
    and ``.png`` in the directory ``out``."""
    check_directory(out)  # a bad directory fails now, not after loading; made when written
    paths = path_list(paths)
    groups, loaded = _summaries(summaries.SUMMARIES_ORDER, paths, db, parquet,
                                top=top, by=by, every=every, config=config,
                                baseline=baseline)
    return Charts(write_charts(groups, out,
                               inputs=[*paths, db, *_files_read(paths, config, baseline)],
                               read_trees=[parquet]), loaded, missing_charts(groups))


def _files_read(paths: Sequence[str], config: ConfigSource,
                baseline: str | os.PathLike[str] | None) -> tuple[str | os.PathLike[str], ...]:
    """The config file and baseline a summary reads: those of a run over files (a database or
    dataset is read without them)."""
    return settings(config, baseline=baseline).files_read if paths else ()


def _summaries(names: Sequence[str], paths: Sequence[str], db: str | os.PathLike[str] | None,
               parquet: str | os.PathLike[str] | None, *, top: int, by: Iterable[str],
               every: str, config: ConfigSource, baseline: str | os.PathLike[str] | None
               ) -> tuple[list[tuple[str, list[Section]]], LoadResult | None]:
    with _tables(paths, db, findings=False, config=config, parquet=parquet,
                 baseline=baseline) as (con, loaded):
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
          baseline: str | os.PathLike[str] | None = None) -> Answer:
    """Run one reading SQL statement (``quizkit query``) over files, ``db`` or the Parquet
    dataset ``parquet``.

    ``limit`` keeps at most that many rows; ``timeout`` (seconds) stops the query with
    :class:`~quizkit.analysis.query.QueryTimeout`. Reading files straight, the findings table
    is filled (with ``config`` applied) only when the SQL mentions it, and ``loaded`` is told
    what was loaded before the rows come. With ``write``, the rows are written to it in
    ``format`` batch by batch, in constant memory, and the answer holds no rows. Raises
    :class:`~quizkit.analysis.query.QueryError` for refused or failing SQL.
    """
    paths = path_list(paths)
    findings = bool(paths) and bool(_MENTIONS_FINDINGS.search(sql))
    with _tables(paths, db, findings=findings, config=config, parquet=parquet,
                 baseline=baseline) as (con, result):
        if result is not None and loaded is not None:
            loaded(result)
        lock_down(con)
        if write is not None:
            with stream(con, sql, limit=limit, timeout=timeout) as rows:
                write_rows(rows.columns, rows.batches, format, write)
            return Answer([], "", result)
        section = run_query(con, sql, limit=limit, timeout=timeout)
    return Answer([section], render([section], format, single=True), result)


_MENTIONS_FINDINGS = re.compile(r"\bfindings\b", re.IGNORECASE)


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


def diff(old: str | os.PathLike[str], new: str | os.PathLike[str], *,
         format: str | None = None, output: str | os.PathLike[str] | None = None,
         reports: Sequence[str] = (), color: str = "never",
         fail_on: Iterable[str] | str | None = None, fail_if: Iterable[str] = (),
         memory_limit: str | None = None, threads: int | None = None,
         jobs: int | None = None, scheduler: str | None = None,
         exclude: Iterable[str] = (), include_hidden: bool = False,
         notes: Callable[[str], None] | None = None) -> DiffResult:
    """What changed from the export ``old`` to ``new`` (``quizkit diff``): each a file, a
    directory, an ``s3://`` URL, a ``.duckdb`` file from ``load`` or a Parquet dataset.

    Records are matched by table and key (docs/tables.md); the result holds each one
    added, removed, changed (with its fields) or moved, the counts per table, the totals,
    and ``exit_code`` (0 the same, 1 different, 3 an input could not be read). ``fail_on``
    (kinds of change) and ``fail_if`` (thresholds such as ``"packages.removed > 1%"``)
    decide what counts as different. With ``format`` (``text``, ``json``, ``jsonl``,
    ``markdown``, ``html``) and ``output`` or ``reports`` (``FORMAT:PATH``), the reports
    are also written, as ``validate`` writes them (``output=None``: standard output).
    ``memory_limit`` and ``threads`` are DuckDB's; ``jobs`` processes read the exports
    (default: one per core), or with ``scheduler`` (``tcp://host:8786``) the workers of that
    Dask cluster; ``exclude`` and ``include_hidden`` are the walk's; ``notes`` hears of
    exclude patterns that matched nothing.
    """
    old, new = os.fspath(old), os.fspath(new)
    try:
        memory_limit = duckdb_size(memory_limit)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    writing = format is not None or output is not None or bool(reports)
    specs = diff_output.plan(format, None if output is None else os.fspath(output), reports,
                             input_files(old, new, exclude, include_hidden)) if writing else []
    result = run_diff(old, new, exclude=exclude, include_hidden=include_hidden,
                      fail_on=fail_on, fail_if=fail_if, memory_limit=memory_limit,
                      threads=threads, jobs=jobs, scheduler=scheduler, notes=notes)
    diff_output.write(result, specs, color=color)
    return result


# --- schemas, rules, samples -------------------------------------------------------------------

def schemas(*, records: bool = False) -> list[tuple[str, str, str]]:
    """(name, ``$id``, description) of each document kind's schema, and with ``records`` of
    each record schema too (named ``record:NAME``)."""
    everything = bundled()
    out = [(kind, schema_id(kind), everything[schema_id(kind)]["description"])
           for kind in KIND_NAMES]
    if records:
        out += [(f"record:{uri.rsplit('/', 1)[1].removesuffix('.json')}", uri, s["title"])
                for uri, s in sorted(everything.items())
                if uri.startswith(BASE_URI + "records/")]
    return out


def schema(name: str) -> dict:
    """The schema of a document kind, or of a record given as ``record:NAME``."""
    if name.startswith("record:"):
        uri = f"{BASE_URI}records/{name.removeprefix('record:')}.json"
    else:
        uri = schema_id(name)
    everything = bundled()
    if uri not in everything:
        raise ConfigError(f"unknown schema {name!r}; kinds: {', '.join(KIND_NAMES)} (records: "
                          "record:NAME, see `quizkit schema list --all`)")
    return everything[uri]


def export_schemas(out: str | os.PathLike[str], *,
                   profile: str | os.PathLike[str] | None = None
                   ) -> tuple[list[Path], tuple[str, ...]]:
    """Write the bundled schemas (records/, documents/) into ``out``, a profile's enums
    closed, for other tools; the files written and the enums the profile closed."""
    loaded = read_profile_file(profile)
    root = Path(out)
    written = []
    for uri, s in sorted(SchemaBook(loaded.enums).schemas.items()):
        target = root / uri.removeprefix(BASE_URI)
        make_directory(target.parent)
        if profile is not None:
            refuse_inputs([target], [profile])
        with atomic_write(target) as fh:
            fh.write(dumps_schema(s).decode())
        written.append(target)
    return written, tuple(name for name, _ in loaded.enums)


def rules(rule: str | None = None, *, format: str = "text", config: ConfigSource = None) -> str:
    """The rule catalog, or one rule explained, as text, JSON or Markdown (``quizkit rules``),
    with the team's checks of the configuration (``config`` as for :func:`validate`)."""
    if format not in rule_docs.FORMATS:
        raise ConfigError(f"unknown format {format!r} (use {', '.join(rule_docs.FORMATS)})")
    team = settings(config).team_rules
    if rule is None:
        return rule_docs.render([*REGISTRY.rules, *team], format)
    found = [r for r in team if rule in (r.name, r.code, r.code.lower())]
    try:
        return rule_docs.render_one(found[0] if found else REGISTRY.get(rule), format)
    except KeyError:
        raise ConfigError(f"no rule {rule!r} (see `quizkit rules`)") from None


def check(paths: Iterable[str] | str = (), *, db: str | os.PathLike[str] | None = None,
          parquet: str | os.PathLike[str] | None = None,
          store_failures: str | os.PathLike[str] | None = None,
          failures_limit: int = FAILURES_LIMIT, **options: object) -> CheckResult:
    """The document rules and the configuration's own checks (``quizkit check``) over
    ``paths``, or the team's checks over ``db`` or the dataset ``parquet``; ``options`` are
    :func:`validate`'s. ``store_failures``: a directory for each ``sql`` check's failing
    rows (``CODE.parquet``, at most ``failures_limit``). ``CheckResult.report`` is the one
    report; the exit code is ``settings(...).exit_code(result.report)``."""
    return validate(paths, run=partial(  # type: ignore[arg-type, return-value]
        run_check, db=db, parquet=parquet, store_failures=store_failures,
        failures_limit=failures_limit), **options)


check.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
    *(p for p in inspect.signature(check).parameters.values() if p.name != "options"),
    *(p for p in inspect.signature(validate).parameters.values()
      if p.name not in ("paths", "run"))])


def generate(out: str | os.PathLike[str], *, packages: int = 100, seed: int = 0,
             broken: float = 0.0, gzip_share: float = 0.0, jsonl: bool = False,
             workers: int | None = None, force: bool = False,
             shape: str = "indented") -> Summary:
    """Write a deterministic corpus (``quizkit samples generate``); ``force`` replaces a
    corpus written before in ``out``; ``shape``: indented, compact or lines."""
    try:
        return generate_corpus(out, packages=packages, seed=seed, broken=broken,
                               gzip_share=gzip_share, jsonl=jsonl, workers=workers,
                               overwrite=force, shape=shape)
    except FileExistsError as exc:
        raise ConfigError(str(exc)) from None


#: Each CLI command → its API function (the test of options walks this).
COMMANDS: dict[str, Callable[..., object]] = {
    "validate": validate, "check": check, "diff": diff, "load": load, "query": query,
    "export": export,
    "summary sizes": summary, "summary starts": summary, "summary overview": summary,
    "summary all": summary, "summary charts": charts,
    "enums infer": infer, "rules": rules, "samples generate": generate,
    "schema list": schemas, "schema show": schema, "schema export": export_schemas,
    "schema editor": editor_settings, "history": history,
}
