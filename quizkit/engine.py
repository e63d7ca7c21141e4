"""One file → findings; many files → a :class:`Report`, in parallel when asked.

Per document: parse (orjson) → kind → schema (compiled validator; the reference engine only
explains invalid documents) → structural checks → cross-file facts. Positions are resolved
only when a file has findings. Findings leave the engine in input-file order whatever the
number of jobs, so reports are deterministic.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from quizkit.documents import line_units
from quizkit.findings import FileResult, Finding, Report
from quizkit.kinds import closest_kinds, detect_kind
from quizkit.parsing import BOM, LineIndex, ParseError, loads, locate
from quizkit.reporters.base import Reporter
from quizkit.rules import checks, input_rules, load_rule_modules
from quizkit.rules.catalog import Rule
from quizkit.schemas import Profile, schema_findings
from quizkit.sources import DEFAULT_MAX_DECOMPRESSED, STDIN, ReadError, Source


@dataclass(frozen=True)
class Options:
    """What a worker needs to check a file (picklable)."""

    kind: str | None = None
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
    #: Enum profile (see quizkit.enums); empty leaves every enum open.
    profile: Profile = ()


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


def check_document(doc: Any, kind: str | None, profile: Profile = ()
                   ) -> tuple[str | None, list[tuple[Rule, str, str]], list[tuple[str, tuple]]]:
    """Kind, raw findings (rule, pointer, message) and facts (pointer, fact) of one document."""
    collected = _Document()
    kind = kind or detect_kind(doc)
    if kind is None:
        near = closest_kinds(doc)
        hint = f"; closest: {', '.join(near)}" if near else ""
        collected.emit(input_rules.UNKNOWN_KIND, "",
                       f"cannot tell the document kind from its shape{hint} (use --kind)")
        return None, collected.raw, []
    collected.raw.extend(schema_findings(kind, doc, profile))
    for check in checks.doc_checks(kind):
        check(doc, collected.emit)
    facts = [pf for collect in checks.collectors(kind) for pf in collect(doc)]
    return kind, collected.raw, facts


def _finding(path: str, record: int | None, rule: Rule, pointer: str, message: str,
             line: int | None = None, column: int | None = None) -> Finding:
    return Finding(path=path, pointer=pointer, rule=rule.name, severity=rule.severity,
                   message=message, record=record, line=line, column=column, code=rule.code)


def _position(text: str, index: LineIndex, pointer: str) -> tuple[int, int]:
    """Line and column of the value at ``pointer``, or of its nearest existing ancestor."""
    while True:
        offset = locate(text, pointer)
        if offset is not None or not pointer:
            return index.position(offset or 0)
        pointer = pointer.rsplit("/", 1)[0]


def check_bytes(path: str, data: bytes, lines: bool, options: Options) -> FileOutcome:
    """Check the bytes of one input; ``lines`` for JSON Lines."""
    result = FileResult(path=path, size=len(data))
    outcome = FileOutcome(result)
    if data.startswith(BOM):
        data = data[len(BOM):]
    units = line_units(data) if lines else [(None, data)]
    for record, chunk in units:
        result.documents += 1
        try:
            doc = loads(chunk)
        except ParseError as exc:
            result.readable = False
            text = chunk.decode("utf-8", errors="replace")
            line, column = LineIndex(text).position(min(exc.offset, len(text)))
            if record is not None:
                line += record - 1
            outcome.findings.append(_finding(path, record, input_rules.INVALID_JSON, "",
                                             f"invalid JSON: {exc.message}", line, column))
            continue
        kind, raw, facts = check_document(doc, options.kind, options.profile)
        if kind:
            result.kinds[kind] += 1
        outcome.facts.extend((path, record, p, f) for p, f in facts)
        if raw:
            text = chunk.decode("utf-8", errors="replace")
            index = LineIndex(text)
            for rule, pointer, message in raw:
                line, column = _position(text, index, pointer)
                if record is not None:
                    line += record - 1
                outcome.findings.append(_finding(path, record, rule, pointer, message,
                                                 line, column))
    if result.kinds:
        result.kind = result.kinds.most_common(1)[0][0] if len(result.kinds) == 1 else "mixed"
    outcome.findings.sort(key=Finding.sort_key)
    return outcome


def check_source(source: Source, options: Options) -> FileOutcome:
    """Read and check one source; a read failure is a finding, never an exception."""
    try:
        data = source.read(options.max_decompressed)
    except ReadError as exc:
        result = FileResult(path=source.display, readable=False)
        return FileOutcome(result, [_finding(source.display, None, input_rules.UNREADABLE, "",
                                             f"cannot read: {exc}")])
    return check_bytes(source.display, data, source.is_lines, options)


def _worker_init() -> None:
    load_rule_modules()


def _pool_worker_init() -> None:
    # Ctrl-C goes to the whole process group: the main process handles it, workers ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_init()


def _check_many(sources: list[Source], options: Options, jobs: int) -> Iterator[FileOutcome]:
    if jobs <= 1 or len(sources) < 2:
        _worker_init()
        for s in sources:
            yield check_source(s, options)
        return
    with ProcessPoolExecutor(max_workers=jobs, initializer=_pool_worker_init) as pool:
        chunk = max(1, min(32, len(sources) // (jobs * 8)))
        yield from pool.map(check_source, sources, [options] * len(sources), chunksize=chunk)


def default_jobs(sources: list[Source]) -> int:
    """All cores, but one for stdin or a small run where starting workers costs more."""
    if any(s.is_stdin for s in sources) or len(sources) < 4:
        return 1
    return os.cpu_count() or 1


def _locate_late(findings: list[Finding], options: Options) -> None:
    """Line and column of findings made after their file was checked (batch checks): the
    file is read again, only when it has such a finding. Stdin cannot be re-read."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.line is None and f.path != Source(STDIN).display:
            by_path.setdefault(f.path, []).append(f)
    for path, group in by_path.items():
        if not os.path.isfile(path):  # a FIFO or device cannot be read twice
            continue
        try:
            data = Source(path).read(options.max_decompressed)
        except ReadError:
            continue
        if data.startswith(BOM):
            data = data[len(BOM):]
        lines = data.split(b"\n") if any(f.record for f in group) else []
        texts: dict[int | None, tuple[str, LineIndex]] = {}
        for f in group:
            if f.record is not None and not 0 < f.record <= len(lines):
                continue
            if f.record not in texts:
                chunk = data if f.record is None else lines[f.record - 1]
                text = chunk.decode("utf-8", errors="replace")
                texts[f.record] = (text, LineIndex(text))
            text, index = texts[f.record]
            f.line, f.column = _position(text, index, f.pointer)
            if f.record is not None:
                f.line += f.record - 1


