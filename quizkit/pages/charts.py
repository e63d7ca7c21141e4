"""Charts of the summaries: Vega-Lite specs rendered to SVG (or PNG) when a page is written.

Each chart is a Vega-Lite spec made from one summary section's rows; ``vl-convert`` (the Vega
project's renderer, with Vega inside: no JavaScript is fetched, now or when the page is
viewed) turns it into SVG markup for the HTML pages and into SVG and PNG files for
``summary charts``. Labels from the data (package names, authors) are text in the SVG,
escaped by the renderer.

Axes speak as the tables do: sizes in decimal units (``1.5 GB``, as
:func:`quizkit.outputs.numbers.human_bytes`), counts with thousands separators. Media kinds have one
colour and one name (``image``, ``audio``…) in every chart. A section whose values are all 0
(or all missing) gets no chart: bars of no length would show nothing.

Ranked lists are drawn with at most :data:`MOST_BARS` bars, whatever ``--top`` says (the table
beside the chart has every row).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import vl_convert

from quizkit.pages.formats import Section, render

MOST_BARS = 30
WIDTH = 640
BAR = 20  # height of one bar of a ranked list, in pixels
#: Axis labels of byte counts, in the units of quizkit.outputs.numbers.human_bytes (1 kB = 1000 B).
BYTES = ("abs(datum.value) >= 1e15 ? format(datum.value / 1e15, '.3~r') + ' PB' : "
         "abs(datum.value) >= 1e12 ? format(datum.value / 1e12, '.3~r') + ' TB' : "
         "abs(datum.value) >= 1e9 ? format(datum.value / 1e9, '.3~r') + ' GB' : "
         "abs(datum.value) >= 1e6 ? format(datum.value / 1e6, '.3~r') + ' MB' : "
         "abs(datum.value) >= 1e3 ? format(datum.value / 1e3, '.3~r') + ' kB' : "
         "format(datum.value, '~r') + ' B'")
#: Axis labels of counts: separators, and SI prefixes past a million (``2.5M``).
COUNTS = ("datum.value % 1 ? '' : abs(datum.value) >= 1e6 ? format(datum.value, '.3~s') : "
          "format(datum.value, ',~r')")  # no label at 0.5 of a game
BYTE_AXIS = {"labelExpr": BYTES, "labelOverlap": "greedy", "labelFlush": True, "tickCount": 8}
#: The media kinds: the size column of each, and its one name and colour in every chart.
MEDIA = {"size_text": "text", "size_images": "image", "size_audio": "audio",
         "size_video": "video"}
MEDIA_COLORS = {"domain": list(MEDIA.values()),
                "range": ["#8c959f", "#2da44e", "#bf8700", "#cf222e"]}
STATUS_COLORS = {"domain": ["completed", "stopped", "open"],
                 "range": ["#2da44e", "#cf222e", "#8c959f"]}
GROUP_LABELS = {"by_author": "author", "by_type": "type", "by_difficulty": "difficulty",
                "by_category": "category"}
CONFIG = {"font": "sans-serif", "view": {"stroke": None},
          "title": {"fontSize": 15, "anchor": "start", "offset": 12},
          "axis": {"labelFontSize": 12, "titleFontSize": 12, "titleFontWeight": "normal",
                   "labelLimit": 260},
          "legend": {"labelFontSize": 12, "titleFontSize": 12, "titleFontWeight": "normal"},
          "header": {"labelFontSize": 12, "labelAngle": 0, "labelAlign": "left"}}


@dataclass(frozen=True)
class Chart:
    """One chart: a stable name (file names, element ids), a title and its Vega-Lite spec."""

    name: str
    title: str
    spec: dict[str, Any]

    def svg(self, *, titled: bool = True) -> str:
        """The chart as SVG markup; ``titled=False`` leaves the title to the page around it."""
        spec = self.spec if titled else {k: v for k, v in self.spec.items() if k != "title"}
        return vl_convert.vegalite_to_svg(spec)

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
        "mark": mark, "encoding": encoding, "config": CONFIG,
    }
    if transform:
        spec["transform"] = transform
    if height:
        spec["height"] = height
    return spec


def count_axis(values: list[dict], field: str) -> dict[str, Any]:
    """The axis of a count: whole numbers only (no tick at 0.5 of a game), at most 8 ticks."""
    top = max((v[field] for v in values if isinstance(v.get(field), int | float)), default=1)
    return {"labelExpr": COUNTS, "labelOverlap": "greedy",
            "tickCount": max(1, min(8, int(top)))}


def _drawn(values: list[dict], *fields: str) -> bool:
    """Whether any of ``fields`` holds a number other than 0 (else the chart draws nothing)."""
    return any(isinstance(v.get(f), int | float) and v[f] != 0 for v in values for f in fields)


def _ranked(title: str, values: list[dict], label: str, measure: str, *,
            size: bool = False, label_title: str | None = None,
            measure_title: str | None = None) -> dict | None:
    """Horizontal bars, largest first."""
    if not _drawn(values, measure):
        return None
    x: dict[str, Any] = {"field": measure, "type": "quantitative",
                         "title": measure_title or measure,
                         "axis": BYTE_AXIS if size else count_axis(values, measure)}
    return _spec(title, values, {"type": "bar", "tooltip": True}, {
        "y": {"field": label, "type": "nominal", "sort": "-x", "title": label_title or label},
        "x": x}, height=max(3 * BAR, BAR * len(values)))


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

def _size_histogram(sec: Section) -> dict | None:
    values = _values(sec)
    if not _drawn(values, "packages"):
        return None
    return _spec("Packages by size (meta.size total)", values, {"type": "bar",
                                                                 "tooltip": True}, {
        "x": {"field": "bin_start", "type": "quantitative", "bin": {"binned": True},
              "title": "size of a package", "axis": BYTE_AXIS},
        "x2": {"field": "bin_end"},
        "y": {"field": "packages", "type": "quantitative", "title": "packages",
              "axis": count_axis(values, "packages")}})


def _media_per_package(sec: Section) -> dict | None:
    """One histogram per media kind: how many packages have how many steps of it."""
    values = _values(sec)
    if not _drawn(values, "packages"):
        return None
    spec = _spec("Media steps per package (current versions)", values,
                 {"type": "bar", "tooltip": True}, {
                     "x": {"field": "steps", "type": "quantitative", "bin": {"maxbins": 30},
                           "title": "media steps in a package"},
                     "y": {"aggregate": "sum", "field": "packages", "type": "quantitative",
                           "title": "packages", "axis": count_axis(values, "packages")},
                     "color": {"field": "media", "type": "nominal", "scale": MEDIA_COLORS,
                               "legend": None}}, height=90)
    # small multiples, one row per kind, sharing the x axis
    inner = {k: spec.pop(k) for k in ("width", "height", "mark", "encoding")}
    spec["spec"] = inner
    spec["facet"] = {"row": {"field": "media", "type": "nominal", "title": None,
                             "sort": MEDIA_COLORS["domain"]}}
    return spec


def _size_by_kind(sec: Section) -> dict | None:
    values = [{**r, "media": MEDIA[r["measure"]]} for r in _values(sec)
              if r["measure"] in MEDIA]
    if not _drawn(values, "total"):
        return None
    return _spec("Total size by media kind (meta.size)", values, {"type": "bar",
                                                                  "tooltip": True}, {
        "y": {"field": "media", "type": "nominal", "title": "media kind", "sort": "-x"},
        "x": {"field": "total", "type": "quantitative", "title": "total size",
              "axis": BYTE_AXIS},
        "color": {"field": "media", "type": "nominal", "scale": MEDIA_COLORS,
                  "legend": None}}, height=4 * BAR + 20)


def _largest(sec: Section) -> dict | None:
    values = _named(_values(sec, MOST_BARS))
    if not _drawn(values, *MEDIA):
        return None
    title = _title("Largest packages by media kind", len(values), len(sec.rows))
    return _spec(title, values, {"type": "bar", "tooltip": True}, {
        "y": {"field": "label", "type": "nominal", "title": "package",
              "sort": {"field": "size_total", "order": "descending"}},
        "x": {"field": "bytes", "type": "quantitative", "title": "size", "stack": "zero",
              "axis": BYTE_AXIS},
        "color": {"field": "media", "type": "nominal", "title": "media kind",
                  "scale": MEDIA_COLORS},
        "order": {"field": "order"}},
        transform=[{"fold": list(MEDIA), "as": ["kind", "bytes"]},
                   {"calculate": "replace(replace(datum.kind, 'size_', ''), 'images', 'image')",
                    "as": "media"},
                   {"calculate": f"indexof({list(MEDIA.values())}, datum.media)",
                    "as": "order"}],
        height=max(3 * BAR, BAR * len(values)))


def _group(measure: str, size: bool) -> Callable[[Section], dict | None]:
    what = "Total size" if size else measure.capitalize()

    def chart(sec: Section) -> dict | None:
        label = GROUP_LABELS[sec.name]
        values = [{**r, label: r.get(label) if r.get(label) is not None else "(none)"}
                  for r in _values(sec, MOST_BARS)]
        return _ranked(_title(f"{what} by {label}", len(values), len(sec.rows)), values,
                       label, measure, size=size, measure_title=what.lower())
    return chart


def _top_starts(sec: Section) -> dict | None:
    values = _named(_values(sec, MOST_BARS))
    return _ranked(_title("Starts per package (meta.starts)", len(values), len(sec.rows)),
                   values, "label", "starts", label_title="package")


def _games_per_package(sec: Section) -> dict | None:
    values = _named(_values(sec, MOST_BARS))
    return _ranked(_title("Games per package (game records)", len(values), len(sec.rows)),
                   values, "label", "games", label_title="package")


def _next_month(day: dt.date) -> dt.date:
    return day + dt.timedelta(days=calendar.monthrange(day.year, day.month)[1] - day.day + 1)


def _with_ends(values: list[dict]) -> list[dict]:
    """Each period with its end (the next period's start), so that a bar spans its period.

    The summary lists every period from the first to the last, empty ones too; the last
    one ends a period after it: a calendar month when the periods are months."""
    days = [dt.date.fromisoformat(str(v["period"])[:10]) for v in values]
    step = days[1] - days[0] if len(days) > 1 else dt.timedelta(days=1)
    monthly = len(days) > 1 and all(d.day == 1 for d in days) and step.days >= 28
    ends = [*days[1:], _next_month(days[-1]) if monthly else days[-1] + step]
    return [{**v, "period": d.isoformat(), "end": e.isoformat()}
            for v, d, e in zip(values, days, ends, strict=True)]


def _games_over_time(sec: Section) -> dict | None:
    values = _values(sec)
    if not _drawn(values, "games"):
        return None
    mark: dict[str, Any] = {"type": "bar", "orient": "vertical", "tooltip": True}
    if len(values) <= 120:  # a thin gap between periods, while bars are wide enough for one
        mark.update(stroke="#ffffff", strokeWidth=0.5)
    return _spec(sec.title, _with_ends(values), mark, {
        "x": {"field": "period", "type": "temporal", "title": "createdAt",
              "scale": {"type": "utc"}, "axis": {"labelOverlap": "greedy"}},
        "x2": {"field": "end"},
        "y": {"field": "count", "type": "quantitative", "title": "games", "stack": "zero",
              "axis": count_axis(values, "games")},
        "color": {"field": "status", "type": "nominal", "scale": STATUS_COLORS,
                  "sort": STATUS_COLORS["domain"]},
        "order": {"field": "order"}},
        transform=[{"fold": STATUS_COLORS["domain"], "as": ["status", "count"]},
                   {"calculate": f"indexof({STATUS_COLORS['domain']}, datum.status)",
                    "as": "order"}])


def _game_status(sec: Section) -> dict | None:
    values = _values(sec)
    if not _drawn(values, "games"):
        return None
    return _spec("Games by status", values, {"type": "bar", "tooltip": True}, {
        "y": {"field": "status", "type": "nominal", "sort": None},
        "x": {"field": "games", "type": "quantitative", "axis": count_axis(values, "games")},
        "color": {"field": "status", "type": "nominal", "scale": STATUS_COLORS,
                  "legend": None}}, height=3 * BAR + 10)


def _entities(sec: Section) -> dict | None:
    return _ranked("Rows per table", _values(sec), "entity", "rows", label_title="table")


def _files(sec: Section) -> dict | None:
    return _ranked("Files by document kind", _values(sec), "kind", "files")


def _findings(sec: Section) -> dict | None:
    values = [{**r, "label": f"{r['code']} {r['rule']}"} for r in _values(sec, MOST_BARS)]
    return _ranked(_title("Most frequent findings", len(values), len(sec.rows)), values,
                   "label", "findings", label_title="rule")


CHARTS: dict[str, dict[str, Callable[[Section], dict | None]]] = {
    "sizes": {"size_histogram": _size_histogram, "media_per_package": _media_per_package,
              "distribution": _size_by_kind, "largest": _largest,
              **{g: _group("size_total", True) for g in GROUP_LABELS}},
    "starts": {"top": _top_starts, "games_per_package": _games_per_package,
               "games_over_time": _games_over_time, "game_status": _game_status,
               **{g: _group("starts", False) for g in GROUP_LABELS}},
    "overview": {"entities": _entities, "files": _files, "findings": _findings},
}


def has_chart(summary: str, sec: Section) -> bool:
    """Whether ``sec`` of ``summary`` is a section that is charted (when it has values)."""
    return sec.name in CHARTS.get(summary, {})


def no_chart_reason(summary: str, sec: Section) -> str | None:
    """Why a charted section of ``summary`` has no chart ("no rows", "every value is 0"), or
    None when it has one or is not a charted section."""
    if not has_chart(summary, sec) or chart_for(summary, sec) is not None:
        return None
    return "no rows" if not sec.rows else "every value is 0"


def chart_for(summary: str, sec: Section) -> Chart | None:
    """The chart of one section of ``summary`` (``sizes``, ``starts``, ``overview``), or None
    for a section without one, without rows, or whose values are all 0."""
    make = CHARTS.get(summary, {}).get(sec.name)
    if make is None or not sec.rows:
        return None
    spec = make(sec)
    if spec is None:
        return None
    return Chart(f"{summary}.{sec.name}", spec["title"], spec)


def trend(name: str, title: str, values: list[dict[str, Any]]) -> Chart:
    """A metric over runs: ``values`` are ``{"run": number, "started_at": ISO time, "value":
    number, "dataset": name}``, the runs evenly spaced in order (a nightly pipeline skips a
    night now and then), one line per dataset (coloured and named when there are several)."""
    encoding: dict[str, Any] = {
        "x": {"field": "run", "type": "ordinal", "title": "run (oldest first)",
              "axis": {"labelAngle": 0, "labelOverlap": "greedy"}},
        "y": {"field": "value", "type": "quantitative", "title": "value",
              "axis": count_axis(values, "value")},
        "tooltip": [{"field": "run", "type": "ordinal"},
                    {"field": "started_at", "type": "nominal", "title": "started (UTC)"},
                    {"field": "value", "type": "quantitative", "format": ",~r"},
                    {"field": "dataset", "type": "nominal"}]}
    if len({v["dataset"] for v in values}) > 1:
        encoding["color"] = {"field": "dataset", "type": "nominal", "title": "dataset",
                             "legend": {"orient": "bottom", "direction": "vertical"}}
    return Chart(name, title, _spec(title, values, {"type": "line", "point": True}, encoding,
                                    height=200))
