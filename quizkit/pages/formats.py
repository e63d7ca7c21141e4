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
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from quizkit.catalog.display import printable
from quizkit.outputs.numbers import human_bytes, thousands


@dataclass
class Section:
    """One table of results. ``name`` is a stable identifier (``--section``, JSON keys).

    ``sizes`` names the columns that hold byte counts: the formats people read show them in
    human units (``1.5 GB``); CSV and JSON keep the exact numbers.
    """

    name: str
    title: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    sizes: frozenset[str] = field(default_factory=frozenset)

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


FORMATS = ("table", "csv", "json", "markdown")


def _json_default(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    return str(value)


#: Types whose CSV text is ``str(value)``: tested first, by identity (a streamed result of
#: millions of rows spends most of its time here).
_PLAIN = frozenset({str, int, float})


def _raw(value: Any) -> str:
    """A value for CSV: full precision, empty for NULL."""
    if type(value) in _PLAIN:
        return str(value)
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
    separators and fractions rounded, NULL empty; text from the inputs with its control
    characters escaped (:func:`quizkit.catalog.display.printable`), so that no value drives a
    terminal."""
    if _is_number(value):
        return human_bytes(value) if size else thousands(value)
    return printable(_raw(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def numeric_columns(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[bool]:
    return [bool(rows) and all(_is_number(r[i]) or r[i] is None for r in rows)
            for i in range(len(columns))]


class _TableLayout:
    """Column widths and alignment of the table format, taken from the rows seen first."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                 sizes: frozenset[str] = frozenset()) -> None:
        self.sizes = [c in sizes for c in columns]
        self.widths = [len(printable(c)) for c in columns]
        for row in self.cells(rows):
            self.widths = [max(w, len(v)) for w, v in zip(self.widths, row, strict=True)]
        self.numeric = numeric_columns(columns, rows)

    def line(self, values: Sequence[str]) -> str:
        """One line of the table (``values`` already printable)."""
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num
                         in zip(values, self.widths, self.numeric, strict=True)).rstrip()

    def head(self, columns: Sequence[str]) -> list[str]:
        return [self.line([printable(c) for c in columns]),
                "  ".join("-" * w for w in self.widths)]

    def cells(self, rows: Sequence[Sequence[Any]]) -> list[list[str]]:
        return [[human(v, s) for v, s in zip(row, self.sizes, strict=True)] for row in rows]

    def body(self, rows: Sequence[Sequence[Any]]) -> list[str]:
        return [self.line(cells) for cells in self.cells(rows)]


def render_table(sec: Section) -> str:
    layout = _TableLayout(sec.columns, sec.rows, sec.sizes)
    out = layout.head(sec.columns) + layout.body(sec.rows)
    if not sec.rows:
        out.append("(no rows)")
    return "\n".join(out)


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _markdown_head(columns: Sequence[str], numeric: Sequence[bool]) -> list[str]:
    return ["| " + " | ".join(_md_escape(printable(c)) for c in columns) + " |",
            "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]


def _markdown_body(rows: Sequence[Sequence[Any]], sizes: Sequence[bool] = ()) -> list[str]:
    flags = list(sizes) or [False] * (len(rows[0]) if rows else 0)
    return ["| " + " | ".join(_md_escape(human(v, s)) for v, s in zip(row, flags, strict=True))
            + " |" for row in rows]


def render_markdown(sec: Section) -> str:
    sizes = [c in sec.sizes for c in sec.columns]
    out = (_markdown_head(sec.columns, numeric_columns(sec.columns, sec.rows))
           + _markdown_body(sec.rows, sizes))
    return "\n".join(out)


def _csv_lines(rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def render_csv(sec: Section) -> str:
    return _csv_lines([sec.columns]) + _csv_lines([_raw(v) for v in row] for row in sec.rows)


def _json_items(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The rows as the items of an indented JSON array, without its brackets."""
    text = orjson.dumps([dict(zip(columns, row, strict=True)) for row in rows],
                        default=_json_default,
                        option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    return text[2:-2]  # "[\n" ... "\n]"


def write_rows(columns: Sequence[str], batches: Iterable[Sequence[Sequence[Any]]], fmt: str,
               write: Callable[[str], object]) -> int:
    """Write a query result batch by batch, as :func:`render` prints a single section.

    Memory holds one batch, whatever the size of the result. The table format takes its
    column widths and alignment from the first batch; a longer value later on widens its
    own line only. Returns the number of rows written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    it = iter(batches)
    first = next(it, [])
    rows = 0
    if fmt == "table":
        layout = _TableLayout(columns, first)
        write("\n".join(layout.head(columns)) + "\n")
    elif fmt == "markdown":
        write("\n".join(_markdown_head(columns, numeric_columns(columns, first))) + "\n")
    elif fmt == "csv":
        write(_csv_lines([columns]))
    for batch in itertools.chain([first], it):
        if not batch:
            continue
        if fmt == "table":
            text = "\n".join(layout.body(batch)) + "\n"
        elif fmt == "markdown":
            text = "\n".join(_markdown_body(batch)) + "\n"
        elif fmt == "csv":
            text = _csv_lines([_raw(v) for v in row] for row in batch)
        else:
            text = ("[\n" if rows == 0 else ",\n") + _json_items(columns, batch)
        write(text)
        rows += len(batch)
    if fmt == "json":
        write("[]\n" if rows == 0 else "\n]\n")
    elif fmt == "table" and rows == 0:
        write("(no rows)\n")
    return rows


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
