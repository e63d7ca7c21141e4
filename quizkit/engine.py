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

from quizkit import intake, remote, snippets
from quizkit.documents import line_units
from quizkit.findings import FileResult, Finding, Report
from quizkit.interrupts import signals_deferred, stop_workers, worker_started
from quizkit.kinds import detect_kind, unknown_kind_message
from quizkit.limits import Limits
from quizkit.parsing import BOM, LineIndex
from quizkit.positions import Positions
from quizkit.reporters.base import Reporter
from quizkit.rules import batch, checks, input_rules, load_rule_modules, version_index
from quizkit.rules.catalog import Rule
from quizkit.schemas import Profile, schema_findings, warm
from quizkit.service import ServiceNames
from quizkit.sources import ReadError, Source

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future


@dataclass(frozen=True)
class Options:
    """What a worker needs to check a file (picklable)."""

    kind: str | None = None
    #: Size and depth limits (see quizkit.limits, docs/limits.md).
    limits: Limits = field(default_factory=Limits)
    #: Enum profile (see quizkit.enums); empty leaves every enum open.
    profile: Profile = ()
    #: How the service names validation levels and entities (a profile's [service] table).
    service: ServiceNames | None = None
    #: Source lines either side of each finding to keep with it (0: no snippets); set from
    #: the reporter (``Reporter.snippet_lines``), for reports that show them.
    snippet_lines: int = 0


@dataclass
class FileOutcome:
    result: FileResult
    findings: list[Finding] = field(default_factory=list)
    facts: list[checks.LocatedFact] = field(default_factory=list)


class _Document:
    """Collects the raw findings of one document before positions are known."""

    __slots__ = ("raw",)

    def __init__(self) -> None:
        self.raw: list[tuple[Rule, str, str]] = []

    def emit(self, rule: Rule, pointer: str, message: str) -> None:
        self.raw.append((rule, pointer, message))


def check_document(doc: Any, kind: str | None, profile: Profile = (),
                   service: ServiceNames | None = None
                   ) -> tuple[str | None, list[tuple[Rule, str, str]], list[tuple[str, tuple]]]:
    """Kind, raw findings (rule, pointer, message) and facts (pointer, fact) of one document."""
    collected = _Document()
    version_index.forget()  # indexes are per document, even one changed in place since
    kind = kind or detect_kind(doc)
    if kind is None:
        collected.emit(input_rules.UNKNOWN_KIND, "", unknown_kind_message(doc))
        return None, collected.raw, []
    collected.raw.extend(schema_findings(kind, doc, profile))
    for check in checks.doc_checks(kind):
        check(doc, collected.emit)
    if checks.findings_checks(kind):
        so_far = tuple(collected.raw)
        for fcheck in checks.findings_checks(kind):
            fcheck(doc, so_far, collected.emit, service)
    facts = [pf for collect in checks.collectors(kind) for pf in collect(doc)]
    return kind, collected.raw, facts


def _finding(path: str, record: int | None, rule: Rule, pointer: str, message: str,
             line: int | None = None, column: int | None = None) -> Finding:
    return Finding(path=path, pointer=pointer, rule=rule.name, severity=rule.severity,
                   message=message, record=record, line=line, column=column, code=rule.code)


def _position(text: bytes, index: LineIndex, pointer: str,
              indented: bool = False) -> tuple[int, int]:
    """Line and column of the value at ``pointer``, or of its nearest existing ancestor.

    The findings of one text come one after another, so the last text's :class:`Positions`
    (its bracket table, built once) is kept for the next pointer. ``indented``: the text is
    orjson's own indented writing (see :class:`Positions`).
    """
    positions = _last_positions[0]
    if positions is None or positions.text is not text:
        positions = _last_positions[0] = Positions(text, indented)
    while True:
        offset = positions.locate(pointer)
        if offset is not None or not pointer:
            return index.position(offset or 0)
        pointer = pointer.rsplit("/", 1)[0]


_last_positions: list[Positions | None] = [None]


