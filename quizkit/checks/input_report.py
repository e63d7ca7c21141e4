"""The inputs a command could not read or parse, reported as ``validate`` reports them.

``load``, ``summary``, ``query`` and ``enums infer`` read exports their own way (DuckDB, or
documents one by one), but an input they cannot use is the same finding everywhere: the input
rule (``P001 unreadable-input``, ``P002 invalid-json``, ...), message, path as given, line and
column of ``quizkit validate``, because it comes from the same check
(:func:`quizkit.engine.check_source`) run on just those inputs. A baseline absorbs the ones it
holds, and the exit code follows :mod:`quizkit.catalog.exits`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quizkit.catalog import exits, input_rules
from quizkit.catalog.findings import Finding, Severity
from quizkit.checks import engine
from quizkit.checks.baseline import Baseline
from quizkit.inputs import intake
from quizkit.inputs.limits import Limits
from quizkit.inputs.sources import ReadError, Source
from quizkit.model.schemas import SchemaBook
from quizkit.reporters.text import concise_line, files_line
from quizkit.settings.config import INPUT_PREFIX


@dataclass
class InputReport:
    """What a command read: ``files`` from the walk, ``documents``, and the input findings of
    the ``unreadable`` files that the baseline did not absorb."""

    files: int = 0
    documents: int = 0
    unreadable: int = 0
    absorbed: int = 0
    findings: list[Finding] = field(default_factory=list)
    #: What the command's other findings say by ``--fail-on`` (0 or 1, :func:`findings_code`),
    #: for a command that reports findings beside its inputs (``load``).
    findings_code: int = exits.OK

    @property
    def exit_code(self) -> int:
        return exits.for_run(self.unreadable - self.absorbed, self.findings_code)

    def lines(self) -> list[str]:
        """For stderr: one line per finding, then what was read when some input was not."""
        out = [concise_line(f) for f in self.findings]
        if self.unreadable:
            out.append(f"quizkit: {files_line(self.files, self.documents, self.unreadable)}")
        return out


def report(unreadable: Iterable[tuple[Source, str, bytes | None]], *, files: int,
           documents: int,
           baseline: str | os.PathLike[str] | None = None,
           read_in_part: Iterable[Source] = ()) -> InputReport:
    """The report of a command that read ``files`` (``documents`` in those it could use) and
    could not use the sources in ``unreadable``, each with the command's own reason and, for
    a source that cannot be read again (stdin), the bytes it gave.

    Each source is checked as ``validate`` checks it; its input findings are kept. A source
    the check reads without an input finding (a reader stricter than JSON's) becomes
    ``P001 unreadable-input`` with the command's reason.

    ``read_in_part`` are JSON Lines files the command used but for some lines (its documents
    counted): one the check cannot read in full (a line that is not JSON) is an input
    ``validate`` could not read, counted and reported as such.
    """
    known = Baseline.load(Path(baseline)) if baseline is not None else None
    options = engine.Options(outlines=False)
    schemas = SchemaBook(())
    out = InputReport(files=files, documents=documents)
    seen: set[str] = set()
    for source, reason, data in unreadable:
        if source.display in seen:
            continue
        seen.add(source.display)
        out.unreadable += 1
        checked = (engine.check_source(source, options, schemas) if data is None else
                   engine.check_bytes(source.display, data, source.holds_lines(data), options,
                                      schemas))
        out.documents += checked.result.documents  # counted as validate counts them
        found = [f for f in checked.findings
                 if f.code.startswith(INPUT_PREFIX) and f.severity >= Severity.ERROR]
        if not found:
            rule = input_rules.UNREADABLE
            found = [Finding(source.display, "", rule.name, rule.severity,
                             f"cannot read: {reason}", code=rule.code)]
        _add(out, found, known)
    for source in read_in_part:
        if source.display in seen:
            continue
        seen.add(source.display)
        checked = engine.check_source(source, options, schemas)
        if not checked.result.readable:  # a line that is not JSON, not one of unknown kind
            out.unreadable += 1
            _add(out, [f for f in checked.findings if f.code.startswith(INPUT_PREFIX)
                       and f.severity >= Severity.ERROR], known)
    return out


def _add(out: InputReport, found: list[Finding], known: Baseline | None) -> None:
    """The input findings of one unreadable input, but those the baseline holds (an input
    whose findings it holds all is absorbed)."""
    kept = [f for f in found if known is None or known(f) is not None]
    if not kept:
        out.absorbed += 1
    out.findings.extend(kept)


def as_given(name: str, paths: Sequence[str]) -> str:
    """``name`` (an absolute path, as ``load`` keeps it) as the walk of ``paths`` names it:
    below the path given on the command line, in its spelling."""
    for given in paths:
        root = os.path.abspath(given)
        if name == root:
            return given
        if name.startswith(root.rstrip(os.sep) + os.sep):
            return os.path.join(given, name[len(root.rstrip(os.sep)) + 1:])
    return name


def unreadable_reason(source: Source, limits: Limits | None = None) -> str | None:
    """Why the checks cannot read ``source`` as a whole: the message of its first input
    error, as ``validate`` reports it (read, decode, parse, as
    :func:`quizkit.checks.engine.check_bytes` does); None when they can. A JSON Lines file
    is read line by line, so a bad line is a finding of its own, not a reason: only bytes
    that cannot be read or decoded at all are.

    ``load`` follows this verdict for what DuckDB reads, so that no file is both loaded and
    reported unreadable.
    """
    limits = limits or Limits()
    try:
        data = source.read(limits.max_decompressed, limits.max_file_size)
    except ReadError as exc:
        return f"cannot read: {exc}"
    lines = source.holds_lines(data)
    prepared, problems = intake.prepare(data)
    if prepared is not None:
        if lines:
            return None
        doc, problems, _indented = intake.parse_text(prepared, limits.max_depth)
        if doc is not intake.UNREAD:
            return None
    errors = [p.message for p in problems if p.rule.severity is Severity.ERROR]
    return errors[0] if errors else "cannot be read"
