"""The few source lines around each finding, cut from the text the engine already holds.

Only reports people read ask for them (``engine.Options.snippet_lines``); the engine calls
:func:`attach` with the text of the document it has just checked, so no report reads an input
file again. A minified file is one long line: long lines keep a window around the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from quizkit.catalog.findings import Finding, Snippet

#: Characters kept of a long line: some before the value, the rest after it.
WIDTH = 160
BEFORE = 50
#: Longest value marked (a long string is marked to this length).
LONGEST_MARK = 120

_SCALAR = re.compile(r"[^,\]\}\s]*")


def value_end(line: str, start: int) -> int:
    """End (exclusive) of the JSON value that starts at ``start`` in ``line``: a whole
    string, number or literal; the opening bracket of an array or object."""
    if start >= len(line):
        return start
    c = line[start]
    if c == '"':
        i = start + 1
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] == '"':
                return i + 1
            i += 1
        return len(line)
    if c in "[{":
        return start + 1
    m = _SCALAR.match(line, start)
    end = m.end() if m else start
    return end if end > start else start + 1


def attach_file(findings: Iterable[Finding], data: bytes, context: int) -> None:
    """:func:`attach` for the findings of one file, whose bytes are ``data`` (BOM removed):
    a finding with a ``record`` gets its snippet from that line of a JSON Lines file."""
    by_record: dict[int | None, list[Finding]] = {}
    for f in findings:
        by_record.setdefault(f.record, []).append(f)
    records = data.split(b"\n") if any(r is not None for r in by_record) else []
    for record, group in by_record.items():
        if record is None:
            attach(group, data.decode("utf-8", errors="replace"), 0, context)
        elif 0 < record <= len(records):
            attach(group, records[record - 1].decode("utf-8", errors="replace"), record - 1,
                   context)


def _lines_of(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def attach(findings: Iterable[Finding], text: str, shift: int, context: int) -> None:
    """Give each located finding of ``text`` its snippet: ``context`` lines either side.

    ``shift`` is the file line number of the text's first line minus one (a JSON Lines
    record's text starts at its record's line).
    """
    starts: list[int] | None = None
    cache: dict[int, str] = {}  # many findings on one long line (a minified file) cut it once
    for f in findings:
        if f.line is None:
            continue
        if starts is None:
            starts = _lines_of(text)
        at = f.line - shift  # 1-based line within text
        if not 0 < at <= len(starts):
            continue
        lines = len(starts)
        if starts[-1] == len(text) and at < lines:  # nothing after the final newline
            lines -= 1
        first = max(1, at - context)
        last = min(lines, at + context)
        raw = [cache[n] if n in cache else cache.setdefault(n, _line(text, starts, n))
               for n in range(first, last + 1)]
        line = raw[at - first]
        start = min(max((f.column or 1) - 1, 0), len(line))
        end = min(value_end(line, start), start + LONGEST_MARK)
        cut = max(0, start - BEFORE) if len(line) > WIDTH else 0
        kept = tuple(r[cut:cut + WIDTH] if len(r) > WIDTH else r for r in raw)
        f.snippet = Snippet(first=first + shift, lines=kept, line=at + shift,
                            start=start - cut, end=min(end - cut, len(kept[at - first])),
                            cut=cut)


def _line(text: str, starts: list[int], n: int) -> str:
    begin = starts[n - 1]
    end = starts[n] - 1 if n < len(starts) else len(text)
    return text[begin:end].rstrip("\r")


__all__ = ["attach", "attach_file", "value_end"]
