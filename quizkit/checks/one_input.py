"""One input → its findings and cross-file facts: read, parse, kind, schema, structural
checks, positions of what is reported (:func:`check_source`, :func:`check_bytes`).

:mod:`quizkit.checks.engine` runs this over many inputs, in parallel when asked.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quizkit.cache import stamps
from quizkit.cache import store as cache_store
from quizkit.cache.stamps import Stamp
from quizkit.catalog import input_rules
from quizkit.catalog.findings import FileResult, Finding
from quizkit.catalog.rule import Rule
from quizkit.checks import reread, snippets
from quizkit.checks.budget import Budget
from quizkit.checks.documents import line_units
from quizkit.inputs import intake
from quizkit.inputs.limits import Limits
from quizkit.inputs.positions import DocumentText
from quizkit.inputs.sources import ReadError, Source
from quizkit.model.entities import VERSION_KINDS
from quizkit.model.kinds import detect_kind, unknown_kind_message
from quizkit.model.schemas import Profile, SchemaBook
from quizkit.model.service_names import ServiceNames
from quizkit.reporters.service_blocks import VersionOutline, outline
from quizkit.rules import REGISTRY
from quizkit.rules.checks import RawFinding, Registry
from quizkit.rules.facts import Content, Fact, Located, Place, text_digest
from quizkit.rules.navigate import DocumentFacts, versions_of

if TYPE_CHECKING:
    pass


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
PointedFact = tuple[str, Fact]


@dataclass
class FileOutcome:
    result: FileResult
    findings: list[Finding] = field(default_factory=list)
    facts: list[Located] = field(default_factory=list)
    #: (path, record, outline) of each document that holds versions (the service's blocks).
    outlines: list[tuple[str, int | None, VersionOutline]] = field(default_factory=list)
    #: The input as it was read (a local file that could be read: for the cache, and to
    #: read it again for a cross-file finding).
    stamp: Stamp | None = None
    #: Of another input that holds facts (stdin, object storage): what is needed to read it
    #: again (:mod:`quizkit.checks.reread`).
    origin: reread.Origin | None = None
    #: Read as JSON Lines.
    lines: bool = False
    #: Whether the input is one document exactly as orjson writes it indented.
    indented: bool = False


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
    # Valid under the kind's proving schema: valid, and nothing for the rules it proves.
    proven = fast and schemas is not None and schemas.validator(kind).proves(doc)
    if schemas is not None and not proven:
        for raw in schemas.iter_findings(kind, doc):
            schema_found = True
            emit(*raw)
    # Checked without a schema finding: the document has the schema's types (the index skips
    # their tests).
    versions = versions_of(kind, doc, fast, typed=schemas is not None and not schema_found,
                           whole=proven)
    facts = DocumentFacts(kind, doc, versions, proven, fast)
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


def check_bytes(path: str, data: bytes, lines: bool, options: Options,
                schemas: SchemaBook) -> FileOutcome:
    """Check the bytes of one input; ``lines`` for JSON Lines; ``schemas`` compiled for
    ``options.profile``.

    Findings leave with their positions (and snippets, when asked); cross-file facts with
    their path, record and pointer only (:mod:`quizkit.checks.reread` places what is reported).
    """
    outcome = FileOutcome(FileResult(path=path, size=len(data)))
    prepared, problems = intake.prepare(data)
    add_problems(outcome, path, None, problems)
    if prepared is None:
        outcome.result.readable = False
        return outcome
    budget = Budget(options.limits.max_findings)
    check_units(outcome, line_units(prepared) if lines else [(None, prepared)], options,
                schemas, budget)
    if budget.more:
        outcome.findings.append(budget.finding(path))
    finish(outcome, prepared, options)
    return outcome


def check_units(outcome: FileOutcome, units: Iterable[tuple[int | None, bytes]],
                options: Options, schemas: SchemaBook, budget: Budget) -> None:
    """Check each (record, bytes) document of one input into ``outcome``; ``budget`` caps
    the findings the rules list (``--max-findings``)."""
    path = outcome.result.path
    result = outcome.result
    for record, chunk in units:
        result.documents += 1
        mine = 0 if record is None else len(outcome.findings)  # this document's findings
        doc, problems, indented = intake.parse_text(chunk, options.limits.max_depth)
        add_problems(outcome, path, record, problems)
        if doc is intake.UNREAD:
            result.readable = False
            continue
        try:
            kind, raw, facts = check_document(doc, options.kind, schemas, options.service,
                                              budget=budget)
        except RecursionError:  # a check recursed too deep: a finding, never a crash
            result.readable = False
            add_problems(outcome, path, record, [intake.too_deep_to_check()])
            continue
        if kind:
            result.kinds[kind] += 1
        if options.outlines and kind in VERSION_KINDS:
            pointers = {f.pointer for f in outcome.findings[mine:]} | {p for _, p, _ in raw}
            outcome.outlines.append((path, record, outline(kind, doc, pointers)))
        # The document is not needed for positions: free it first, so that a large file
        # does not hold both at once.
        doc = None
        outcome.facts.extend(Located(Place(path, record, pointer), fact)
                             for pointer, fact in _whole_digests(facts, chunk))
        if raw:
            _place(outcome, path, record, DocumentText(chunk, record, indented), raw)
        outcome.indented = indented and record is None


def _whole_digests(facts: list[PointedFact], chunk: bytes) -> list[PointedFact]:
    """The facts, each whole document's content (a collector leaves its digest out) with the
    digest of the document's bytes."""
    return [("", fact._replace(digest=text_digest(chunk)))
            if not pointer and type(fact) is Content and fact.digest is None
            else (pointer, fact) for pointer, fact in facts]


