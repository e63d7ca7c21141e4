"""Parsed documents of a set of sources, for commands that read rather than validate.

Inputs are read as ``quizkit validate`` reads them (:mod:`quizkit.intake`: BOM, encodings,
depth); unreadable or unparseable ones are counted and skipped, since ``validate`` is the tool
that reports them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from quizkit import intake
from quizkit.kinds import detect_kind
from quizkit.sources import ReadError, Source


@dataclass
class Skipped:
    """Inputs that could not be read, parsed or recognised."""

    unreadable: int = 0
    unparseable: int = 0
    unknown_kind: int = 0


def line_units(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each non-blank line of a JSON Lines text."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def iter_documents(sources: Iterable[Source], skipped: Skipped | None = None,
                   kind: str | None = None) -> Iterator[tuple[str, int | None, str, Any]]:
    """(path, record, kind, document) for every readable, parseable, recognised document."""
    skipped = skipped if skipped is not None else Skipped()
    for source in sources:
        try:
            data = source.read()
        except ReadError:
            skipped.unreadable += 1
            continue
        prepared, _ = intake.prepare(data)
        if prepared is None:
            skipped.unparseable += 1
            continue
        units = line_units(prepared) if source.is_lines else [(None, prepared)]
        for record, chunk in units:
            doc, _ = intake.parse(chunk)
            if doc is intake.UNREAD:
                skipped.unparseable += 1
                continue
            doc_kind = kind or detect_kind(doc)
            if doc_kind is None:
                skipped.unknown_kind += 1
                continue
            yield source.display, record, doc_kind, doc
