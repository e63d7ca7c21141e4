"""Printing sections as an aligned table, CSV, JSON or Markdown.

JSON and CSV carry values as they are (full precision, ISO 8601 timestamps, NULL as ``null`` or
an empty field); the table and Markdown formats are for reading: byte counts in human units
(``1.5 GB``), counts with thousands separators, fractions rounded to two decimals.
JSON of several sections is one object keyed by section name; of a single query result, a list.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
from collections.abc import Sequence
from typing import Any

import orjson

from quizkit.analysis.sections import Section
from quizkit.numbers import human_bytes, thousands

FORMATS = ("table", "csv", "json", "markdown")


def _json_default(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    return str(value)


def _raw(value: Any) -> str:
    """A value for CSV: full precision, empty for NULL."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list | dict | tuple):
        return orjson.dumps(value, default=_json_default).decode()
    return str(value)


def human(value: Any, size: bool = False) -> str:
    """A value for reading: ``size`` (a byte count) in human units, numbers with thousands
    separators and fractions rounded, NULL empty."""
    if _is_number(value):
        return human_bytes(value) if size else thousands(value)
    return _raw(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def render_table(sec: Section) -> str:
    flags = [c in sec.sizes for c in sec.columns]
    cells = [[human(v, f) for v, f in zip(row, flags, strict=True)] for row in sec.rows]
    widths = [len(c) for c in sec.columns]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [bool(sec.rows) and all(_is_number(r[i]) or r[i] is None for r in sec.rows)
               for i in range(len(sec.columns))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    out = [line(sec.columns), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    if not sec.rows:
        out.append("(no rows)")
    return "\n".join(out)


def render_markdown(sec: Section) -> str:
    def esc(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    numeric = [bool(sec.rows) and all(_is_number(r[i]) or r[i] is None for r in sec.rows)
               for i in range(len(sec.columns))]
    out = ["| " + " | ".join(esc(c) for c in sec.columns) + " |",
           "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    flags = [c in sec.sizes for c in sec.columns]
    out += ["| " + " | ".join(esc(human(v, f)) for v, f in zip(row, flags, strict=True)) + " |"
            for row in sec.rows]
    return "\n".join(out)


def render_csv(sec: Section) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(sec.columns)
    writer.writerows([_raw(v) for v in row] for row in sec.rows)
    return buf.getvalue()


def render(sections: list[Section], fmt: str, *, titles: bool = True,
           single: bool = False) -> str:
    """All sections in ``fmt``. ``single`` prints one section bare (a query result)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    bare = single or (len(sections) == 1 and not titles)
    if fmt == "json":
        if bare:
            doc: Any = sections[0].dicts() if sections else []
        else:
            doc = {s.name: s.dicts() for s in sections}
        return orjson.dumps(doc, default=_json_default,
                            option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode() + "\n"
    parts = []
    for s in sections:
        if fmt == "csv":
            body = render_csv(s)
            parts.append(body if bare else f"# {s.name}\n{body}")
        elif fmt == "markdown":
            parts.append(render_markdown(s) if bare else f"## {s.title}\n\n{render_markdown(s)}")
        else:
            parts.append(render_table(s) if bare else f"{s.title}\n\n{render_table(s)}")
    sep = "\n" if fmt == "csv" else "\n\n"
    text = sep.join(p.rstrip("\n") for p in parts)
    return text + "\n"
