"""Bytes → document with orjson, and positions (line, column) in the text, on demand.

Positions are computed only for documents that have findings: clean documents pay nothing.
Columns count characters (code points), 1-based, as editors show them.

Everything here that walks text is iterative and linear: a document nested 1024 deep or a
100 MB string costs time in proportion to its size and no recursion.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from quizkit.catalog.pointers import join_pointer, split_pointer

BOM = b"\xef\xbb\xbf"


class LineIndex:
    """Offsets → (line, column), 1-based, in a text or in the bytes of a file.

    The first few positions are counted directly (``count`` and ``rfind`` run in C): a file
    has one or two findings far more often than many. The table of line starts (an array of
    8-byte offsets: a list of ints costs 36 bytes a line) is built only when more are asked
    for. In bytes (UTF-8), offsets are byte offsets and columns still count characters:
    positions are found in the file's bytes themselves, where a decoded copy would cost up to
    four bytes a character as soon as the text holds one emoji (a 458 MB export: 1.8 GB).
    """

    #: Positions answered by counting before the table is built.
    COUNTED = 6

    __slots__ = ("_asked", "_last", "_newline", "_starts", "text")

    def __init__(self, text: str | bytes) -> None:
        self.text = text
        self._newline: Any = b"\n" if isinstance(text, bytes) else "\n"
        self._starts: array[int] | None = None
        self._asked = 0
        # The last column counted in bytes: (line start, offset, characters before it). On
        # one long line (compact text: the whole document) positions asked in order then
        # cost the bytes between them, not the whole line each time.
        self._last: tuple[int, int, int] = (-1, 0, 0)

    @property
    def starts(self) -> array[int]:
        if self._starts is None:
            self._starts = array("q", [0])
            self._starts.extend(m.end() for m in re.finditer(self._newline, self.text))
        return self._starts

    def position(self, offset: int) -> tuple[int, int]:
        if self._starts is None and self._asked < self.COUNTED and offset >= 0:
            self._asked += 1
            text = self.text
            line = text.count(self._newline, 0, offset) + 1
            column = offset - text.rfind(self._newline, 0, offset)
        else:
            starts = self.starts
            line = bisect_right(starts, offset)
            column = offset - starts[line - 1] + 1
        if column > 1 and isinstance(self.text, bytes):
            column = self._characters(offset - column + 1, offset) + 1
        return line, column

    def _characters(self, start: int, offset: int) -> int:
        """Characters of the UTF-8 bytes from ``start`` (a line start) to ``offset``."""
        line_start, counted_to, counted = self._last
        if line_start != start or counted_to > offset:
            counted_to, counted = start, 0
        part = self.text[counted_to:offset]
        # Every byte but a continuation byte (0b10xxxxxx) starts a character.
        counted += len(part) if part.isascii() else \
            len(part.translate(None, _CONTINUATION))  # type: ignore[arg-type]
        self._last = (start, offset, counted)
        return counted


_CONTINUATION = bytes(range(0x80, 0xC0))

_SCALAR = re.compile(r"[^\s,\]}:]*")
# One token of valid JSON after optional whitespace: group 1 is the token's first character.
_TOKEN = re.compile(r"[ \t\r\n]*(.)", re.DOTALL)
# The rest of a string literal after its opening quote (possessive: no backtracking state).
_STRING_BODY = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)


def string_end(text: str, i: int) -> int:
    """The offset just past the string literal whose opening quote is at ``i``.

    The common case (no escaped quote) is one ``str.find``; otherwise a possessive regex,
    which keeps no backtracking state: a 100 MB string costs one linear scan either way.
    """
    k = text.find('"', i + 1)
    if k < 0:
        return len(text)
    if text[k - 1] != "\\":
        return k + 1
    m = _STRING_BODY.match(text, i + 1)
    return m.end() if m else len(text)


def decode_key(raw: str) -> str:
    """The name of a key from its literal (with quotes)."""
    return orjson.loads(raw) if "\\" in raw else raw[1:-1]


@dataclass(slots=True)
class Token:
    """A notable token met by :func:`scan`: a key seen twice, a long integer, a deep value."""

    what: str  # "duplicate", "integer", "deep"
    offset: int  # character offset of the token
    pointer: str  # JSON Pointer of the value (the duplicate key's value, the number, ...)
    text: str = ""  # the key's name or the number's digits
    first: int = -1  # for a duplicate key: offset of the first occurrence


INT_MIN = -(2**63)
UINT_MAX = 2**64 - 1


def scan(text: str, max_depth: int | None = None) -> Iterator[Token]:
    """Walk well-formed JSON text once, iteratively, yielding the tokens orjson cannot report.

    - ``duplicate``: a key already present in the same object (orjson keeps the last value);
    - ``integer``: an integer outside ``[-2**63, 2**64-1]`` (orjson reads it as a lossy float);
    - ``deep``: the first container nested deeper than ``max_depth`` (then the scan stops).

    This is the slow, precise path: the engine runs it only when a cheap test on the bytes
    says one of these may be present.
    """
    # A frame per open container: [is_object, key names → offsets, current key or index].
    stack: list[list[Any]] = []
    i = 0
    n = len(text)
    expect_key = False
    while i < n:
        m = _TOKEN.match(text, i)
        if m is None:
            return
        start = m.start(1)
        c = m.group(1)
        if c == "{" or c == "[":
            if max_depth is not None and len(stack) >= max_depth:
                yield Token("deep", start, _pointer(stack))
                return
            stack.append([c == "{", {} if c == "{" else None, 0])
            expect_key = c == "{"
            i = start + 1
        elif c == "}" or c == "]":
            if stack:
                stack.pop()
            expect_key = False
            i = start + 1
        elif c == ",":
            if stack:
                top = stack[-1]
                if top[0]:
                    expect_key = True
                else:
                    top[2] += 1
            i = start + 1
        elif c == ":":
            i = start + 1
        elif c == '"':
            end = string_end(text, start)
            if expect_key and stack:
                top = stack[-1]
                name = decode_key(text[start:end])
                top[2] = name
                seen = top[1]
                if name in seen:
                    yield Token("duplicate", start, _pointer(stack), name, seen[name])
                seen[name] = start
                expect_key = False
            i = end
        else:
            end = _SCALAR.match(text, start).end()
            token = text[start:end]
            if _out_of_range(token):
                yield Token("integer", start, _pointer(stack), token)
            i = max(end, start + 1)


def _out_of_range(token: str) -> bool:
    digits = token[1:] if token[:1] == "-" else token
    if len(digits) < 19 or not digits.isascii() or not digits.isdigit():
        return False
    # More than 20 digits is out of range whatever they are (and int() would refuse them).
    return len(digits) > 20 or not INT_MIN <= int(token) <= UINT_MAX


def _pointer(stack: list[list[Any]]) -> str:
    return join_pointer(frame[2] for frame in stack)


__all__ = ["BOM", "LineIndex", "Token", "decode_key", "join_pointer", "scan",
           "split_pointer", "string_end"]
