"""The diff as text for a terminal (grouped by table, coloured as ``validate`` colours) and as
Markdown (a pull-request comment or a job summary).

::

    packages
      changed  62bbc711ebf278d3ae20d928  b/packages/62bb….json:1:1
        /name  "Rivers" → "Rivers and Lakes"
    ...
    packages: 1 added, 2 removed, 1 changed, 0 moved, 3 unchanged
    ...

Values and names from the inputs are shown as JSON with control characters escaped, never
sent to the terminal.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

import orjson

from quizkit.catalog.display import printable
from quizkit.diff.compare import CHANGES
from quizkit.diff.fields import ABSENT, Field, cut
from quizkit.diff.result import Change, DiffResult, Location
from quizkit.outputs.numbers import thousands
from quizkit.reporters.text import _RESET, use_color

_STYLE = {"added": "\x1b[32m", "removed": "\x1b[1;31m", "changed": "\x1b[33m",
          "moved": "\x1b[36m", "table": "\x1b[1;4m", "dim": "\x1b[2m"}
ARROW = "→"


def shown(value: Any) -> str:
    """A value as one line of JSON (cut when long), safe for a terminal or a table cell."""
    if value is ABSENT:
        return "(absent)"
    value = cut(value)
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return printable(text)


def where(loc: Location | None) -> str:
    if loc is None:
        return "-"
    parts = [printable(loc.path)]
    if loc.line is not None:
        parts += [str(loc.line), str(loc.column)]
    return ":".join(parts)


def _loc(change: Change) -> Location | None:
    return change.new if change.new is not None else change.old


def text(result: DiffResult, *, color: str = "auto", stream: TextIO | None = None) -> str:
    """The text report; ``color`` as ``validate --color`` (``auto``: a terminal ``stream``)."""
    paint_on = stream is not None and use_color(color, stream, os.environ) if color == "auto" \
        else color == "always"

    def paint(s: str, style: str) -> str:
        return f"{_STYLE[style]}{s}{_RESET}" if paint_on else s

    lines: list[str] = []
    current = None
    for c in result.changes:
        if c.kind != current:
            if current is not None:
                lines.append("")
            lines.append(paint(c.kind, "table"))
            current = c.kind
        lines.append(f"  {paint(f'{c.change:<8}', c.change)} {printable(c.id)}  "
                     f"{paint(where(_loc(c)), 'dim')}")
        if c.change == "moved" and c.old is not None and c.new is not None:
            lines.append(f"    {printable(c.old.pointer or '')} {ARROW} "
                         f"{printable(c.new.pointer or '')}")
        for f in c.fields:
            lines.append(f"    {printable(f.pointer) or '/'}  {shown(f.old)} {ARROW} "
                         f"{shown(f.new)}")
    if lines:
        lines.append("")
    for side, path, reason in result.unreadable:
        lines.append(f"{side}: {printable(path)}: cannot read: {printable(reason)}")
    for table, counts in result.summary.items():
        if any(counts.values()):
            lines.append(f"{table}: " + ", ".join(f"{thousands(counts[k])} {k}"
                                                 for k in (*CHANGES, "unchanged")))
    lines.append("totals: " + "; ".join(
        f"{name} {thousands(m['old'])} {ARROW} {thousands(m['new'])}"
        + (f" ({_signed(m['difference'])}{_pct(m['percent'])})" if m["difference"] else "")
        for name, m in result.measures().items()))
    counts = result.counts()
    lines.append(("different: " if result.different else "same: ")
                 + ", ".join(f"{thousands(counts[k])} {k}" for k in CHANGES))
    for crossed in result.crossed:
        lines.append(f"threshold crossed: {printable(crossed)}")
    return "\n".join(lines) + "\n"


def _signed(n: int) -> str:
    return f"+{thousands(n)}" if n > 0 else f"-{thousands(-n)}"


def _pct(p: float | None) -> str:
    return "" if p is None else f", {'+' if p > 0 else ''}{p:g}%"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def _field_md(f: Field) -> str:
    return f"`{_cell(f.pointer) or '/'}`: `{_cell(shown(f.old))}` {ARROW} `{_cell(shown(f.new))}`"


def markdown(result: DiffResult, *, limit: int = 500) -> str:
    """The Markdown report: the counts and totals as tables, then up to ``limit`` changes."""
    out = [f"## quizkit diff: {'different' if result.different else 'same'}", "",
           "| table | " + " | ".join(CHANGES) + " | unchanged |",
           "|---|" + "---:|" * (len(CHANGES) + 1)]
    for table, counts in result.summary.items():
        out.append(f"| {table} | " + " | ".join(thousands(counts[k])
                                                for k in (*CHANGES, "unchanged")) + " |")
    out += ["", "| measure | old | new | difference | percent |", "|---|---:|---:|---:|---:|"]
    for name, m in result.measures().items():
        pct = "" if m["percent"] is None else f"{m['percent']:g}%"
        out.append(f"| {name} | {thousands(m['old'])} | {thousands(m['new'])} | "
                   f"{_signed(m['difference']) if m['difference'] else '0'} | {pct} |")
    if result.unreadable:
        out += ["", "**Could not be read:**", ""]
        out += [f"- {side}: `{_cell(printable(p))}`: {_cell(printable(r))}"
                for side, p, r in result.unreadable]
    if result.crossed:
        out += ["", "**Thresholds crossed:** " + ", ".join(f"`{_cell(t)}`"
                                                         for t in result.crossed)]
    if result.changes:
        out += ["", "| table | id | change | where | fields |", "|---|---|---|---|---|"]
        for c in result.changes[:limit]:
            out.append(f"| {c.kind} | `{_cell(printable(c.id))}` | {c.change} | "
                       f"`{_cell(where(_loc(c)))}` | "
                       + "<br>".join(_field_md(f) for f in c.fields) + " |")
        if len(result.changes) > limit:
            out += ["", f"… and {thousands(len(result.changes) - limit)} more changes "
                        "(see the JSON or HTML report)."]
    return "\n".join(out) + "\n"
