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

import orjson

from quizkit.pointers import split_pointer

# Everything up to the next bracket outside strings, then the bracket (possessive: no
# backtracking, linear in the text).
_TO_BRACKET = re.compile(r'(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"|[^"\[\]{}])*+([\[\]{}])', re.DOTALL)
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SCALAR = re.compile(r"[^\s,\]}]*+")
_WS = re.compile(r"[ \t\r\n]*+")


class Positions:
    """Pointer → character offset in ``text`` (the JSON text of one document)."""

    __slots__ = ("_arrays", "_brackets", "_close", "_objects", "_open", "byte_view", "indented",
                 "text")

    def __init__(self, text: str, indented: bool = False, byte_view: bool = False) -> None:
        """``indented``: the text is exactly what orjson writes indented by two spaces (the
        intake proved it; the service's exports are). Then a non-empty container at depth
        ``d`` ends at the first line after it that is ``2d`` spaces and its closing bracket
        (a string holds no raw newline, deeper lines are indented more): one ``str.find``
        skips it, however big, with no bracket matching. ``byte_view``: ``text`` is
        :func:`quizkit.parsing.byte_view`'s (offsets are byte offsets; keys are decoded).
        """
        self.text = text
        self.indented = indented
        self.byte_view = byte_view
        self._brackets = _TO_BRACKET.finditer(text)
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
            if m.group(1) in "[{":
                opened.append(at)
            elif opened:
                begin = opened.pop()
                close[begin] = at + 1
                if begin == start:
                    return at + 1
        return len(self.text)

    def _ws(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def _skip(self, i: int, depth: int) -> int:
        """The offset just past the value starting at ``i`` (at nesting ``depth``)."""
        text = self.text
        c = text[i : i + 1]
        if c == '"':
            m = _STRING.match(text, i)
            return m.end() if m else len(text)
        if c in ("[", "{"):
            if self.indented:
                if text[i + 1 : i + 2] in ("]", "}"):
                    return i + 2  # empty: written "[]" or "{}"
                closing = "\n" + "  " * depth + ("]" if c == "[" else "}")
                at = text.find(closing, i)
                return at + len(closing) if at >= 0 else len(text)
            return self._end(i)
        return _SCALAR.match(text, i).end()  # type: ignore[union-attr]

    def _members(self, start: int, depth: int) -> dict[str, int]:
        """Key → value offset of the object opening at ``start`` (the last duplicate wins);
        ``depth``: the nesting of its values."""
        cached = self._objects.get(start)
        if cached is not None:
            return cached
        text = self.text
        members: dict[str, int] = {}
        i = self._ws(start + 1)
        while text[i : i + 1] == '"':
            m = _STRING.match(text, i)
            if m is None:
                break
            raw = m.group()
            if self.byte_view and not raw.isascii():
                raw = raw.encode("latin-1").decode("utf-8", errors="replace")
            name = orjson.loads(raw) if "\\" in raw else raw[1:-1]
            i = self._ws(m.end())
            if text[i : i + 1] != ":":
                break
            i = self._ws(i + 1)
            members[name] = i
            i = self._ws(self._skip(i, depth))
            if text[i : i + 1] == ",":
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
        elements: list[int] = []
        i = self._ws(start + 1)
        while text[i : i + 1] not in ("]", ""):
            elements.append(i)
            i = self._ws(self._skip(i, depth))
            if text[i : i + 1] != ",":
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
        parts = split_pointer(pointer)
        i = self._ws(0)
        for depth, part in enumerate(parts, start=1):  # depth: of the values in the container
            c = text[i : i + 1]
            if c == "{":
                found = self._members(i, depth).get(part)
                if found is None:
                    return None
                i = found
            elif c == "[":
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
