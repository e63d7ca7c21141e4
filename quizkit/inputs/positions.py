"""Offsets of many JSON Pointers in one document's text, for the files that have findings.

A locator that walks the text token by token from the start for every pointer (the test
oracle in ``tests/position_oracle.py``) pays a Python step per string and bracket to skip a
large array: ~30 ms for a pointer deep in a 150 KB package, paid again for every finding of
the file. Here one regular expression pass per text finds the matching close bracket of every
container (strings are skipped inside the regex engine, so Python sees only brackets); after
that, skipping any container is one dictionary look-up, and a pointer costs a few steps per
level.

The answers are the oracle's (``tests/test_engine_positions.py`` checks both on every pointer
of the samples): the offset of the value, ``None`` when the pointer is not in the document,
the last of duplicate keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from quizkit.catalog.pointers import split_pointer
from quizkit.inputs.parsing import LineIndex


@dataclass(frozen=True, slots=True)
class _Syntax:
    """The patterns and characters of JSON text, for ``str`` text or for the bytes of a file
    (UTF-8: JSON's structure is ASCII, so brackets, quotes and newlines are single bytes)."""

    # Everything up to the next bracket outside strings, then the bracket (possessive: no
    # backtracking, linear in the text).
    to_bracket: re.Pattern[Any]
    string: re.Pattern[Any]
    scalar: re.Pattern[Any]
    ws: re.Pattern[Any]
    quote: Any
    colon: Any
    comma: Any
    opening: Any  # "[{"
    empty: Any  # ""
    newline: Any
    indent: Any  # two spaces
    object_open: Any
    array_open: Any
    object_close: Any
    array_close: Any
    backslash: Any


def _syntax(kind: type) -> _Syntax:
    def lit(text: str) -> Any:
        return text.encode() if kind is bytes else text

    def pattern(text: str) -> re.Pattern[Any]:
        return re.compile(lit(text), re.DOTALL)

    return _Syntax(
        to_bracket=pattern(r'(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"|[^"\[\]{}])*+([\[\]{}])'),
        string=pattern(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'),
        scalar=pattern(r"[^\s,\]}]*+"), ws=pattern(r"[ \t\r\n]*+"),
        quote=lit('"'), colon=lit(":"), comma=lit(","), opening=lit("[{"), empty=lit(""),
        newline=lit("\n"), indent=lit("  "), object_open=lit("{"), array_open=lit("["),
        object_close=lit("}"), array_close=lit("]"), backslash=lit("\\"))


_SYNTAX = {str: _syntax(str), bytes: _syntax(bytes)}


class Positions:
    """Pointer → offset in ``text`` (the JSON text of one document, or its bytes)."""

    __slots__ = ("_arrays", "_brackets", "_close", "_objects", "_open", "indented", "syntax",
                 "text")

    def __init__(self, text: str | bytes, indented: bool = False) -> None:
        """``text``: the document's text, or its bytes (UTF-8; offsets are then byte offsets
        and keys are decoded), which spares a decoded copy of a large file.

        ``indented``: the text is exactly what orjson writes indented by two spaces (the
        intake proved it; the service's exports are). Then a non-empty container at depth
        ``d`` ends at the first line after it that is ``2d`` spaces and its closing bracket
        (a string holds no raw newline, deeper lines are indented more): one ``find`` skips
        it, however big, with no bracket matching.
        """
        self.text = text
        self.indented = indented
        self.syntax = _SYNTAX[bytes if isinstance(text, bytes) else str]
        self._brackets = self.syntax.to_bracket.finditer(text)
        self._open: list[int] = []
        self._close: dict[int, int] = {}
        self._objects: dict[int, dict[str, int]] = {}
        self._arrays: dict[int, list[int]] = {}

    def _end(self, start: int) -> int:
        """The offset just past the container opening at ``start``.

        Brackets are matched in one left-to-right pass, resumed only as far as the containers
        asked for (in practice to the end of the text: an object is read to its end, since
        a later duplicate key would win).
        """
        close = self._close
        if start in close:
            return close[start]
        opened = self._open
        for m in self._brackets:
            at = m.end() - 1
            if m.group(1) in self.syntax.opening:
                opened.append(at)
            elif opened:
                begin = opened.pop()
                close[begin] = at + 1
                if begin == start:
                    return at + 1
        return len(self.text)

    def _ws(self, i: int) -> int:
        return self.syntax.ws.match(self.text, i).end()  # type: ignore[union-attr]

    def _skip(self, i: int, depth: int) -> int:
        """The offset just past the value starting at ``i`` (at nesting ``depth``)."""
        text = self.text
        syn = self.syntax
        c = text[i : i + 1]
        if c == syn.quote:
            m = syn.string.match(text, i)
            return m.end() if m else len(text)
        if c in (syn.array_open, syn.object_open):
            if self.indented:
                if text[i + 1 : i + 2] in (syn.array_close, syn.object_close):
                    return i + 2  # empty: written "[]" or "{}"
                closing = syn.newline + syn.indent * depth + (
                    syn.array_close if c == syn.array_open else syn.object_close)
                at = text.find(closing, i)
                return at + len(closing) if at >= 0 else len(text)
            return self._end(i)
        return syn.scalar.match(text, i).end()  # type: ignore[union-attr]

    def _members(self, start: int, depth: int) -> dict[str, int]:
        """Key → value offset of the object opening at ``start`` (the last duplicate wins);
        ``depth``: the nesting of its values."""
        cached = self._objects.get(start)
        if cached is not None:
            return cached
        text = self.text
        syn = self.syntax
        members: dict[str, int] = {}
        i = self._ws(start + 1)
        while text[i : i + 1] == syn.quote:
            m = syn.string.match(text, i)
            if m is None:
                break
            raw = m.group()
            if syn.backslash in raw:
                name = orjson.loads(raw)
            else:
                name = raw[1:-1]
                if not isinstance(name, str):
                    name = name.decode("utf-8", errors="replace")
            i = self._ws(m.end())
            if text[i : i + 1] != syn.colon:
                break
            i = self._ws(i + 1)
            members[name] = i
            i = self._ws(self._skip(i, depth))
            if text[i : i + 1] == syn.comma:
                i = self._ws(i + 1)
        self._objects[start] = members
        return members

    def _elements(self, start: int, depth: int) -> list[int]:
        """Offsets of the elements of the array opening at ``start``; ``depth``: their
        nesting."""
        cached = self._arrays.get(start)
        if cached is not None:
            return cached
        text = self.text
        syn = self.syntax
        elements: list[int] = []
        i = self._ws(start + 1)
        while text[i : i + 1] not in (syn.array_close, syn.empty):
            elements.append(i)
            i = self._ws(self._skip(i, depth))
            if text[i : i + 1] != syn.comma:
                break
            i = self._ws(i + 1)
        self._arrays[start] = elements
        return elements

    def locate(self, pointer: str) -> int | None:
        """Offset of the value at ``pointer``, or None when the document has no such value.

        Each container's members are listed once and kept, so many pointers into one large
        array or object cost one pass over it, not one pass each.
        """
        text = self.text
        syn = self.syntax
        parts = split_pointer(pointer)
        i = self._ws(0)
        for depth, part in enumerate(parts, start=1):  # depth: of the values in the container
            c = text[i : i + 1]
            if c == syn.object_open:
                found = self._members(i, depth).get(part)
                if found is None:
                    return None
                i = found
            elif c == syn.array_open:
                if not part.isdigit():
                    return None
                elements = self._elements(i, depth)
                index = int(part)
                if index >= len(elements):
                    return None
                i = elements[index]
            else:
                return None
        return i


class DocumentText:
    """One document's text, for the positions of what is reported in it: the bracket table
    (:class:`Positions`) and the line index are built on the first question only, so a
    document with nothing to report costs nothing here."""

    __slots__ = ("_index", "_positions", "chunk", "indented", "shift")

    def __init__(self, chunk: bytes, record: int | None, indented: bool) -> None:
        self.chunk = chunk
        self.indented = indented
        self.shift = record - 1 if record is not None else 0
        self._positions: Positions | None = None
        self._index: LineIndex | None = None

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
