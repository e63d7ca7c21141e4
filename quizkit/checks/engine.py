"""One file → findings; many files → a :class:`Report`, in parallel when asked.

Per document: parse (orjson) → kind → schema (compiled validator; the reference engine only
explains invalid documents) → structural checks → cross-file facts. Positions are resolved
only when a file has findings. Findings leave the engine in input-file order whatever the
number of jobs, so reports are deterministic.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from quizkit.cache import stamps
from quizkit.cache import store as cache_store
from quizkit.cache.stamps import Stamp
from quizkit.catalog import input_rules
from quizkit.catalog.findings import Adjust, FileResult, Finding, Report, Severity
from quizkit.catalog.pointers import unescape_token
from quizkit.catalog.rule import Rule
from quizkit.checks import snippets
from quizkit.checks.budget import Budget
from quizkit.checks.documents import line_units
from quizkit.inputs import intake
from quizkit.inputs.limits import Limits
from quizkit.inputs.parsing import LineIndex
from quizkit.inputs.positions import Positions
from quizkit.inputs.sources import ReadError, Source
from quizkit.model.entities import VERSION_KINDS
from quizkit.model.kinds import detect_kind, unknown_kind_message
from quizkit.model.schemas import Profile, SchemaBook
from quizkit.model.service_names import ServiceNames
from quizkit.outputs.interrupts import signals_deferred, stop_workers, worker_started
from quizkit.reporters.base import Reporter
from quizkit.reporters.service_blocks import VersionOutline, outline
from quizkit.rules import REGISTRY
from quizkit.rules.checks import RawFinding, Registry
from quizkit.rules.facts import Below, Fact, Located, Place
from quizkit.rules.navigate import DocumentFacts, versions_of
from quizkit.settings.config import INPUT_PREFIX

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future


@dataclass(frozen=True)
class Options:
    """What a worker needs to check a file (picklable)."""

    kind: str | None = None
    #: Size and depth limits (see quizkit.inputs.limits, docs/limits.md).
    limits: Limits = field(default_factory=Limits)
    #: Enum profile (see quizkit.model.enums); empty leaves every enum open.
    profile: Profile = ()
    #: How the service names validation levels and entities (a profile's [service] table).
    service: ServiceNames | None = None
    #: Source lines either side of each finding to keep with it (0: no snippets); set from
    #: the reporter (``Reporter.snippet_lines``), for reports that show them.
    snippet_lines: int = 0
    #: Outline each document that holds versions (``FileOutcome.outlines``, for the service's
    #: blocks); off for a run whose reporter makes no blocks.
    outlines: bool = True
    #: Stamp each local input (``FileOutcome.stamp``) for the result cache.
    stamp: bool = False


#: A fact and where a finding about it would point.
PointedFact = tuple["str | Below", Fact]


@dataclass
class FileOutcome:
    result: FileResult
    findings: list[Finding] = field(default_factory=list)
    facts: list[Located] = field(default_factory=list)
    #: (path, record, outline) of each document that holds versions (the service's blocks).
    outlines: list[tuple[str, int | None, VersionOutline]] = field(default_factory=list)
    #: The input as it was read (``Options.stamp``: a local file that could be read).
    stamp: Stamp | None = None


class _Document:
    """Collects the raw findings of one document before positions are known."""

    __slots__ = ("budget", "raw")

    def __init__(self, budget: Budget | None = None) -> None:
        self.raw: list[tuple[Rule, str, str]] = []
        self.budget = budget

    def emit(self, rule: Rule, pointer: str, message: str) -> None:
        if self.budget is None or self.budget.take(rule):
            self.raw.append((rule, pointer, message))


def check_document(doc: Any, kind: str | None, schemas: SchemaBook | None = None,
                   service: ServiceNames | None = None, *, registry: Registry | None = None,
                   fast: bool = True, budget: Budget | None = None
                   ) -> tuple[str | None, list[RawFinding], list[PointedFact]]:
    """Kind, raw findings (rule, pointer, message) and facts (pointer, fact) of one document.

    Each version is listed and indexed once (:func:`versions_of`) for all its version
    checks; ``fast=False`` turns the indexes' fast paths off (tests compare both ways).
    ``schemas``: the run's compiled schemas; ``None`` leaves the schema out (the structural
    checks only; the message about an unknown kind then reads the schemas for this call).
    ``registry``: the rules and checks (default: every rule of :mod:`quizkit.rules`).
    ``budget``: the file's (:class:`Budget`); findings past it are counted, not kept.
    """
    registry = registry or REGISTRY
    collected = _Document(budget)
    kind = kind or detect_kind(doc)
    if kind is None:
        message = unknown_kind_message(doc, SchemaBook() if schemas is None else schemas)
        collected.emit(input_rules.UNKNOWN_KIND, "", message)
        return None, collected.raw, []
    emit = collected.emit
    schema_found = False
    if schemas is not None:
        for raw in schemas.iter_findings(kind, doc):
            schema_found = True
            emit(*raw)
    # Checked without a schema finding: the document has the schema's types (the index skips
    # their tests).
    versions = versions_of(kind, doc, fast, typed=schemas is not None and not schema_found)
    facts = DocumentFacts(kind, doc, versions)
    for rule_check in registry.of("rule", kind):
        rule_check(facts, emit)
    findings_checks = registry.of("findings", kind)
    if findings_checks:
        so_far = tuple(collected.raw)
        for fcheck in findings_checks:
            fcheck(versions, so_far, emit, service)
    cross = [pf for collect in registry.of("facts", kind) for pf in collect(doc)]
    return kind, collected.raw, cross


def _finding(path: str, record: int | None, rule: Rule, pointer: str, message: str,
             line: int | None = None, column: int | None = None) -> Finding:
    return Finding(path=path, pointer=pointer, rule=rule.name, severity=rule.severity,
                   message=message, record=record, line=line, column=column, code=rule.code)


class _Text:
    """One document's text, for the positions of its findings and facts: the bracket table
    (:class:`Positions`) and the line index are built on the first question only."""

    __slots__ = ("_index", "_members", "_positions", "chunk", "indented", "shift")

    def __init__(self, chunk: bytes, record: int | None, indented: bool) -> None:
        self.chunk = chunk
        self.indented = indented
        self.shift = record - 1 if record is not None else 0
        self._positions: Positions | None = None
        self._index: LineIndex | None = None
        #: Positions of the document's members found so far (every version of a package is
        #: placed below the one member ``/versions``: searched and counted once).
        self._members: dict[str, tuple[int, int] | None] = {}

    def fact_position(self, where: str | Below) -> tuple[int, int]:
        """Line and column of a fact's value. In orjson-indented text (the service's
        exports) a member of the document's object is found with one search for its line,
        and an element of such a member's array is placed by its line count (:class:`Below`),
        so placing facts costs no bracket table."""
        pointer = where.pointer if type(where) is Below else where
        if self.indented and pointer:
            if type(where) is Below:
                anchor = self._member(where.array)
                if anchor is not None:
                    return anchor[0] + where.lines, 2 * pointer.count("/") + 1
            else:
                member = self._member(pointer)
                if member is not None:
                    return member
        return self.position(pointer)

    def _member(self, pointer: str) -> tuple[int, int] | None:
        """Line and column of the value of a member of the document's object, found by its
        line (in orjson-indented text a member of the top object is the only line that
        starts with two spaces and its key; the intake proved no key repeats)."""
        if pointer in self._members:
            return self._members[pointer]
        found = self._members[pointer] = self._find_member(pointer)
        return found

    def _find_member(self, pointer: str) -> tuple[int, int] | None:
        if pointer.count("/") != 1:
            return None
        key = orjson.dumps(unescape_token(pointer[1:]))
        start = self.chunk.find(b"\n  " + key + b": ")
        if start < 0:
            return None
        line = self.chunk.count(b"\n", 0, start) + 2 + self.shift
        return line, len(key.decode()) + 5

    def position(self, pointer: str) -> tuple[int, int]:
        """Line (in the file) and column of the value at ``pointer``, or of its nearest
        existing ancestor."""
        if self._positions is None:
            # In the bytes themselves: a decoded copy of a large file would cost 1-4x its size.
            self._index = LineIndex(self.chunk)
            self._positions = Positions(self.chunk, self.indented)
        assert self._index is not None
        while True:
            offset = self._positions.locate(pointer)
            if offset is not None or not pointer:
                line, column = self._index.position(offset or 0)
                return line + self.shift, column
            pointer = pointer.rsplit("/", 1)[0]


def check_bytes(path: str, data: bytes, lines: bool, options: Options,
                schemas: SchemaBook) -> FileOutcome:
    """Check the bytes of one input; ``lines`` for JSON Lines; ``schemas`` compiled for
    ``options.profile``.

    Findings and cross-file facts leave with their positions (and snippets, when asked):
    nothing is read again after this.
    """
    result = FileResult(path=path, size=len(data))
    outcome = FileOutcome(result)
    prepared, problems = intake.prepare(data)
    _add_problems(outcome, path, None, problems)
    if prepared is None:
        result.readable = False
        return outcome
    units = line_units(prepared) if lines else [(None, prepared)]
    budget = Budget(options.limits.max_findings)
    for record, chunk in units:
        result.documents += 1
        mine = 0 if record is None else len(outcome.findings)  # this document's findings
        doc, problems, indented = intake.parse_text(chunk, options.limits.max_depth)
        _add_problems(outcome, path, record, problems)
        if doc is intake.UNREAD:
            result.readable = False
            continue
        try:
            kind, raw, facts = check_document(doc, options.kind, schemas, options.service,
                                              budget=budget)
        except RecursionError:  # a check recursed too deep: a finding, never a crash
            result.readable = False
            _add_problems(outcome, path, record, [intake.too_deep_to_check()])
            continue
        if kind:
            result.kinds[kind] += 1
        if options.outlines and kind in VERSION_KINDS:
            pointers = {f.pointer for f in outcome.findings[mine:]} | {p for _, p, _ in raw}
            outcome.outlines.append((path, record, outline(kind, doc, pointers)))
        # The document is not needed for positions: free it first, so that a large file
        # does not hold both at once.
        doc = None
        if raw or facts:
            _place(outcome, path, record, _Text(chunk, record, indented), raw, facts)
    if budget.more:
        outcome.findings.append(budget.finding(path))
    if result.kinds:
        result.kind = result.kinds.most_common(1)[0][0] if len(result.kinds) == 1 else "mixed"
    if options.snippet_lines:
        _attach_snippets(outcome, prepared, options.snippet_lines)
    outcome.findings.sort(key=Finding.sort_key)
    return outcome


def _place(outcome: FileOutcome, path: str, record: int | None, text: _Text,
           raw: list[RawFinding], facts: list[PointedFact]) -> None:
    """The findings and facts of one document, with their positions in its text."""
    for where, fact in facts:
        pointer = where.pointer if type(where) is Below else where
        if getattr(fact, "located", True):
            line, column = text.fact_position(where)
            place = Place(path, record, pointer, line, column)
        else:  # no finding points at it
            place = Place(path, record, pointer)
        outcome.facts.append(Located(place, fact))
    for rule, pointer, message in raw:
        line, column = text.position(pointer)
        outcome.findings.append(_finding(path, record, rule, pointer, message,
                                         line, column))


def _attach_snippets(outcome: FileOutcome, data: bytes, context: int) -> None:
    """Source lines around each finding, and around each fact (a batch check may report
    it; the file is not read again)."""
    if not outcome.findings and not outcome.facts:
        return
    stand_ins = [Finding(path=p.path, pointer=p.pointer, rule="", severity=Severity.INFO,
                         message="", record=p.record, line=p.line, column=p.column)
                 for p, _ in outcome.facts]
    snippets.attach_file([*outcome.findings, *stand_ins], data, context)
    outcome.facts = [Located(dataclasses.replace(p, snippet=s.snippet), fact)
                     for (p, fact), s in zip(outcome.facts, stand_ins, strict=True)]


def _add_problems(outcome: FileOutcome, path: str, record: int | None,
                  problems: list[intake.Problem]) -> None:
    shift = record - 1 if record is not None else 0
    outcome.findings.extend(_finding(path, record, p.rule, p.pointer, p.message,
                                     p.line + shift, p.column) for p in problems)


def check_source(source: Source, options: Options, schemas: SchemaBook, *,
                 name: str | None = None) -> FileOutcome:
    """Read and check one source; a read failure is a finding, never an exception. ``name``
    is what the findings call it (default: the source's own name; a cluster worker reads a
    file by its absolute path and reports it as the user gave it)."""
    name = source.display if name is None else name
    before = stamps.stat_before_read(source.path) \
        if options.stamp and cache_store.cacheable(source) else None
    try:
        data = source.read(options.limits.max_decompressed, options.limits.max_file_size)
    except ReadError as exc:
        result = FileResult(path=name, readable=False)
        rule = input_rules.INPUT_TOO_LARGE if exc.limit else input_rules.UNREADABLE
        return FileOutcome(result, [_finding(name, None, rule, "",
                                             f"cannot read: {exc}")])
    outcome = check_bytes(name, data, source.holds_lines(data), options, schemas)
    if before is not None:
        outcome.stamp = stamps.stamp(before, data)
    return outcome



def _check_chunk(sources: list[Source], options: Options,
                 schemas: SchemaBook | None = None) -> list[FileOutcome]:
    """Check a chunk of sources in a worker, one round trip per chunk, not per file; with
    the book the worker process keeps (the run's, kept by :func:`_pool_worker_init`) unless
    ``schemas`` is given."""
    if schemas is None:
        import multiprocessing

        schemas = SchemaBook.kept_by(multiprocessing.current_process(), options.profile)
    return [check_source(s, options, schemas) for s in sources]


#: Chunks in flight per worker: enough to keep workers busy, few enough that outcomes
#: waiting for an earlier, slower chunk stay few (memory is bounded by the window).
WINDOW_PER_JOB = 4
#: Most files in one chunk; small chunks balance the tail of a run across workers.
MAX_CHUNK = 16


def chunk_size(files: int, jobs: int) -> int:
    """Files per chunk: about 8 chunks per worker, at most :data:`MAX_CHUNK`."""
    return max(1, min(MAX_CHUNK, files // (jobs * 8)))


def _chunks(sources: list[Source], size: int) -> Iterator[list[Source]]:
    for start in range(0, len(sources), size):
        yield sources[start:start + size]


def _pool_context() -> multiprocessing.context.BaseContext:
    """Fork where the platform has it: workers start with the rules and validators loaded."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


#: Allocations between two young-generation collections while checking (Python's default
#: is 700). A parsed document is thousands of containers, none in a reference cycle (they
#: are freed by reference counting), so the default spends ~9 % of a run scanning them
#: for cycles that are not there; cycles (few: exceptions, python-jsonschema errors) are
#: still collected, just less often.
GC_THRESHOLD = 100_000


def raise_collection_threshold() -> tuple[int, ...]:
    """Raise the collector's first threshold (unless collection is off); the ones before."""
    before = gc.get_threshold()
    if before[0] and before[0] < GC_THRESHOLD:
        gc.set_threshold(GC_THRESHOLD, *before[1:])
    return before


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the cyclic collector's first threshold for the block (then restore it)."""
    before = raise_collection_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _pool_worker_init(schemas: SchemaBook) -> None:
    # Ctrl-C goes to the whole process group: the main process handles it, workers ignore it;
    # they die on SIGTERM and with the parent (quizkit.outputs.interrupts).
    worker_started()
    import multiprocessing

    # The run's book, compiled before the fork (unpickled, and compiled on first use, where
    # workers are spawned), for every chunk this worker checks.
    schemas.keep_on(multiprocessing.current_process())
    raise_collection_threshold()  # for the worker's whole life


def _submit(pool: Any, chunk: list[Source], options: Options,
            schemas: SchemaBook) -> Future[list[FileOutcome]]:
    """A chunk to a worker; one holding standard input is checked here (a worker's standard
    input is not the run's)."""
    if any(s.is_stdin for s in chunk):
        from concurrent.futures import Future

        done: Future[list[FileOutcome]] = Future()
        done.set_result(_check_chunk(chunk, options, schemas))
        return done
    return pool.submit(_check_chunk, chunk, options)


def _check_many(sources: list[Source], options: Options, jobs: int,
                schemas: SchemaBook) -> Iterator[FileOutcome]:
    """Outcomes of every source, in input order whatever the number of jobs.

    Parallel runs send chunks of sources (paths only: workers read the files) to a process
    pool and keep a bounded window of chunks in flight, collecting their outcomes in order.
    """
    if jobs <= 1 or len(sources) < 2:
        for s in sources:
            yield check_source(s, options, schemas)
        return
    from concurrent.futures import ProcessPoolExecutor

    schemas.warm()  # compiled once here, inherited by forked workers
    chunks = _chunks(sources, chunk_size(len(sources), jobs))
    pending: deque[Future[list[FileOutcome]]] = deque()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(),
                               initializer=_pool_worker_init, initargs=(schemas,))
    finished = False
    try:
        with signals_deferred():  # the first submit forks the workers
            try:
                for chunk in itertools.islice(chunks, jobs * WINDOW_PER_JOB):
                    pending.append(_submit(pool, chunk, options, schemas))
            except OSError as exc:  # past the process limit (EAGAIN), out of memory
                raise WorkersError(f"cannot start {jobs} worker processes: "
                                   f"{exc.strerror or exc} (use a smaller -j)") from None
        while pending:
            outcomes = pending.popleft().result()
            nxt = next(chunks, None)
            if nxt is not None:
                pending.append(_submit(pool, nxt, options, schemas))
            yield from outcomes
        finished = True
    finally:
        # Stopped (Ctrl-C, SIGTERM, an error): drop the queued chunks, end the workers.
        if not finished:
            stop_workers(pool)
        pool.shutdown(wait=finished, cancel_futures=not finished)


