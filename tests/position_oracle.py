"""A slow, obviously correct JSON Pointer locator: the oracle the fast
:class:`quizkit.inputs.positions.Positions` is tested against.

It walks the text token by token from the start for every pointer. With duplicate keys the
last one wins, as orjson keeps the last value.
"""

from __future__ import annotations

import re

from quizkit.inputs.parsing import decode_key, split_pointer, string_end

_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r"[^\s,\]}:]*")
_STRUCT = re.compile(r'["\[\]{}]')


def _skip_ws(text: str, i: int) -> int:
    return _WS.match(text, i).end()


def _skip_value(text: str, i: int) -> int:
    """The offset just past the JSON value starting at ``i``."""
    c = text[i : i + 1]
    if c == '"':
        return string_end(text, i)
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
            pos = string_end(text, m.start())
            continue
        pos = m.end()
        if ch in "{[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return pos


def locate(text: str, pointer: str) -> int | None:
    """Character offset of the value at ``pointer`` in ``text``, or None if it is not there.

    With duplicate keys the last one wins, as orjson keeps the last value.
    """
    i = _skip_ws(text, 0)
    for part in split_pointer(pointer):
        c = text[i : i + 1]
        if c == "{":
            found = None
            i = _skip_ws(text, i + 1)
            while i < len(text) and text[i] == '"':
                end = string_end(text, i)
                name = decode_key(text[i:end]) if end <= len(text) else None
                i = _skip_ws(text, end)
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
