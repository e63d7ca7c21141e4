"""Parsed documents of a set of sources, for commands that read rather than validate.

Inputs are read as ``quizkit validate`` reads them (:mod:`quizkit.inputs.intake`: BOM, encodings,
depth). Nothing is skipped silently: an input that cannot be read or parsed is kept in
:class:`SkippedInputs` with its path and the reason, for the command to report (exit 3);
documents of unknown kind are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from quizkit.inputs import intake
from quizkit.inputs.sources import ReadError, Source
from quizkit.model.kinds import detect_kind


@dataclass
class SkippedInputs:
    """Inputs that could not be read or parsed, as (path, reason), documents of unknown kind,
    and the documents of the inputs that could be.

    ``path`` is the display form; a JSON Lines record is ``path:line``.
    """

    unreadable: list[tuple[str, str]] = field(default_factory=list)
    unparseable: list[tuple[str, str]] = field(default_factory=list)
    unknown_kind: int = 0
    #: Documents of the inputs read and parsed in full, recognised or not, counted as
    #: ``validate`` counts them (:func:`is_record`); those of the others are counted by
    #: :func:`quizkit.checks.input_report.report`.
    documents: int = 0
    #: The sources behind those entries, each with the first reason (and stdin's bytes, which
    #: cannot be read twice), for :func:`quizkit.checks.input_report.report`.
    sources: list[tuple[Source, str, bytes | None]] = field(default_factory=list)

    def failed(self) -> list[tuple[str, str]]:
        """Every input that could not be read or parsed, in the order met."""
        return self.unreadable + self.unparseable


def is_record(line: bytes) -> bool:
    """Whether a line of a JSON Lines file is a record, a document: any line but a blank one.

    Every count of documents follows this one rule (``validate``'s, ``load``'s): a JSON file
    is one document whatever it holds (an array too), a JSON Lines file one per record.
    """
    return bool(line.strip())


def line_units(data: bytes, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each record (:func:`is_record`) of a JSON Lines text whose
    first line is line ``first`` of its file."""
    for number, line in enumerate(data.split(b"\n"), start=first):
        if is_record(line):
            yield number, line


def iter_documents(sources: Iterable[Source], skipped: SkippedInputs | None = None,
                   kind: str | None = None) -> Iterator[tuple[str, int | None, str, Any]]:
    """(path, record, kind, document) for every readable, parseable, recognised document."""
    skipped = skipped if skipped is not None else SkippedInputs()
    for source in sources:
        try:
            data = source.read()
        except ReadError as exc:
            skipped.unreadable.append((source.display, str(exc)))
            skipped.sources.append((source, str(exc), None))
            continue
        prepared, problems = intake.prepare(data)
        if prepared is None:
            skipped.unparseable.append((source.display, problems[-1].message))
            skipped.sources.append((source, problems[-1].message,
                                    data if source.is_stdin else None))
            continue
        units = line_units(prepared) if source.holds_lines(data) else [(None, prepared)]
        count = 0
        for record, chunk in units:
            count += 1
            doc, problems = intake.value(chunk)
            if doc is intake.UNREAD:
                where = source.display if record is None else f"{source.display}:{record}"
                reason = problems[0].message if problems else "not JSON"
                skipped.unparseable.append((where, reason))
                if not skipped.sources or skipped.sources[-1][0] is not source:
                    skipped.sources.append((source, reason, data if source.is_stdin else None))
                continue
            doc_kind = kind or detect_kind(doc)
            if doc_kind is None:
                skipped.unknown_kind += 1
                continue
            yield source.display, record, doc_kind, doc
        if not skipped.sources or skipped.sources[-1][0] is not source:
            skipped.documents += count