#: Below this many files or bytes a run stays in one process (starting workers costs more).
SMALL_RUN_FILES = 8
SMALL_RUN_BYTES = 4 * 1024 * 1024


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _is_small(sources: list[Source]) -> bool:
    if len(sources) < SMALL_RUN_FILES:
        return True
    total = 0
    for s in sources:  # stops as soon as the run is known not to be small
        total += s.size()
        if total >= SMALL_RUN_BYTES:
            return False
    return True


def default_jobs(sources: list[Source]) -> int:
    """All cores, but one for stdin or a small run where starting workers costs more."""
    if any(s.is_stdin for s in sources) or _is_small(sources):
        return 1
    return cores()



#: Checks many sources elsewhere (a cluster): ``(sources, options) -> outcomes`` in input
#: order, each as :func:`check_source` gives it.
CheckMany = Callable[[list[Source], Options], Iterable[FileOutcome]]


def _collect(sources: list[Source], options: Options, jobs: int | None, schemas: SchemaBook,
             report: Report, facts: list[Located], deliver: Callable[[Finding], bool],
             reporter: Reporter | None, on_file: Callable[[FileResult], None] | None,
             check_many: CheckMany | None = None,
             cache: cache_store.ResultCache | None = None) -> None:
    """Check every source; keep results and facts, deliver findings, in input order."""
    for outcome in _outcomes(sources, options, jobs, schemas, check_many, cache):
        report.add_file(outcome.result)
        facts.extend(outcome.facts)
        if report.keep_findings:
            report.outlines.extend(outcome.outlines)
        inputs_kept = False
        for finding in outcome.findings:
            kept = deliver(finding)
            inputs_kept = inputs_kept or (kept and finding.code.startswith(INPUT_PREFIX))
        if not outcome.result.readable and not inputs_kept:
            report.absorbed += 1  # the baseline held every input finding of the file
        if reporter is not None:
            reporter.file_done(outcome.result.path)
        if on_file is not None:
            on_file(outcome.result)