def finish(outcome: FileOutcome, prepared: bytes, options: Options) -> None:
    """The file's kind, the snippets of its findings (from ``prepared``, its text), and its
    findings in report order."""
    result = outcome.result
    if result.kinds:
        result.kind = next(iter(result.kinds)) if len(result.kinds) == 1 else "mixed"
    if options.snippet_lines:
        _attach_snippets(outcome, prepared, options.snippet_lines)
    outcome.findings.sort(key=Finding.sort_key)


def _place(outcome: FileOutcome, path: str, record: int | None, text: DocumentText,
           raw: list[RawFinding]) -> None:
    """The findings of one document, with their positions in its text."""
    for rule, pointer, message in raw:
        line, column = text.position(pointer)
        outcome.findings.append(_finding(path, record, rule, pointer, message,
                                         line, column))


def _attach_snippets(outcome: FileOutcome, data: bytes, context: int) -> None:
    """Source lines around each finding."""
    if outcome.findings:
        snippets.attach_file(outcome.findings, data, context)


def add_problems(outcome: FileOutcome, path: str, record: int | None,
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
    before = stamps.stat_before_read(source.path) if cache_store.cacheable(source) else None
    try:
        data = source.read(options.limits.max_decompressed, options.limits.max_file_size)
    except ReadError as exc:
        return unreadable(name, exc)
    lines = source.holds_lines(data)
    outcome = check_bytes(name, data, lines, options, schemas)
    outcome.lines = lines
    if before is not None and (options.stamp or outcome.facts):
        outcome.stamp = stamps.stamp(before, data)  # for the cache, and to read it again
    elif outcome.facts:  # standard input (spooled), an object in object storage
        outcome.origin = reread.origin_of(source, data, lines, outcome.indented)
    return outcome


def unreadable(name: str, exc: ReadError) -> FileOutcome:
    rule = input_rules.INPUT_TOO_LARGE if exc.limit else input_rules.UNREADABLE
    return FileOutcome(FileResult(path=name, readable=False),
                       [_finding(name, None, rule, "", f"cannot read: {exc}")])