Adjust = Callable[[Finding], Finding | None]


def run(sources: Iterable[Source], options: Options | None = None, *,
        reporter: Reporter | None = None, jobs: int | None = None,
        adjust: Adjust | None = None,
        on_file: Callable[[FileResult], None] | None = None) -> Report:
    """Check every source and return the report.

    ``reporter`` receives each finding as soon as its file is done (in input order).
    ``adjust`` may re-grade or drop findings (configuration, baseline) before they are
    reported; ``on_file`` is called after each file (progress).
    """
    options = options or Options()
    load_rule_modules()  # batch checks run here, in the main process, whatever the job count
    sources = list(sources)
    jobs = default_jobs(sources) if jobs is None else jobs
    report = Report(keep_findings=reporter is None or reporter.needs_findings)
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
    for outcome in _check_many(sources, options, jobs):
        report.files.append(outcome.result)
        facts.extend(outcome.facts)
        for finding in outcome.findings:
            deliver(finding)
        if reporter is not None:
            reporter.file_done(outcome.result.path)
        if on_file is not None:
            on_file(outcome.result)
    batch = [f for check in checks.batch_checks() for f in check(facts)]
    _locate_late(batch, options)
    for finding in sorted(batch, key=Finding.sort_key):
        deliver(finding)
    if reporter is not None:
        reporter.finish(report)
    return report
