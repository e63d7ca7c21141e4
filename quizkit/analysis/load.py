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

DuckDB is handed only paths it cannot expand: a file whose name holds anything but plain
characters (``*``, ``?``, ``[``, ``{``, a comma, a quote, a space, a newline, non-ASCII) is read
through a link with a plain name in a private directory (an object of object storage through a
copy), and its rows get the real name back. Such a name is thus one file, loaded once.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.aftermath import database_state, dataset_parts, dataset_state, table_rows
from quizkit.analysis.connect import DatabaseError, connect, lock_down, one_line, run
from quizkit.analysis.dataset import Part, dataset_writer, parquet_of, part_of, write_dataset
from quizkit.analysis.files import ExportFile, InputError, Skipped, expand, inspect, is_export
from quizkit.analysis.readers import (
    DERIVED_SQL,
    DOCUMENT,
    EMPTY_ARRAY_KIND,
    FORMATS,
    JSONL_ARRAYS_SQL,
    RAW_DDL,
    SHAPE,
    assign_kinds,
    objects_sql,
    whole_files_sql,
)
from quizkit.analysis.tables import BY_NAME, SCHEMA_VERSION, TABLES
from quizkit.catalog.findings import Report
from quizkit.checks.input_report import InputReport
from quizkit.checks.runner import run as validate_run
from quizkit.inputs import remote
from quizkit.inputs.batching import consecutive_runs
from quizkit.inputs.walk import WalkRules
from quizkit.settings.config import Settings

Progress = Callable[[str, float], None]
#: Called after each step of a load with its name (``_Clock.tick``).
Tick = Callable[[str], None]
#: Called after each batch with its files, and the files and bytes of the whole load
#: (a progress display).
OnBatch = Callable[[list["Input"], int, int], None]

_MALFORMED_AT = re.compile(r"Malformed JSON.*? at byte (\d+)[^:]*: ([^.]+)")
_IN_FILE = re.compile(r' ?(?:in|of) file "[^"]+",?')

#: Bytes of (uncompressed) input staged at once: what bounds a load's memory. Each batch costs
#: a fixed share of statements and a fresh working set; 128 MB batches took 20-35% less CPU
#: than 48 MB ones at 4x the 1,000-package corpus, for ~140 MB more peak RSS (docs/performance).
BATCH_BYTES = 128 << 20
#: Files staged at once, at most (document numbers keep 16 bits for the file).
BATCH_FILES = 4096
#: DuckDB's memory limit when none is given.
DEFAULT_MEMORY_LIMIT = "512MB"


class LoadError(Exception):
    """The load failed and was rolled back (one-line message)."""


@dataclass
class LoadResult:
    """What a load did. ``rows`` counts the rows inserted per table."""

    files: int = 0
    documents: int = 0
    unknown_documents: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    findings: int | None = None
    timings: dict[str, float] = field(default_factory=dict)
    #: The exclude patterns (of the settings) that excluded nothing.
    unmatched: list[str] = field(default_factory=list)
    #: The files read and the inputs that could not be, as ``validate`` reports them (set by
    #: :mod:`quizkit.api` through :func:`quizkit.checks.input_report.report`).
    inputs: InputReport | None = None


@dataclass(frozen=True, slots=True)
class Input:
    """One export file to load: ``name`` is what the ``file`` columns hold (an absolute path or
    a URL), ``size`` its size as listed."""

    name: str
    size: int


@dataclass
class Candidates:
    """The candidate rows of one batch (see :mod:`quizkit.analysis.transform`), as Arrow
    tables by table name (``files`` included), and the files it skipped.

    ``split`` holds the candidates of the :data:`transform.BY_VERSION` tables apart, in
    parts by their version id, as Parquet, and ``keys`` the :data:`transform.PACKAGE_KEYS`
    (see :func:`candidates_of`); the split tables are then not in ``tables``.
    """

    tables: dict[str, object]
    skipped: list[Skipped]
    split: list[dict[str, Part]] = field(default_factory=list)
    keys: Part | None = None


class Runner(Protocol):
    """Where the per-file work of a load runs: here, or on a cluster
    (quizkit.cluster.checking)."""

    def report(self, paths: list[str]) -> Report: ...

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        """The batches of ``inputs`` to stage, of at most ``most`` bytes each (or one larger
        file)."""
        ...

    def candidates(self, batches: list[list[Input]]) -> Iterator[tuple[int, Candidates]]:
        """Stage ``batches``: the candidate rows of each, in order. A runner may start the
        work when called, before the result is iterated (after :meth:`report`)."""
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


def list_inputs(paths: Sequence[str | os.PathLike[str]],
                skipped: list[Skipped] | None = None, rules: WalkRules | None = None,
                unmatched: list[str] | None = None) -> list[Input]:
    """Export files under ``paths`` (files, directories, object-storage URLs), unique.

    Directories are walked as every command walks them (:mod:`quizkit.inputs.walk`), with ``rules``
    (the settings' excludes and hidden-entry policy, as ``validate`` walks); what the walk
    found unreadable (never opened) is added to ``skipped``, the exclude patterns that
    excluded nothing under any path to ``unmatched``.

    Raises :class:`InputError` for a path or URL that does not exist.
    """
    found: dict[str, int] = {}
    local = [os.fspath(raw) for raw in paths if not remote.is_url(os.fspath(raw))]
    never = set(rules.exclude if rules is not None and local else ())
    for raw in paths:
        text = os.fspath(raw)
        if remote.is_url(text):
            try:
                found.update(remote.list_files(text, is_export))
            except remote.RemoteError as exc:
                raise InputError(str(exc)) from None
        else:
            files, unreadable, unmatched_here = expand([text], rules)
            never &= set(unmatched_here)
            for path in files:
                try:
                    found[path] = os.stat(path).st_size
                except OSError:
                    found[path] = 0  # reading it says why
            if skipped is not None:  # the walk's own finds: a broken link, a FIFO, ...
                skipped.extend(unreadable)
    if unmatched is not None and rules is not None:
        unmatched.extend(p for p in rules.exclude if p in never)
    return [Input(name, size) for name, size in sorted(found.items())]


def batches(inputs: list[Input], max_bytes: int = BATCH_BYTES,
            max_files: int = BATCH_FILES, *, parts: int = 0,
            min_bytes: int = 0) -> list[list[Input]]:
    """Consecutive runs of ``inputs`` of at most ``max_bytes`` (or one larger file) and at
    most ``max_files`` files. With ``parts``, each run also holds at most 1/``parts`` of the
    bytes left (but ``min_bytes`` at least): the runs shrink towards the end, so that
    ``parts`` workers taking them in turn finish close together."""
    return consecutive_runs(inputs, [i.size for i in inputs], max_weight=max_bytes,
                            max_items=max_files, parts=parts, min_weight=min_bytes)


def offset_of(batch_no: int) -> int:
    """The first document number of batch ``batch_no`` (documents of a batch are numbered
    file_no * 2**32 + n, file_no < 2**16)."""
    return int(batch_no) << 48


@contextmanager
def configured(con: duckdb.DuckDBPyConnection, *, memory_limit: str | None = None,
               threads: int | None = None) -> Iterator[None]:
    """The connection with a memory limit and a private spill directory (then restored)."""
    with ExitStack() as stack:
        spill = stack.enter_context(tempfile.TemporaryDirectory(prefix="quizkit-spill-"))
        try:
            stack.enter_context(_setting(con, "temp_directory", _sql_text(spill)))
            stack.enter_context(_setting(con, "memory_limit",
                                         _sql_text(memory_limit or DEFAULT_MEMORY_LIMIT)))
            if threads:
                stack.enter_context(_setting(con, "threads", str(int(threads))))
        except duckdb.Error as exc:
            raise DatabaseError(f"bad --memory-limit or --threads: {one_line(exc)}") from None
        yield


def _sql_text(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


class LocalRunner:
    """The per-file work of a load in this process (validation with all cores)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, settings: Settings) -> None:
        self.con = con
        self.settings = settings

    def report(self, paths: list[str]) -> Report:
        return validate_run(paths, self.settings)

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        return batches(inputs, most)

    def candidates(self, batches: list[list[Input]]) -> Iterator[tuple[int, Candidates]]:
        for batch_no, batch in enumerate(batches):
            skipped = stage_batch(self.con, batch, offset_of(batch_no))
            yield batch_no, Candidates({}, skipped)

    def pick(self, con: duckdb.DuckDBPyConnection, tick: Tick) -> dict[str, list[Part]]:
        pick(con, transform.PICKS, tick)
        return {}


def pick(con: duckdb.DuckDBPyConnection, picks: Sequence[tuple[str, str]], tick: Tick) -> None:
    """Run ``picks`` (of :mod:`quizkit.analysis.transform`) in ``con``."""
    # No statement of the picks depends on the order of rows.
    with _setting(con, "preserve_insertion_order", "false"):
        for name, sql in picks:
            run(con, sql)
            tick(f"pick:{name}")


def load(con: duckdb.DuckDBPyConnection, paths: Sequence[str | os.PathLike[str]], *,
         findings: bool = True, settings: Settings | None = None,
         progress: Progress | None = None,
         memory_limit: str | None = None, threads: int | None = None,
         on_batch: OnBatch | None = None, runner: Runner | None = None,
         batch_bytes: int = BATCH_BYTES, seal: bool = False) -> LoadResult:
    """Load the export files under ``paths`` into the tables of ``con``.

    ``settings`` (rule selection, severities, per-path ignores, profile, limits) shape the
    findings table as they shape ``quizkit validate``'s report, and its excludes and
    hidden-entry policy the walk of directories, as ``validate`` walks; ``None``: the
    defaults.

    ``progress(step, seconds)`` is called after each step and ``on_batch(batch, total_files,
    total_bytes)`` after each batch staged; an exception either raises aborts the load like
    any other failure (the database is left unchanged). ``runner`` runs the per-file work
    elsewhere (a Dask cluster). ``seal`` turns the connection's file and network access off
    once the inputs are read, for good (a connection closed after this load).
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
            _setting(con, "preserve_insertion_order", "true"), \
            _setting(con, "checkpoint_threshold", "'0B'"):
        if ready:  # the rows a cluster picks are written as parts of a dataset only
            raise LoadError("this runner's loads go into a Parquet dataset (load_parquet)")
        if seal:  # the inputs are read: the rest is the database's own work
            lock_down(con)
        _replace(con, validated=[i.name for i in inputs], result=result, clock=clock)
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
    inputs = list_inputs(paths, result.skipped, walk, result.unmatched)
    total_bytes = sum(i.size for i in inputs)
    groups = runner.batches(inputs, batch_bytes)
    create_candidates(con)
    staged = runner.candidates(groups)  # a cluster starts staging now, beside the validation
    clock.tick("discover")
    report_rows = None
    if findings:
        report_rows = _findings_columns(runner.report([os.fspath(p) for p in paths]))
        clock.tick("validate")
    for batch_no, cands in staged:
        add_candidates(con, cands)
        result.skipped.extend(cands.skipped)
        clock.tick("read")
        if on_batch is not None:
            on_batch(groups[batch_no], len(inputs), total_bytes)
    ready = runner.pick(con, clock.tick)
    run(con, "CREATE OR REPLACE TEMP TABLE new_files AS SELECT *, "
             "CAST(now() AT TIME ZONE 'UTC' AS TIMESTAMP) AS loaded_at FROM cand_files")
    _stage_findings(con, report_rows)
    result.findings = None if report_rows is None else len(report_rows[0])
    return inputs, ready


def stage_batch(con: duckdb.DuckDBPyConnection, batch: list[Input], offset: int) -> list[Skipped]:
    """Stage one batch into the ``cand_*`` temp tables of ``con``; the files it skipped.

    Files whose names DuckDB could expand (glob, brace or odd characters) are reached through
    a private directory of links (copies for URLs) with plain names; the rows get the real
    names back.
    """
    with tempfile.TemporaryDirectory(prefix="quizkit-batch-") as work:
        links, skipped = _materialize(batch, work)
        files, bad = inspect(list(links))
        skipped.extend(Skipped(links[b.path], b.reason) for b in bad)
        files, bad = _stage(con, files)
        skipped.extend(Skipped(links[b.path], b.reason) for b in bad)
        assign_kinds(con)
        renamed = {local: name for local, name in links.items() if local != name}
        if renamed:
            run(con, "UPDATE raw SET file = m.name FROM (SELECT unnest($local) AS local, "
                     "unnest($name) AS name) m WHERE raw.file = m.local",
                {"local": list(renamed), "name": list(renamed.values())})
        # No candidate statement depends on the order of rows (the keys say which wins).
        with _setting(con, "preserve_insertion_order", "false"):
            for table, sql in transform.candidate_statements(offset):
                _append(con, f"cand_{table}", sql)
        _append(con, "cand_files", _files_sql(), {
            "paths": [links[f.path] for f in files] or [""],
            "containers": [f.container for f in files] or [""],
            "compressed": [f.compressed for f in files] or [False],
            "sizes": [f.size for f in files] or [0],
            "n": len(files), "empty_array_kind": EMPTY_ARRAY_KIND})
        run(con, "DROP TABLE IF EXISTS temp.raw")
    return skipped


def _files_sql() -> str:
    return """
        SELECT l.file, l.format, l.compressed, l.bytes,
               coalesce(r.documents, 0) AS documents,
               CASE WHEN l.format IN ('json-array', 'jsonl') AND r.documents IS NULL
                    THEN $empty_array_kind ELSE r.kind END AS kind,
               coalesce(r.unknown, 0) AS unknown_documents
        FROM (SELECT unnest($paths) AS file, unnest($containers) AS format,
                     unnest($compressed) AS compressed, unnest($sizes)::BIGINT AS bytes
              LIMIT $n) l
        LEFT JOIN (SELECT file, count(*) AS documents,
                          string_agg(DISTINCT kind, ',' ORDER BY kind) AS kind,
                          count(*) FILTER (WHERE kind IS NULL) AS unknown
                   FROM raw GROUP BY file) r USING (file)
    """


def _append(con: duckdb.DuckDBPyConnection, table: str, sql: str,
            params: dict | None = None) -> None:
    """Rows of ``sql`` added to temp table ``table`` (see :func:`create_candidates`)."""
    run(con, f"INSERT INTO {table} {sql}", params)


def _link_name(i: int, name: str) -> str:
    """A plain name that reads like ``name``: the same suffixes, as quizkit tells formats."""
    lower = name.lower()
    gz = lower.endswith(".gz")
    base = lower[:-3] if gz else lower
    suffix = ".jsonl" if base.endswith((".jsonl", ".ndjson")) else ".json"
    return f"f{i}{suffix}{'.gz' if gz else ''}"


def _materialize(batch: list[Input], work: str) -> tuple[dict[str, str], list[Skipped]]:
    """Links (or, for URLs, copies) of the batch's files in ``work``: local path -> name."""
    links: dict[str, str] = {}
    skipped: list[Skipped] = []
    for i, item in enumerate(batch):
        local = os.path.join(work, _link_name(i, item.name))
        if remote.is_url(item.name):
            try:
                remote.fetch(item.name, local)
            except remote.RemoteError as exc:
                skipped.append(Skipped(item.name, f"cannot be read: {exc}"))
                continue
        elif _plain(item.name):
            local = item.name  # nothing in it DuckDB would expand: read it by its name
        else:
            os.symlink(os.path.abspath(item.name), local)
        links[local] = item.name
    return links, skipped


#: Characters of a path that DuckDB reads as it is (an absolute path made of these only).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=@%:")


def _plain(path: str) -> bool:
    """Whether DuckDB would read ``path`` literally: absolute, and no glob, brace, list,
    quote, space, control or non-ASCII character (such names are read through a link)."""
    return path.startswith("/") and _PLAIN.issuperset(path)


def add_candidates(con: duckdb.DuckDBPyConnection, cands: Candidates) -> None:
    """Candidate rows computed elsewhere (a cluster worker) added to ``cand_*`` of ``con``."""
    for table, rows in cands.tables.items():
        con.register("quizkit_rows", rows)
        try:
            _append(con, f"cand_{table}", "SELECT * FROM quizkit_rows")
        finally:
            con.unregister("quizkit_rows")


def candidates_of(batch: list[Input], offset: int, *, split: int,
                  memory_limit: str | None = None, threads: int | None = None) -> Candidates:
    """The candidate rows of one batch, computed in a connection of their own (the work of
    a cluster worker): flat rows, never documents. The :data:`transform.BY_VERSION` tables
    come in ``split`` parts by the hash of their version id (every batch puts a version id
    in the same part), so that each part can be picked on its own; as Parquet compressed
    with zstd, which costs what making Arrow tables of them costs and is a tenth of their
    size (for a worker to keep until the parts are picked, and to send)."""
    con = connect(None)
    try:
        with configured(con, memory_limit=memory_limit, threads=threads):
            create_candidates(con)
            skipped = stage_batch(con, batch, offset)
            tables = {t: con.sql(f"SELECT * FROM cand_{t}").to_arrow_table()
                      for t in (*transform.CANDIDATES, "files") if t not in transform.BY_VERSION}
            parts = [{t: parquet_of(con, f"SELECT * FROM cand_{t} "
                                         f"WHERE hash({key}) % {int(split)} = {p}",
                                    ", COMPRESSION zstd")
                      for t, key in transform.BY_VERSION.items()} for p in range(split)]
            keys = parquet_of(con, transform.PACKAGE_KEYS, ", COMPRESSION zstd")
        return Candidates(tables, skipped, parts, keys)
    except duckdb.Error as exc:
        raise LoadError(one_line(exc)) from None
    finally:
        con.close()


def versions_of(split: Sequence[dict[str, Part]], keys: Sequence[Part], *,
                memory_limit: str | None = None,
                threads: int | None = None) -> tuple[dict[str, Part], list[str | None]]:
    """The winning versions and entities among one part of every batch's split candidates,
    given every batch's package keys (:func:`candidates_of`; the work of a cluster worker):
    a part of each :data:`transform.BY_VERSION` table, and the ids of the new versions (what
    replaces rows already loaded)."""
    con = connect(None)
    try:
        with configured(con, memory_limit=memory_limit, threads=threads), \
                tempfile.TemporaryDirectory(prefix="quizkit-split-") as work:
            given = {"packages": list(keys),
                     **{t: [tables[t] for tables in split] for t in transform.BY_VERSION}}
            for table, parts in given.items():
                files = [os.path.join(work, f"{table}-{i}.parquet") for i in range(len(parts))]
                for name, part in zip(files, parts, strict=True):
                    Path(name).write_bytes(part.data)
                listed = ", ".join(_sql_text(f) for f in files)  # a view takes no parameters
                run(con, f"CREATE TEMP VIEW cand_{table} AS SELECT * FROM read_parquet([{listed}])")
            pick(con, (transform.PACKAGE_WINNERS, *transform.VERSION_PICKS), lambda _step: None)
            parts = {t: part_of(con, t, transform.select_new(t)) for t in transform.BY_VERSION}
            ids = [i for (i,) in run(con, "SELECT id FROM new_versions")]
        return parts, ids
    except duckdb.Error as exc:
        raise LoadError(one_line(exc)) from None
    finally:
        con.close()


def create_candidates(con: duckdb.DuckDBPyConnection) -> None:
    """The empty ``cand_*`` temp tables, typed by their statements, that every batch then
    appends to (created once: a lookup per batch and table cost more than the batch's
    smaller statements)."""
    run(con, RAW_DDL)
    for table, sql in transform.candidate_statements(0):
        run(con, f"CREATE OR REPLACE TEMP TABLE cand_{table} AS {sql} LIMIT 0")
    run(con, f"CREATE OR REPLACE TEMP TABLE cand_files AS {_files_sql()}",
        {"paths": [""], "containers": [""], "compressed": [False], "sizes": [0], "n": 0,
         "empty_array_kind": EMPTY_ARRAY_KIND})
    run(con, "DROP TABLE IF EXISTS temp.raw")


def _stage(con: duckdb.DuckDBPyConnection,
           files: list[ExportFile]) -> tuple[list[ExportFile], list[Skipped]]:
    """Read the files into temp table ``raw``; files DuckDB cannot parse are skipped.

    Plain (not compressed) files of one document or one array of documents are read whole
    and typed in one pass (:func:`_read_whole`); the rest, and the whole files that did not
    parse as one value, go through DuckDB's document splitter (:func:`_read_objects`), which
    fails on a malformed file: then each of them is read alone to find the bad ones, which
    are skipped.
    """
    run(con, RAW_DDL)
    whole = [f for f in files if f.container in ("json", "json-array") and not f.compressed]
    if whole:
        try:
            _read_whole(con, whole)
        except duckdb.Error:  # e.g. a file gone since it was listed: the careful path
            run(con, "DELETE FROM raw")
            whole = []
    typed = {file for (file,) in run(con, "SELECT DISTINCT file FROM raw")}
    rest = [f for f in files if f.path not in typed]
    bad: list[Skipped] = []
    try:
        bad += _read_objects(con, rest, first_doc_no=(len(whole) + 1) << 32)
    except duckdb.Error as first_error:
        good, bad = _screen(con, rest)
        if not bad:
            raise LoadError(one_line(first_error)) from None
        bad += _read_objects(con, good, first_doc_no=(len(whole) + 1) << 32)
    skipped = {b.path for b in bad}
    return [f for f in files if f.path not in skipped], bad


# Files up to this size are typed in batches (see _read_whole).
_SMALL_FILE = 64 << 10
_BATCH = 256


def _read_whole(con: duckdb.DuckDBPyConnection, files: list[ExportFile]) -> None:
    """Files of one document, or one array of documents, read and typed into ``raw``.

    A file whose content is not one JSON value gets no row (it is left for the splitter).
    The document of the i-th file is numbered i * 2**32 + 1, the elements of an array
    i * 2**32 + 1, 2, ... in order (see readers). DuckDB hands the cast one file at a time,
    and each call costs about 0.1 ms besides the parse (the cast sets up the whole
    ``DOCUMENT`` type); small files are therefore gathered in lists of :data:`_BATCH` and
    each list is cast at once, which halves their time. For large files the lists only add
    a copy. All are read by one statement, each kind as a union of one scan per thread
    (:func:`_lanes`), so that the two cores stay busy to the end of the reading.
    """
    (threads,) = run(con, "SELECT current_setting('threads')")[0]
    arrays = [f for f in files if f.container == "json-array"]
    small = [f for f in files if f.container == "json" and f.content_size <= _SMALL_FILE]
    large = [f for f in files if f.container == "json" and f.content_size > _SMALL_FILE]
    # container 'retry' marks a file that did not parse; its row is deleted below.
    container = "CASE WHEN w.json IS NULL THEN 'retry' ELSE 'json' END"
    selects = []
    params: dict[str, list[str]] = {}
    if small:
        scans, more = _lanes("small", small, threads)
        params.update(more)
        selects.append(f"""
            SELECT file, container, 1 AS doc_no, unnest(doc), shape
            FROM (SELECT unnest(files) AS file, unnest(containers) AS container,
                         unnest(TRY_CAST(docs AS {DOCUMENT}[])) AS doc,
                         unnest(TRY_CAST(docs AS {SHAPE}[])) AS shape
                  FROM (SELECT list(w.filename) AS files, list({container}) AS containers,
                               list(w.json) AS docs
                        FROM {scans} w
                        GROUP BY hash(w.filename) % {len(small) // _BATCH + 1}))""")
    if large:
        scans, more = _lanes("large", large, threads)
        params.update(more)
        selects.append(f"""
            SELECT w.filename AS file, {container} AS container, 1 AS doc_no,
                   unnest(TRY_CAST(w.json AS {DOCUMENT})), TRY_CAST(w.json AS {SHAPE}) AS shape
            FROM {scans} w""")
    if arrays:
        # An array that does not parse gives no row at all, so it is left for the splitter.
        scans, more = _lanes("arrays", arrays, threads)
        params.update(more)
        selects.append(f"""
            SELECT file, 'json-array' AS container, doc_no, unnest(doc), shape
            FROM (SELECT file, unnest(docs) AS doc, unnest(shapes) AS shape,
                         generate_subscripts(docs, 1) AS doc_no
                  FROM (SELECT w.filename AS file, TRY_CAST(w.json AS {DOCUMENT}[]) AS docs,
                               TRY_CAST(w.json AS {SHAPE}[]) AS shapes
                        FROM {scans} w))""")
    # preserve_insertion_order on would make the scans of the union run one after the other
    # and, worse, keep each file's rows apart until the statement ends (20x slower, GBs).
    with _setting(con, "preserve_insertion_order", "false"):
        union = "\nUNION ALL BY NAME\n".join(selects)
        run(con, f"INSERT INTO raw BY NAME SELECT *, {DERIVED_SQL} FROM ({union})", params)
    run(con, "DELETE FROM raw WHERE container = 'retry'")
    # File numbers in a statement of its own: a join in the one above would copy every
    # document.
    run(con, """
        UPDATE raw SET doc_no = (n.file_no << 32) + raw.doc_no
        FROM (SELECT unnest($paths) AS file, generate_subscripts($paths, 1) AS file_no) n
        WHERE raw.file = n.file
    """, {"paths": [f.path for f in files]})


@contextmanager
def _setting(con: duckdb.DuckDBPyConnection, name: str, value: str) -> Iterator[None]:
    """DuckDB setting ``name`` set to ``value`` (SQL) for the statements inside, then restored."""
    (before,) = run(con, f"SELECT current_setting('{name}')")[0]
    run(con, f"SET {name} = {value}")
    try:
        yield
    finally:
        if isinstance(before, bool):
            restore = "true" if before else "false"
        else:
            restore = "'" + str(before).replace("'", "''") + "'"
        with suppress(duckdb.Error):  # the connection is unusable; the first error tells why
            run(con, f"SET {name} = {restore}")


def _lanes(name: str, files: list[ExportFile], threads: int) -> tuple[str, dict[str, list[str]]]:
    """``read_blob`` over ``files`` as a union of one scan per thread, balanced by size.

    DuckDB reads the files of one ``read_blob`` scan on one thread; the scans of a
    ``UNION ALL`` run side by side (with ``preserve_insertion_order`` off).
    """
    lanes: list[list[ExportFile]] = [[] for _ in range(max(1, min(int(threads), len(files))))]
    loads = [0] * len(lanes)
    for f in sorted(files, key=lambda f: -f.content_size):
        i = loads.index(min(loads))
        lanes[i].append(f)
        loads[i] += f.content_size + 4096
    params = {f"{name}{i}": [f.path for f in lane] for i, lane in enumerate(lanes)}
    union = " UNION ALL ".join(f"SELECT * FROM {whole_files_sql(p)}" for p in params)
    return f"({union})", params


#: Why a ``.json`` file that holds several documents one after the other is skipped:
#: ``validate`` reads such a file as one document with text after its end (invalid JSON),
#: where DuckDB's splitter would return each document.
SEVERAL_DOCUMENTS = ("malformed JSON: more text after the end of the first document (only a "
                     "JSON Lines file, named .jsonl or .ndjson, holds several documents)")


def _read_objects(con: duckdb.DuckDBPyConnection, files: list[ExportFile], *,
                  first_doc_no: int, clock: _Clock | None = None) -> list[Skipped]:
    """Split the files into documents, then type them into ``raw`` (numbered in file order).

    A file that is not JSON Lines holds one JSON value, as ``validate`` reads it: one that
    splits into several is skipped (returned), never loaded in part.
    """
    params: dict[str, list[str]] = {}
    parts = []
    for container in FORMATS:
        chosen = [f for f in files if f.container == container]
        if chosen:
            name = container.replace("-", "_")
            params[name] = [f.path for f in chosen]
            parts.append(f"SELECT filename AS file, json, '{container}' AS container "
                         f"FROM {objects_sql(container, name, _max_object(chosen))}")
    if not parts:
        return []
    union = "\nUNION ALL\n".join(parts)
    # Two statements on purpose: see quizkit.analysis.readers.
    run(con, f"CREATE OR REPLACE TEMP TABLE docs AS {union}", params)
    several = [file for (file,) in run(con, """
        SELECT file FROM docs WHERE container = 'json' GROUP BY file HAVING count(*) > 1
        ORDER BY file""")]
    if several:
        run(con, "DELETE FROM docs WHERE file IN (SELECT unnest($several))",
            {"several": several})
    if clock is not None:
        clock.tick("read:split")
    run(con, f"""
        INSERT INTO raw BY NAME
        SELECT *, {DERIVED_SQL} FROM (
            SELECT file, container, {int(first_doc_no) - 1} + row_number() OVER () AS doc_no,
                   unnest(TRY_CAST(json AS {DOCUMENT})), TRY_CAST(json AS {SHAPE}) AS shape
            FROM ({JSONL_ARRAYS_SQL}))
    """)
    run(con, "DROP TABLE docs")
    if clock is not None:
        clock.tick("read:type")
    return [Skipped(file, SEVERAL_DOCUMENTS) for file in several]


def _max_object(files: list[ExportFile]) -> int:
    """No document is larger than its file: the largest file, at least DuckDB's 16 MiB."""
    return max(16 << 20, max(f.content_size for f in files) + 1)


def _screen(con: duckdb.DuckDBPyConnection,
            files: list[ExportFile]) -> tuple[list[ExportFile], list[Skipped]]:
    """Read each file alone to find the ones that break the reader, with DuckDB's reason."""
    good: list[ExportFile] = []
    bad: list[Skipped] = []
    for f in files:
        try:
            sql = f"SELECT count(*) FROM {objects_sql(f.container, 'f', _max_object([f]))}"
            run(con, sql, {"f": [f.path]})
            good.append(f)
        except duckdb.Error as exc:
            bad.append(Skipped(f.path, _reason(one_line(exc))))
    return good, bad


def _reason(message: str) -> str:
    """DuckDB's reader error, short and without the file name (the warning names it)."""
    m = _MALFORMED_AT.search(message)
    if m:
        return f"malformed JSON at byte {m.group(1)}: {m.group(2)}"
    message = _IN_FILE.sub("", message.split(": ", 1)[-1])
    return f"cannot be read: {message}"


def _findings_columns(report: Report) -> tuple[list, ...]:
    """The findings of ``report`` as column lists (see the ``findings`` table).

    The report comes from the paths as the user gave them, so that cross-file findings
    (which depend on the order files are met) are the ones ``quizkit validate PATH...``
    reports.
    """
    cols: tuple[list, ...] = tuple([] for _ in range(9))
    for f in report.findings:
        path = f.path if not f.path or remote.is_url(f.path) else os.path.abspath(f.path)
        values = (path, f.record, f.pointer, f.line, f.column, f.rule, f.code,
                  str(f.severity), f.message)
        for col, value in zip(cols, values, strict=True):
            col.append(value)
    return cols


def _stage_findings(con: duckdb.DuckDBPyConnection, rows: tuple[list, ...] | None) -> None:
    names = BY_NAME["findings"].column_names
    types = [c.type for c in BY_NAME["findings"].columns]
    if not rows or not rows[0]:
        cols = ", ".join(f"NULL::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
        run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols} LIMIT 0")
        return
    cols = ", ".join(f"unnest(${n})::{t} AS \"{n}\"" for n, t in zip(names, types, strict=True))
    run(con, f"CREATE OR REPLACE TEMP TABLE new_findings AS SELECT {cols}",
                dict(zip(names, rows, strict=True)))


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables that are missing; refuse a database whose tables differ."""
    existing: dict[str, list[str]] = {}
    for table, column in run(con,
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'main' AND table_catalog = current_database() "
            "ORDER BY table_name, ordinal_position"):
        existing.setdefault(table, []).append(column)
    for t in TABLES:
        if t.name in existing and existing[t.name] != t.column_names:
            raise DatabaseError(
                f"table {t.name!r} in this database does not have quizkit's columns "
                f"(schema {SCHEMA_VERSION}); load into a new database file")
        run(con, t.ddl())
    rows = run(con, "SELECT value FROM quizkit_meta WHERE key = 'schema_version'")
    row = rows[0] if rows else None
    if row is None:
        run(con, "INSERT INTO quizkit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
    elif row[0] != SCHEMA_VERSION:
        raise DatabaseError(f"this database has table schema {row[0]}, quizkit writes "
                            f"{SCHEMA_VERSION}; load into a new database file")


def _replace(con: duckdb.DuckDBPyConnection, *, validated: list[str], result: LoadResult,
             clock: _Clock) -> None:
    loaded = "file IN (SELECT file FROM new_files)"
    run(con, "BEGIN TRANSACTION")
    try:
        ensure_schema(con)
        for table, extra in transform.REPLACES.items():
            run(con, f'DELETE FROM "{table}" WHERE {loaded} OR {extra}')
            ((result.rows[table],),) = run(
                con, f'INSERT INTO "{table}" BY NAME {transform.select_new(table)}')
            clock.tick(f"write:{table}")
        run(con, "DELETE FROM findings WHERE file IN (SELECT unnest($v)) OR "
                    + loaded, {"v": validated or [""]})
        run(con, "INSERT INTO findings BY NAME SELECT * FROM new_findings")
        run(con, f"DELETE FROM files WHERE {loaded}")
        ((result.rows["files"],),) = run(con, "INSERT INTO files BY NAME SELECT * FROM new_files")
        clock.tick("write:findings,files")
        _tally(con, result)
    except BaseException:
        run(con, "ROLLBACK")
        raise
    run(con, "COMMIT")
    clock.tick("commit")


def _tally(con: duckdb.DuckDBPyConnection, result: LoadResult) -> None:
    ((result.files, result.documents, result.unknown_documents),) = run(
        con, "SELECT count(*), coalesce(sum(documents), 0), "
             "coalesce(sum(unknown_documents), 0) FROM new_files")


def drop_temps(con: duckdb.DuckDBPyConnection) -> None:
    """Free the temp tables of a load."""
    for name in transform.TEMP_TABLES:
        try:
            run(con, f"DROP TABLE IF EXISTS temp.{name}")
        except duckdb.Error:  # the connection is unusable; nothing left to free
            return


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
                 batch_bytes: int = BATCH_BYTES) -> LoadResult:
    """Load ``paths`` into the Parquet dataset ``root`` (see quizkit.analysis.dataset), with
    the options of :func:`load`. Staging happens in a private in-memory database that
    spills to a temporary directory."""
    con = connect(None)
    try:
        with dataset_writer(root):
            before = dataset_parts(root)
            try:
                result = _load_dataset(con, root, paths, findings=findings, settings=settings,
                                       progress=progress, memory_limit=memory_limit,
                                       threads=threads, on_batch=on_batch, runner=runner,
                                       batch_bytes=batch_bytes)
            except (LoadError, DatabaseError) as exc:
                raise type(exc)(f"{exc}; {dataset_state(root, before)}") from None
    finally:
        con.close()
    return result


def _load_dataset(con: duckdb.DuckDBPyConnection, root: str | os.PathLike[str],
                  paths: Sequence[str | os.PathLike[str]], **options: Any) -> LoadResult:
    with _staged(con, paths, **options) as (result, clock, inputs, ready):
        try:
            result.rows = write_dataset(con, root, validated=[i.name for i in inputs],
                                        ready=ready)
        except OSError as exc:
            raise DatabaseError(f"cannot write dataset {root}: "
                                f"{exc.strerror or exc}") from None
        result.rows.pop("findings", None)
        _tally(con, result)
        clock.tick("write")
    return result
