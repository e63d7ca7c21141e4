"""Charts of the summaries: Vega-Lite specs rendered to SVG (or PNG) when a page is written.

Each chart is a Vega-Lite spec made from one summary section's rows; ``vl-convert`` (the Vega
project's renderer, with Vega inside: no JavaScript is fetched, now or when the page is
viewed) turns it into SVG markup for the HTML pages and into SVG and PNG files for
``summary charts``. Labels from the data (package names, authors) are text in the SVG,
escaped by the renderer.

Ranked lists are drawn with at most :data:`MOST_BARS` bars, whatever ``--top`` says (the table
beside the chart has every row).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import vl_convert

from quizkit.analysis.output import render
from quizkit.analysis.sections import Section

MOST_BARS = 30
WIDTH = 560
BYTES = "format(datum.value, '.3~s') + 'B'"
COUNT_AXIS = {"tickMinStep": 1, "format": "~s"}
MEDIA_COLORS = {"domain": ["size_text", "size_images", "size_audio", "size_video"],
                "range": ["#8c959f", "#2da44e", "#bf8700", "#cf222e"]}
STATUS_COLORS = {"domain": ["completed", "stopped", "open"],
                 "range": ["#2da44e", "#cf222e", "#8c959f"]}
GROUP_LABELS = {"by_author": "author", "by_type": "type", "by_difficulty": "difficulty",
                "by_category": "category"}


@dataclass(frozen=True)
class Chart:
    """One chart: a stable name (file names, element ids), a title and its Vega-Lite spec."""

    name: str
    title: str
    spec: dict[str, Any]

    def svg(self) -> str:
        return vl_convert.vegalite_to_svg(self.spec)

    def png(self, scale: float = 2.0) -> bytes:
        return vl_convert.vegalite_to_png(self.spec, scale=scale)


def _values(sec: Section, limit: int | None = None) -> list[dict[str, Any]]:
    """The section's rows as JSON values (dates as ISO text, decimals as numbers)."""
    rows = orjson.loads(render([sec], "json", single=True))
    return rows[:limit] if limit else rows


def _spec(title: str, values: list[dict], mark: dict | str, encoding: dict,
          transform: list | None = None, height: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": title, "width": WIDTH, "data": {"values": values},
        "mark": mark, "encoding": encoding,
        "config": {"font": "sans-serif", "view": {"stroke": None}},
    }
    if transform:
        spec["transform"] = transform
    if height:
        spec["height"] = height
    return spec


def _axis_bytes() -> dict:
    return {"labelExpr": BYTES}


def _ranked(title: str, values: list[dict], label: str, measure: str, *,
            size: bool = False, label_title: str | None = None) -> dict:
    """Horizontal bars, largest first."""
    x: dict[str, Any] = {"field": measure, "type": "quantitative", "title": measure,
                         "axis": _axis_bytes() if size else COUNT_AXIS}
    return _spec(title, values, {"type": "bar", "tooltip": True}, {
        "y": {"field": label, "type": "nominal", "sort": "-x", "title": label_title or label},
        "x": x}, height=max(60, 18 * len(values)))


def _name(row: dict) -> str:
    return row.get("name") or row.get("id") or row.get("package_id") or "(none)"


def _named(values: list[dict]) -> list[dict]:
    """Rows with a ``label``: the package name, made unique with its id when names repeat."""
    names = [_name(r) for r in values]
    out = []
    for row, name in zip(values, names, strict=True):
        ident = row.get("id") or row.get("package_id") or ""
        label = f"{name} ({ident[-6:]})" if names.count(name) > 1 and ident else name
        out.append({**row, "label": label})
    return out


def _title(base: str, shown: int, total: int) -> str:
    return f"{base} (first {shown} of {total})" if shown < total else base


# -- charts per section ------------------------------------------------------------------

def _size_histogram(sec: Section) -> dict:
    return _spec("Packages by size (meta.size total)", _values(sec), {"type": "bar",
                                                                       "tooltip": True}, {
        "x": {"field": "bin_start", "type": "quantitative", "bin": {"binned": True},
              "title": "size", "axis": _axis_bytes()},
        "x2": {"field": "bin_end"},
        "y": {"field": "packages", "type": "quantitative", "title": "packages",
              "axis": COUNT_AXIS}})


def _media_per_package(sec: Section) -> dict:
    return _spec("Media steps per package (current versions)", _values(sec),
                 {"type": "line", "point": True, "tooltip": True}, {
                     "x": {"field": "steps", "type": "quantitative", "title": "steps"},
                     "y": {"field": "packages", "type": "quantitative", "title": "packages",
                           "axis": COUNT_AXIS},
                     "color": {"field": "media", "type": "nominal"}})