class WorkersError(Exception):
    """The worker processes could not be started (one line; exit 2)."""


def _outcomes(sources: list[Source], options: Options, jobs: int | None, schemas: SchemaBook,
              check_many: CheckMany | None,
              cache: cache_store.ResultCache | None) -> Iterator[FileOutcome]:
    """The outcome of every source, in input order: from the cache where it holds one, else
    checked (here, by workers or elsewhere) and then kept in the cache."""
    cached: list[FileOutcome | None] = [None] * len(sources)
    if cache is not None:
        cached = [cache.lookup(s, options.limits, FileOutcome) for s in sources]
    todo = [s for s, c in zip(sources, cached, strict=True) if c is None]
    if jobs is None:
        jobs = default_jobs(todo)
    checked = iter(check_many(todo, options) if check_many is not None
                   else _check_many(todo, options, jobs, schemas))
    for source, outcome in zip(sources, cached, strict=True):
        if outcome is None:
            outcome = next(checked)
            if cache is not None:  # before the findings are delivered (and re-graded)
                cache.store(source, outcome)
        yield outcome


def run(sources: Iterable[Source], options: Options | None = None, *,
        reporter: Reporter | None = None, jobs: int | None = None,
        adjust: Adjust | None = None,
        on_file: Callable[[FileResult], None] | None = None,
        check_many: CheckMany | None = None, schemas: SchemaBook | None = None,
        cache: cache_store.ResultCache | None = None) -> Report:
    """Check every source and return the report.

    ``reporter`` receives each finding as soon as its file is done (in input order).
    ``adjust`` may re-grade or drop findings (configuration, baseline) before they are
    reported; ``on_file`` is called after each file (progress). ``check_many`` checks the
    files elsewhere (``quizkit.cluster.checking``); the cross-file checks still run here.
    ``schemas``: the compiled schemas of ``options.profile`` (default: a book made for this
    run; pass one to reuse what it compiled). ``cache``: outcomes of unchanged inputs are
    taken from it, the others kept in it.
    """
    options = options or Options()
    if schemas is None:
        schemas = SchemaBook(options.profile)
    elif schemas.profile != options.profile:
        raise ValueError("the schema book was made for another enum profile than the run's")
    if reporter is not None and reporter.snippet_lines > options.snippet_lines:
        options = dataclasses.replace(options, snippet_lines=reporter.snippet_lines)
    if reporter is not None and not reporter.needs_outlines:
        options = dataclasses.replace(options, outlines=False)
    if cache is not None:
        cache = cache.for_run(options)
        options = dataclasses.replace(options, stamp=True)
    sources = list(sources)
    report = Report(keep_findings=reporter is None or reporter.needs_findings,
                    keep_files=reporter is None or reporter.needs_files)
    facts: list[Located] = []

    def deliver(finding: Finding) -> bool:
        """Report ``finding`` after the adjustments; whether it was kept."""
        if adjust is not None:
            finding = adjust(finding)
            if finding is None:
                return False
        report.add(finding)
        if reporter is not None:
            reporter.finding(finding)
        return True

    if reporter is not None:
        reporter.start()
    with fewer_collections():
        _collect(sources, options, jobs, schemas, report, facts, deliver, reporter, on_file,
                 check_many, cache)
    late = [f for check in REGISTRY.batch for f in check(facts)]
    for finding in sorted(late, key=Finding.sort_key):
        deliver(finding)
    if reporter is not None:
        reporter.finish(report)
    return report
