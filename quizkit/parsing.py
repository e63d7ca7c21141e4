"""Bytes → document with orjson, and positions (line, column) of a JSON Pointer, on demand.

Positions are computed only for documents that have findings: clean documents pay nothing.
Columns count characters (code points), 1-based, as editors show them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import orjson

BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class ParseError(Exception):
    """The document is not JSON; ``offset`` is a character offset into the text."""

    message: str
    offset: int


def loads(data: bytes) -> Any:
    """Parse one JSON document. Raises :class:`ParseError` with the offset where parsing stopped."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ParseError(_plain(exc.msg), exc.pos) from None


def _plain(message: str) -> str:
    return message.split(": line ", 1)[0] or "invalid JSON"


class LineIndex:
    """Offsets → (line, column), 1-based."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"[^\s,\]}]*")
_STRUCT = re.compile(r'["\[\]{}]')


def _skip_ws(text: str, i: int) -> int:
    return _WS.match(text, i).end()


def _skip_value(text: str, i: int) -> int:
    """The offset just past the JSON value starting at ``i``."""
    c = text[i : i + 1]
    if c == '"':
        m = _STRING.match(text, i)
        return m.end() if m else len(text)
    if c not in ("{", "["):
        return _SCALAR.match(text, i).end()
    depth = 0
    pos = i
    while True:
        m = _STRUCT.search(text, pos)
        if m is None:
            return len(text)
        ch = m.group()
        if ch == '"':
            s = _STRING.match(text, m.start())
            pos = s.end() if s else len(text)
            continue
        pos = m.end()
        if ch in "{[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return pos


def _key(raw: str) -> str:
    return orjson.loads(raw) if "\\" in raw else raw[1:-1]


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def locate(text: str, pointer: str) -> int | None:
    """Character offset of the value at ``pointer`` in ``text``, or None if it is not there.

    With duplicate keys the last one wins, as orjson keeps the last value.
    """
    parts = [_unescape(p) for p in pointer.split("/")[1:]] if pointer else []
    i = _skip_ws(text, 0)
    for part in parts:
        c = text[i : i + 1]
        if c == "{":
            found = None
            i = _skip_ws(text, i + 1)
            while i < len(text) and text[i] == '"':
                m = _STRING.match(text, i)
                if m is None:
                    return found
                name = _key(m.group())
                i = _skip_ws(text, m.end())
                if text[i : i + 1] != ":":
                    return found
                i = _skip_ws(text, i + 1)
                if name == part:
                    found = i
                i = _skip_ws(text, _skip_value(text, i))
                if text[i : i + 1] == ",":
                    i = _skip_ws(text, i + 1)
            if found is None:
                return None
            i = found
        elif c == "[":
            if not part.isdigit():
                return None
            i = _skip_ws(text, i + 1)
            for _ in range(int(part)):
                if text[i : i + 1] in ("]", ""):
                    return None
                i = _skip_ws(text, _skip_value(text, i))
                if text[i : i + 1] != ",":
                    return None
                i = _skip_ws(text, i + 1)
            if text[i : i + 1] in ("]", ""):
                return None
        else:
            return None
    return i