def _size_by_kind(sec: Section) -> dict:
    values = [r for r in _values(sec) if r["measure"] != "size_total"]
    return _spec("Total size by media kind (meta.size)", values, {"type": "bar",
                                                                  "tooltip": True}, {
        "y": {"field": "measure", "type": "nominal", "title": "media kind", "sort": "-x"},
        "x": {"field": "total", "type": "quantitative", "title": "size",
              "axis": _axis_bytes()},
        "color": {"field": "measure", "type": "nominal", "scale": MEDIA_COLORS,
                  "legend": None}}, height=120)


def _largest(sec: Section) -> dict:
    values = _named(_values(sec, MOST_BARS))
    title = _title("Largest packages by media kind", len(values), len(sec.rows))
    return _spec(title, values, {"type": "bar", "tooltip": True}, {
        "y": {"field": "label", "type": "nominal", "title": "package",
              "sort": {"field": "size_total", "order": "descending"}},
        "x": {"field": "bytes", "type": "quantitative", "title": "size", "stack": "zero",
              "axis": _axis_bytes()},
        "color": {"field": "kind", "type": "nominal", "title": "media kind",
                  "scale": MEDIA_COLORS}},
        transform=[{"fold": ["size_text", "size_images", "size_audio", "size_video"],
                    "as": ["kind", "bytes"]}],
        height=max(60, 18 * len(values)))


def _group(measure: str, size: bool) -> Callable[[Section], dict]:
    def chart(sec: Section) -> dict:
        label = GROUP_LABELS[sec.name]
        values = [{**r, label: r.get(label) if r.get(label) is not None else "(none)"}
                  for r in _values(sec, MOST_BARS)]
        return _ranked(_title(f"{measure.replace('_', ' ')} by {label}", len(values),
                              len(sec.rows)), values, label, measure, size=size)
    return chart


def _top_starts(sec: Section) -> dict:
    values = _named(_values(sec, MOST_BARS))
    return _ranked(_title("Starts per package (meta.starts)", len(values), len(sec.rows)),
                   values, "label", "starts", label_title="package")


def _games_per_package(sec: Section) -> dict:
    values = _named(_values(sec, MOST_BARS))
    return _ranked(_title("Games per package (game records)", len(values), len(sec.rows)),
                   values, "label", "games", label_title="package")


def _games_over_time(sec: Section) -> dict:
    title = sec.title
    return _spec(title, _values(sec), {"type": "bar", "tooltip": True}, {
        "x": {"field": "period", "type": "temporal", "title": "createdAt"},
        "y": {"field": "count", "type": "quantitative", "title": "games", "stack": "zero",
              "axis": COUNT_AXIS},
        "color": {"field": "status", "type": "nominal", "scale": STATUS_COLORS}},
        transform=[{"fold": ["completed", "stopped", "open"], "as": ["status", "count"]}])


def _game_status(sec: Section) -> dict:
    return _spec("Games by status", _values(sec), {"type": "bar", "tooltip": True}, {
        "y": {"field": "status", "type": "nominal", "sort": None},
        "x": {"field": "games", "type": "quantitative", "axis": COUNT_AXIS},
        "color": {"field": "status", "type": "nominal", "scale": STATUS_COLORS,
                  "legend": None}}, height=90)


def _entities(sec: Section) -> dict:
    return _ranked("Rows per table", _values(sec), "entity", "rows", label_title="table")


def _files(sec: Section) -> dict:
    return _ranked("Files by document kind", _values(sec), "kind", "files")


def _findings(sec: Section) -> dict:
    values = [{**r, "label": f"{r['code']} {r['rule']}"} for r in _values(sec, MOST_BARS)]
    return _ranked(_title("Most frequent findings", len(values), len(sec.rows)), values,
                   "label", "findings", label_title="rule")


CHARTS: dict[str, dict[str, Callable[[Section], dict]]] = {
    "sizes": {"size_histogram": _size_histogram, "media_per_package": _media_per_package,
              "distribution": _size_by_kind, "largest": _largest,
              **{g: _group("size_total", True) for g in GROUP_LABELS}},
    "starts": {"top": _top_starts, "games_per_package": _games_per_package,
               "games_over_time": _games_over_time, "game_status": _game_status,
               **{g: _group("starts", False) for g in GROUP_LABELS}},
    "overview": {"entities": _entities, "files": _files, "findings": _findings},
}


def chart_for(summary: str, sec: Section) -> Chart | None:
    """The chart of one section of ``summary`` (``sizes``, ``starts``, ``overview``), or None
    for a section without one or without rows."""
    make = CHARTS.get(summary, {}).get(sec.name)
    if make is None or not sec.rows:
        return None
    spec = make(sec)
    return Chart(f"{summary}.{sec.name}", spec["title"], spec)