def check_bytes(path: str, data: bytes, lines: bool, options: Options,
                rereadable: bool = False) -> FileOutcome:
    """Check the bytes of one input; ``lines`` for JSON Lines.

    ``rereadable``: the batch checks can read the file at ``path`` again, so the content
    digests of its facts are left to be computed only if their ids repeat (see
    ``quizkit.rules.batch``); otherwise (stdin, bytes from elsewhere) they are computed now.
    """
    result = FileResult(path=path, size=len(data))
    outcome = FileOutcome(result)
    prepared, problems = intake.prepare(data)
    _add_problems(outcome, path, None, problems)
    if prepared is None:
        result.readable = False
        return outcome
    units = line_units(prepared) if lines else [(None, prepared)]
    for record, chunk in units:
        result.documents += 1
        doc, problems, indented = intake.parse_text(chunk, options.limits.max_depth)
        _add_problems(outcome, path, record, problems)
        if doc is intake.UNREAD:
            result.readable = False
            continue
        try:
            kind, raw, facts = check_document(doc, options.kind, options.profile,
                                              options.service)
        except RecursionError:  # a check recursed too deep: a finding, never a crash
            result.readable = False
            _add_problems(outcome, path, record, [intake.too_deep_to_check()])
            continue
        if kind:
            result.kinds[kind] += 1
        if facts and not rereadable:
            facts = batch.settle(doc, facts)
        outcome.facts.extend((path, record, p, f) for p, f in facts)
        # The document is not needed for positions: free it (and the rules' indexes of it)
        # before the text view is made, so a large file does not hold both at once.
        doc = None
        version_index.forget()
        if raw:
            index = LineIndex(chunk)  # in the bytes themselves: no decoded copy
            for rule, pointer, message in raw:
                line, column = _position(chunk, index, pointer, indented)
                if record is not None:
                    line += record - 1
                outcome.findings.append(_finding(path, record, rule, pointer, message,
                                                 line, column))
    if result.kinds:
        result.kind = result.kinds.most_common(1)[0][0] if len(result.kinds) == 1 else "mixed"
    if options.snippet_lines and outcome.findings:
        snippets.attach_file(outcome.findings, prepared, options.snippet_lines)
    outcome.findings.sort(key=Finding.sort_key)
    return outcome


def _add_problems(outcome: FileOutcome, path: str, record: int | None,
                  problems: list[intake.Problem]) -> None:
    shift = record - 1 if record is not None else 0
    outcome.findings.extend(_finding(path, record, p.rule, p.pointer, p.message,
                                     p.line + shift, p.column) for p in problems)


def check_source(source: Source, options: Options) -> FileOutcome:
    """Read and check one source; a read failure is a finding, never an exception."""
    try:
        data = source.read(options.limits.max_decompressed, options.limits.max_file_size)
    except ReadError as exc:
        result = FileResult(path=source.display, readable=False)
        rule = input_rules.INPUT_TOO_LARGE if exc.limit else input_rules.UNREADABLE
        return FileOutcome(result, [_finding(source.display, None, rule, "",
                                             f"cannot read: {exc}")])
    try:
        return check_bytes(source.display, data, source.holds_lines(data), options,
                           rereadable=not source.is_stdin)
    finally:
        _last_positions[0] = None  # memory stays bounded by one file


def _worker_init() -> None:
    load_rule_modules()


def _check_chunk(sources: list[Source], options: Options) -> list[FileOutcome]:
    """Check a chunk of sources in a worker; one round trip per chunk, not per file."""
    return [check_source(s, options) for s in sources]


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


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Raise the cyclic collector's first threshold for the block (then restore it)."""
    before = gc.get_threshold()
    if before[0] and before[0] < GC_THRESHOLD:  # 0: collection is off; leave it so
        gc.set_threshold(GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _pool_worker_init() -> None:
    # Ctrl-C goes to the whole process group: the main process handles it, workers ignore it;
    # they die on SIGTERM and with the parent (quizkit.interrupts).
    worker_started()
    before = gc.get_threshold()
    if before[0] and before[0] < GC_THRESHOLD:
        gc.set_threshold(GC_THRESHOLD, *before[1:])
    _worker_init()


def _check_many(sources: list[Source], options: Options, jobs: int) -> Iterator[FileOutcome]:
    """Outcomes of every source, in input order whatever the number of jobs.

    Parallel runs send chunks of sources (paths only: workers read the files) to a process
    pool and keep a bounded window of chunks in flight, collecting their outcomes in order.
    """
    _worker_init()
    if jobs <= 1 or len(sources) < 2:
        for s in sources:
            yield check_source(s, options)
        return
    from concurrent.futures import ProcessPoolExecutor

    warm(options.profile)  # compiled once here, inherited by forked workers
    chunks = _chunks(sources, chunk_size(len(sources), jobs))
    pending: deque[Future[list[FileOutcome]]] = deque()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(),
                               initializer=_pool_worker_init)
    finished = False
    try:
        with signals_deferred():  # the first submit forks the workers
            for chunk in itertools.islice(chunks, jobs * WINDOW_PER_JOB):
                pending.append(pool.submit(_check_chunk, chunk, options))
        while pending:
            outcomes = pending.popleft().result()
            nxt = next(chunks, None)
            if nxt is not None:
                pending.append(pool.submit(_check_chunk, nxt, options))
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


