"""The details of the changes a report shows, read again from the exports.

The comparison kept only digests; here each file that holds a reported record is read once
more (a chunk of changes at a time, so memory stays bounded), its documents parsed, and for
each record its line and column found and, for a changed record, its fields compared.
A file that can no longer be read gives locations without a line and no fields.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from quizkit.checks.documents import line_units
from quizkit.diff.fields import fields
from quizkit.diff.records import body_at
from quizkit.diff.result import Change, Location
from quizkit.inputs import intake
from quizkit.inputs.parsing import LineIndex
from quizkit.inputs.positions import Positions
from quizkit.inputs.sources import ReadError, Source

#: Changes detailed at a time.
CHUNK = 2_000

Row = tuple[Any, ...]


class _Document:
    """One document of a file: its bytes, value, and positions (made when first asked)."""

    def __init__(self, chunk: bytes, line: int | None) -> None:
        self.chunk = chunk
        self.line = line
        self.value, _ = intake.parse(chunk)
        self._positions: Positions | None = None
        self._lines: LineIndex | None = None

    def place(self, pointer: str) -> tuple[int | None, int | None]:
        if self._positions is None:
            self._positions = Positions(self.chunk)
            self._lines = LineIndex(self.chunk)
        offset = self._positions.locate(pointer)
        if offset is None or self._lines is None:
            return None, None
        line, column = self._lines.position(offset)
        return (line if self.line is None else self.line + line - 1), column


def _documents(path: str) -> dict[int | None, _Document]:
    """The documents of ``path`` by JSON Lines line (``None`` for a whole file)."""
    source = Source(path)
    try:
        data = source.read()
    except ReadError:
        return {}
    prepared, _ = intake.prepare(data)
    if prepared is None:
        return {}
    if source.holds_lines(data):
        return {n: _Document(chunk, n) for n, chunk in line_units(prepared)}
    return {None: _Document(prepared, None)}


def detailed(rows: Iterable[Row]) -> Iterator[Change]:
    """Changes with locations and fields, from rows of :func:`quizkit.diff.compare.changes`."""
    chunk: list[Row] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= CHUNK:
            yield from _detail(chunk)
            chunk = []
    if chunk:
        yield from _detail(chunk)


def _detail(rows: list[Row]) -> list[Change]:
    wanted: dict[str, list[tuple[int, int]]] = defaultdict(list)  # file -> (row, side)
    for i, row in enumerate(rows):
        if row[9] is not None or row[10] is not None:  # a table row: no document to read
            continue  # (its file may have changed since it was loaded)
        if row[3] is not None:
            wanted[row[3]].append((i, 0))
        if row[6] is not None:
            wanted[row[6]].append((i, 1))
    places: dict[tuple[int, int], tuple[int | None, int | None]] = {}
    bodies: dict[tuple[int, int], Any] = {}
    for path, needs in wanted.items():
        docs = _documents(path)
        for i, side in needs:
            table, change = rows[i][0], rows[i][2]
            record, pointer = rows[i][4 + 3 * side], rows[i][5 + 3 * side]
            doc = docs.get(record)
            if doc is None or doc.value is intake.UNREAD:
                continue
            places[(i, side)] = doc.place(pointer)
            if change == "changed":
                bodies[(i, side)] = body_at(doc.value, table, pointer)
    out = []
    for i, (table, key, change, o_file, _o_rec, o_ptr, n_file, _n_rec, n_ptr, o_body,
            n_body) in enumerate(rows):
        old = Location(o_file, o_ptr, *places.get((i, 0), (None, None))) if o_file else None
        new = Location(n_file, n_ptr, *places.get((i, 1), (None, None))) if n_file else None
        found = []
        if o_body is not None and n_body is not None:  # a table row's columns
            found = list(fields(orjson.loads(o_body), orjson.loads(n_body)))
        elif change == "changed" and (i, 0) in bodies and (i, 1) in bodies:
            found = list(fields(bodies[(i, 0)], bodies[(i, 1)]))
        out.append(Change(table, key, change, old, new, found))
    return out
