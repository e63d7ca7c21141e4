"""One file → findings; many files → a :class:`Report`, in parallel when asked.

Per document: parse (orjson) → kind → schema (compiled validator; the reference engine only
explains invalid documents) → structural checks → cross-file facts. Positions are resolved
only when a file has findings. Findings leave the engine in input-file order whatever the
number of jobs, so reports are deterministic.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quizkit.cache import stamps
from quizkit.cache import store as cache_store
from quizkit.catalog.findings import Adjust, FileResult, Finding, Report
from quizkit.checks import reread
from quizkit.checks.budget import Budget
from quizkit.checks.documents import line_units
from quizkit.inputs import intake, remote, split
from quizkit.inputs.sources import ReadError, Source, open_regular
from quizkit.model.schemas import SchemaBook
from quizkit.outputs.interrupts import signals_deferred, stop_workers, worker_started
from quizkit.reporters.base import Reporter
from quizkit.rules import REGISTRY
from quizkit.rules.facts import Located
from quizkit.settings.config import INPUT_PREFIX

if TYPE_CHECKING:
    import multiprocessing.context
    from concurrent.futures import Future

from quizkit.checks.one_input import (  # noqa: F401 (the engine's API)
    FileOutcome,
    Options,
    add_problems,
    check_bytes,
    check_document,
    check_source,
    check_units,
    finish,
    unreadable,
)


def _kept_schemas(options: Options) -> SchemaBook:
    """The book this worker process keeps (the run's, kept by :func:`_pool_worker_init`)."""
    import multiprocessing

    return SchemaBook.kept_by(multiprocessing.current_process(), options.profile)


def _check_chunk(sources: list[Source], options: Options,
                 schemas: SchemaBook | None = None) -> list[FileOutcome]:
    """Check a chunk of sources in a worker, one round trip per chunk, not per file; with
    the book the worker process keeps (the run's, kept by :func:`_pool_worker_init`) unless
    ``schemas`` is given."""
    if schemas is None:
        schemas = _kept_schemas(options)
    return [check_source(s, options, schemas) for s in sources]


@dataclass
class _Piece:
    """The outcome of one piece of a split file, and how many findings its rules gave
    (listed or counted past the cap); ``changed``: the file was not the one cut, the piece
    was not checked."""

    outcome: FileOutcome
    found: int
    changed: bool = False


def _check_piece(path: str, read: Callable[[int, int], bytes], start: int, end: int,
                 first: int, options: Options) -> list[_Piece]:
    """Check bytes ``start:end`` of a JSON Lines file's text, in a worker, as ``read`` gives
    them (:mod:`quizkit.inputs.split`); ``first``: the file's line number of its first
    line. Its findings are sorted and given snippets when the pieces are merged."""
    outcome = FileOutcome(FileResult(path=path))
    try:
        text = read(start, end)
    except split.Changed:
        return [_Piece(outcome, 0, changed=True)]
    budget = Budget(options.limits.max_findings)
    check_units(outcome, line_units(text, first), options, _kept_schemas(options), budget)
    found = (budget.cap - (budget.left or 0) if budget.cap else 0) + sum(budget.more.values())
    return [_Piece(outcome, found)]


@dataclass
class _Split:
    """A JSON Lines file cut into pieces for the workers; their outcomes.

    A plain file is read here once while it is cut (``text`` None, ``identity`` the file's),
    a compressed one decompressed into the shared ``block`` (``text`` its text). ``pieces``
    is known once the whole file is cut; ``changed``: the file changed while it was."""

    source: Source
    before: Any  # stamps.stat_before_read's, before the file was read
    problems: list[intake.Problem]
    size: int  # of the file's bytes, decompressed
    skip: int = 0  # bytes before the text (a byte order mark)
    text: bytes | None = None
    identity: split.Identity | None = None
    block: Any = None  # the shared memory holding ``text`` (released by merged())
    pieces: int | None = None
    stamp: stamps.Stamp | None = None
    origin: reread.Origin | None = None  # of a remote file (no stamp), to read it again
    blocks: list[reread.Block] = field(default_factory=list)  # as a plain file was read
    changed: bool = False
    parts: list[_Piece] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.pieces is not None and len(self.parts) == self.pieces

    def merged(self, options: Options, schemas: SchemaBook) -> FileOutcome:
        """The outcome one worker gives for the whole file.

        A file whose findings pass ``--max-findings`` is checked again here, whole: which
        findings are listed, and what the checks over a document's listed findings (the
        embedded validation's) conclude, depend on the findings before them in the file,
        which the pieces do not see. So is a file that changed while it was cut or read."""
        self.release()
        cap = options.limits.max_findings
        if self.changed or any(piece.changed for piece in self.parts) or (
                cap and sum(piece.found for piece in self.parts) > cap):
            return self._whole(options, schemas)
        path = self.source.display
        outcome = FileOutcome(FileResult(path=path, size=self.size))
        add_problems(outcome, path, None, self.problems)
        result = outcome.result
        for piece in self.parts:
            part = piece.outcome
            result.documents += part.result.documents
            result.readable = result.readable and part.result.readable
            result.kinds.update(part.result.kinds)
            outcome.findings += part.findings
            outcome.facts += part.facts
            outcome.outlines += part.outlines
        text = self.text
        if text is None and outcome.findings and options.snippet_lines:
            try:  # read again only for the snippets of its findings
                text = split.read_piece(self.source.path, self.skip, self.size,
                                        self.identity)  # type: ignore[arg-type]
            except split.Changed:
                return self._whole(options, schemas)
        finish(outcome, text or b"", options)
        return self._stamped(outcome)

    def _stamped(self, outcome: FileOutcome) -> FileOutcome:
        """``outcome`` of the whole file, with what reads the file again if need be."""
        outcome.lines = True
        outcome.stamp = self.stamp
        if self.stamp is None and outcome.facts:
            outcome.origin = self.origin
        elif self.blocks and outcome.facts:
            outcome.origin = reread.origin_of_stamp(self.stamp, True, False, tuple(self.blocks))
        return outcome

    def _whole(self, options: Options, schemas: SchemaBook) -> FileOutcome:
        """The file checked here, whole, from the text kept or read anew."""
        if self.text is None:
            return check_source(self.source, options, schemas)
        data = (intake.BOM if self.skip else b"") + self.text
        return self._stamped(check_bytes(self.source.display, data, True, options, schemas))

    def release(self) -> None:
        if self.block is not None:
            split.release(self.block)
            self.block = None


#: A future of a chunk's outcomes, or of one piece of a split file (with the split it
#: belongs to).
Work = tuple["Future[list[FileOutcome]] | Future[list[_Piece]]", "_Split | None"]


def _done(outcomes: list[FileOutcome]) -> Future[list[FileOutcome]]:
    from concurrent.futures import Future

    done: Future[list[FileOutcome]] = Future()
    done.set_result(outcomes)
    return done


def _split_work(pool: Any, source: Source, options: Options, jobs: int,
                schemas: SchemaBook) -> Iterator[Work]:
    """A big JSON Lines file's pieces to the workers: a plain local file cut as it is read
    here (:func:`_file_pieces`), a compressed or remote one read (and decompressed) here
    once and shared."""
    if not source.compressed and not remote.is_url(source.path):
        yield from _file_pieces(pool, source, options, jobs, schemas)
        return
    before = stamps.stat_before_read(source.path)
    try:
        data = source.read(options.limits.max_decompressed, options.limits.max_file_size)
    except ReadError as exc:
        yield _done([unreadable(source.display, exc)]), None
        return
    text, problems = intake.prepare(data)
    if text is None:
        yield _done([check_bytes(source.display, data, True, options, schemas)]), None
        return
    pieces = split.cut(text, jobs)
    state = _Split(source, before, problems, len(data), len(data) - len(text), text=text,
                   block=split.share(text), pieces=len(pieces),
                   stamp=stamps.stamp(before, data) if before is not None else None,
                   origin=reread.origin_of(source, data, True, False) if before is None
                   else None)
    read = functools.partial(split.piece, state.block.name)
    for start, end, first in pieces:
        yield pool.submit(_check_piece, source.display, read, start, end, first,
                          options), state


#: The head of a plain file read to tell its encoding before it is cut.
_HEAD = 64 * 1024


def _file_pieces(pool: Any, source: Source, options: Options, jobs: int,
                 schemas: SchemaBook) -> Iterator[Work]:
    """A plain JSON Lines file cut into pieces as it is read here, once; each piece is given
    to a worker as soon as it is cut, and the worker reads it from the file. A file that is
    not plain UTF-8 text or is over the size limit is checked here, whole (as one worker
    would)."""
    before = stamps.stat_before_read(source.path)
    try:
        fd, st = open_regular(source.path)
    except ReadError as exc:
        yield _done([unreadable(source.display, exc)]), None
        return
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(_HEAD)
        text, problems = intake.prepare(head)
        if text is None or head.isspace() or st.st_size > options.limits.max_file_size:
            yield _done([check_source(source, options, schemas)]), None
            return
        fh.seek(0)
        state = _Split(source, before, problems, st.st_size, len(head) - len(text),
                       identity=split.Identity.of(st))
        read = functools.partial(split.read_piece, source.path, identity=state.identity)
        digest = stamps.digester()
        pieces = 0

        def kept(offset: int, line: int, data: memoryview) -> None:
            state.blocks.append(reread.Block(offset, line, stamps.digest(data)))

        try:
            for start, end, first in split.scan_pieces(fh, state.skip, st.st_size, jobs,
                                                       digest, kept):
                pieces += 1
                yield pool.submit(_check_piece, source.display, read, start, end, first,
                                  options), state
            state.changed = split.Identity.of(os.fstat(fh.fileno())) != state.identity
        except (split.Changed, OSError):
            state.changed = True
        state.pieces = pieces
        if before is not None:
            state.stamp = stamps.stamped(before, digest.digest())
    if state.changed and not pieces:
        yield _done([check_source(source, options, schemas)]), None


def _work(pool: Any, sources: list[Source], options: Options, jobs: int,
          schemas: SchemaBook) -> Iterator[Work]:
    """Chunks of sources for the workers, in input order; a big JSON Lines file in pieces."""
    size = chunk_size(len(sources), jobs)
    chunk: list[Source] = []
    for source in sources:
        if split.splittable(source):
            if chunk:
                yield _submit(pool, chunk, options, schemas), None
                chunk = []
            yield from _split_work(pool, source, options, jobs, schemas)
            continue
        chunk.append(source)
        if len(chunk) == size:
            yield _submit(pool, chunk, options, schemas), None
            chunk = []
    if chunk:
        yield _submit(pool, chunk, options, schemas), None


#: Chunks in flight per worker: enough to keep workers busy, few enough that outcomes
#: waiting for an earlier, slower chunk stay few (memory is bounded by the window).
WINDOW_PER_JOB = 4
#: Most files in one chunk; small chunks balance the tail of a run across workers.
MAX_CHUNK = 16


def chunk_size(files: int, jobs: int) -> int:
    """Files per chunk: about 8 chunks per worker, at most :data:`MAX_CHUNK`."""
    return max(1, min(MAX_CHUNK, files // (jobs * 8)))


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
        return _done(_check_chunk(chunk, options, schemas))
    return pool.submit(_check_chunk, chunk, options)


def _check_many(sources: list[Source], options: Options, jobs: int,
                schemas: SchemaBook) -> Iterator[FileOutcome]:
    """Outcomes of every source, in input order whatever the number of jobs.

    Parallel runs send chunks of sources (paths only: workers read the files) to a process
    pool and keep a bounded window of chunks in flight, collecting their outcomes in order;
    a big JSON Lines file is read here and sent in pieces (:mod:`quizkit.inputs.split`).
    """
    if jobs <= 1 or (len(sources) < 2 and not any(map(split.splittable, sources))):
        for s in sources:
            yield check_source(s, options, schemas)
        return
    from concurrent.futures import ProcessPoolExecutor

    schemas.warm()  # compiled once here, inherited by forked workers
    pending: deque[Work] = deque()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context(),
                               initializer=_pool_worker_init, initargs=(schemas,))
    work = _work(pool, sources, options, jobs, schemas)
    finished = False
    try:
        with signals_deferred():  # the first submit forks the workers
            try:
                pending.extend(itertools.islice(work, jobs * WINDOW_PER_JOB))
            except OSError as exc:  # past the process limit (EAGAIN), out of memory
                raise WorkersError(f"cannot start {jobs} worker processes: "
                                   f"{exc.strerror or exc} (use a smaller -j)") from None
        while pending:
            future, state = pending.popleft()
            outcomes = future.result()
            nxt = next(work, None)
            if nxt is not None:
                pending.append(nxt)
            if state is None:
                yield from outcomes
                continue
            state.parts += outcomes
            if state.complete:
                yield state.merged(options, schemas)
        finished = True
    finally:
        # Stopped (Ctrl-C, SIGTERM, an error): drop the queued chunks, end the workers.
        if not finished:
            stop_workers(pool)
        pool.shutdown(wait=finished, cancel_futures=not finished)
        for _future, state in pending:
            if state is not None:
                state.release()


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
    if len(sources) < SMALL_RUN_FILES and not any(map(split.splittable, sources)):
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
             report: Report, facts: list[Located], origins: reread.Origins,
             deliver: Callable[[Finding], bool],
             reporter: Reporter | None, on_file: Callable[[FileResult], None] | None,
             check_many: CheckMany | None = None,
             cache: cache_store.ResultCache | None = None) -> None:
    """Check every source; keep results, facts and the origins of the inputs that hold
    facts, deliver findings, in input order."""
    by_display: dict[str, Source] | None = None
    for outcome in _outcomes(sources, options, jobs, schemas, check_many, cache):
        report.add_file(outcome.result)
        facts.extend(outcome.facts)
        origin = outcome.origin or (reread.origin_of_stamp(outcome.stamp, outcome.lines,
                                                           outcome.indented)
                                    if outcome.facts and outcome.stamp else None)
        if origin is not None:
            if by_display is None:
                by_display = {s.display: s for s in sources}
            path = outcome.result.path
            origins[path] = (by_display[path], origin)
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
        cache.expect(sources)
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
        cache: cache_store.ResultCache | None = None,
        extra: Iterable[Finding] = ()) -> Report:
    """Check every source and return the report.

    ``reporter`` receives each finding as soon as its file is done (in input order).
    ``adjust`` may re-grade or drop findings (configuration, baseline) before they are
    reported; ``on_file`` is called after each file (progress). ``check_many`` checks the
    files elsewhere (``quizkit.cluster.checking``); the cross-file checks still run here.
    ``schemas``: the compiled schemas of ``options.profile`` (default: a book made for this
    run; pass one to reuse what it compiled). ``cache``: outcomes of unchanged inputs are
    taken from it, the others kept in it. ``extra``: findings made outside the pass (a team's
    checks over the tables), placed in their inputs and reported after the others.
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
    origins: reread.Origins = {}

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
    try:
        with fewer_collections():
            _collect(sources, options, jobs, schemas, report, facts, origins, deliver,
                     reporter, on_file, check_many, cache)
        if cache is not None:
            cache.close()  # the packs still being written are finished
        # Inputs are read again only for the ids with differing copies, and for the
        # findings of the batch checks (quizkit.checks.reread).
        reread.settle(facts, origins, options.limits)
        late = [f for check in REGISTRY.batch for f in check(facts)]
        reread.place(late, origins, options.limits, options.snippet_lines)
    finally:
        if cache is not None:
            cache.abort()  # a failed or stopped run leaves no temporary file
        reread.close(origin for _source, origin in origins.values())
    for finding in sorted(late, key=Finding.sort_key):
        deliver(finding)
    extra = list(extra)
    if extra:
        reread.place_read(extra, {s.display: s for s in sources}, options.limits,
                          options.snippet_lines)
        for finding in sorted(extra, key=Finding.sort_key):
            deliver(finding)
    if reporter is not None:
        reporter.finish(report)
    return report