class _Rereader:
    """Reads documents of the run again, after their files were checked (for the batch
    checks and the positions of their findings). Reports name files by their display name;
    this knows the real paths. Stdin and files gone since cannot be read again: None."""

    def __init__(self, sources: list[Source], options: Options) -> None:
        self.sources = sources
        self.options = options
        self._paths: dict[str, str] | None = None
        self._last: tuple[str, bytes | None] | None = None
        self._lines: tuple[str, list[bytes]] | None = None

    def path(self, display: str) -> str | None:
        if self._paths is None:
            self._paths = {s.display: s.path for s in self.sources if not s.is_stdin}
            if any(s.is_stdin for s in self.sources):  # and a file shown as "<stdin>"
                self._paths.pop(Source("-").display, None)
        return self._paths.get(display)

    def data(self, display: str) -> bytes | None:
        """The whole file (BOM removed), or None."""
        if self._last is not None and self._last[0] == display:
            return self._last[1]
        path = self.path(display)
        data = None
        # A FIFO or device cannot be read twice; an object in object storage can.
        if path is not None and (remote.is_url(path) or os.path.isfile(path)):
            try:
                data = Source(path).read(self.options.limits.max_decompressed,
                                         self.options.limits.max_file_size)
            except ReadError:
                data = None
            if data is not None and data.startswith(BOM):
                data = data[len(BOM):]
        self._last = (display, data)
        return data

    def __call__(self, display: str, record: int | None) -> bytes | None:
        """One document's bytes: the file's, or its JSON Lines record's (the last file's
        lines are kept, so reading its records one by one splits it once)."""
        data = self.data(display)
        if data is None or record is None:
            return data
        if self._lines is None or self._lines[0] != display:
            self._lines = (display, data.split(b"\n"))
        lines = self._lines[1]
        return lines[record - 1] if 0 < record <= len(lines) else None


def _locate_late(findings: list[Finding], reread: _Rereader) -> None:
    """Line and column of findings made after their file was checked (batch checks): the
    file is read again, only when it has such a finding. Stdin cannot be re-read."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.line is None:
            by_path.setdefault(f.path, []).append(f)
    for path, group in by_path.items():
        data = reread.data(path)
        if data is None:
            continue
        lines = data.split(b"\n") if any(f.record for f in group) else []
        texts: dict[int | None, tuple[bytes, LineIndex]] = {}
        for f in group:
            if f.record is not None and not 0 < f.record <= len(lines):
                continue
            if f.record not in texts:
                chunk = data if f.record is None else lines[f.record - 1]
                texts[f.record] = (chunk, LineIndex(chunk))
            text, index = texts[f.record]
            f.line, f.column = _position(text, index, f.pointer)
            if f.record is not None:
                f.line += f.record - 1


Adjust = Callable[[Finding], Finding | None]


#: Checks many sources elsewhere (a cluster): ``(sources, options) -> outcomes`` in input
#: order, each as :func:`check_source` gives it.
CheckMany = Callable[[list[Source], Options], Iterable[FileOutcome]]


def _collect(sources: list[Source], options: Options, jobs: int, report: Report,
             facts: list[checks.LocatedFact], deliver: Callable[[Finding], None],
             reporter: Reporter | None, on_file: Callable[[FileResult], None] | None,
             check_many: CheckMany | None = None) -> None:
    """Check every source; keep results and facts, deliver findings, in input order."""
    outcomes = (check_many(sources, options) if check_many is not None
                else _check_many(sources, options, jobs))
    for outcome in outcomes:
        report.add_file(outcome.result)
        facts.extend(outcome.facts)
        for finding in outcome.findings:
            deliver(finding)
        if reporter is not None:
            reporter.file_done(outcome.result.path)
        if on_file is not None:
            on_file(outcome.result)


def run(sources: Iterable[Source], options: Options | None = None, *,
        reporter: Reporter | None = None, jobs: int | None = None,
        adjust: Adjust | None = None,
        on_file: Callable[[FileResult], None] | None = None,
        check_many: CheckMany | None = None) -> Report:
    """Check every source and return the report.

    ``reporter`` receives each finding as soon as its file is done (in input order).
    ``adjust`` may re-grade or drop findings (configuration, baseline) before they are
    reported; ``on_file`` is called after each file (progress). ``check_many`` checks the
    files elsewhere (``quizkit.cluster``); the cross-file checks still run here.
    """
    options = options or Options()
    if reporter is not None and reporter.snippet_lines > options.snippet_lines:
        options = dataclasses.replace(options, snippet_lines=reporter.snippet_lines)
    load_rule_modules()  # batch checks run here, in the main process, whatever the job count
    sources = list(sources)
    jobs = default_jobs(sources) if jobs is None else jobs
    report = Report(keep_findings=reporter is None or reporter.needs_findings,
                    keep_files=reporter is None or reporter.needs_files)
    facts: list[checks.LocatedFact] = []

    def deliver(finding: Finding) -> None:
        if adjust is not None:
            finding = adjust(finding)
            if finding is None:
                return
        report.add(finding)
        if reporter is not None:
            reporter.finding(finding)

    if reporter is not None:
        reporter.start()
    with _fewer_collections():
        _collect(sources, options, jobs, report, facts, deliver, reporter, on_file,
                 check_many)
    reread = _Rereader(sources, options)
    with checks.rereading(reread):
        late = [f for check in checks.batch_checks() for f in check(facts)]
    _locate_late(late, reread)
    if options.snippet_lines:
        late_by_path: dict[str, list[Finding]] = {}
        for f in late:
            late_by_path.setdefault(f.path, []).append(f)
        for path, group in late_by_path.items():
            data = reread.data(path)
            if data is not None:
                snippets.attach_file(group, data, options.snippet_lines)
    _last_positions[0] = None
    for finding in sorted(late, key=Finding.sort_key):
        deliver(finding)
    if reporter is not None:
        reporter.finish(report)
    return report
