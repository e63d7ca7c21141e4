"""``quizkit history``: each metric over the runs of a history, as text, JSON, CSV, Markdown
or a self-contained HTML page with a chart per metric.

The formats people read (text, Markdown, HTML) show one row per metric and one column per
run (``run 1`` the oldest shown), leaving out the metrics that are 0 in every run shown
(a line says how many); JSON and CSV carry every value, one row per run and metric.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from quizkit.catalog.exits import no_such_path
from quizkit.history.history_store import timeline
from quizkit.history.runs import HistoryError, Timeline
from quizkit.inputs.remote import is_url
from quizkit.outputs.numbers import plural
from quizkit.outputs.writer import atomic_write, refuse_inputs, resolve
from quizkit.pages.charts import trend
from quizkit.pages.formats import Section, render
from quizkit.pages.html_page import esc, page
from quizkit.pages.html_summary import figure, section_table
from quizkit.settings.config import ConfigError

FORMATS = ("text", "json", "csv", "markdown", "html")


def runs_section(tl: Timeline) -> Section:
    """The runs, oldest first, numbered as the columns of :func:`metrics_table`."""
    rows = [(i, run_id, r.dataset, r.started_at.replace(tzinfo=None), r.exit_code, r.files,
             r.documents, r.quizkit_version)
            for i, (run_id, r) in enumerate(tl.runs, 1)]
    return Section("runs", "Runs", ["run", "run_id", "dataset", "started_at", "exit_code",
                                    "files", "documents", "quizkit_version"], rows)


def metrics_long(tl: Timeline) -> Section:
    """Every value: one row per run and metric (JSON, CSV)."""
    rows = [(name, i, run_id, tl.metrics[run_id][name])
            for name in tl.names()
            for i, (run_id, _) in enumerate(tl.runs, 1) if name in tl.metrics[run_id]]
    return Section("metrics", "Metrics", ["metric", "run", "run_id", "value"], rows)


def shown_metrics(tl: Timeline) -> tuple[list[str], int]:
    """The metrics with a value other than 0 in some run, and how many are 0 in all."""
    names = tl.names()
    shown = [n for n in names if any(tl.metrics[run_id].get(n) for run_id, _ in tl.runs)]
    return shown, len(names) - len(shown)


def metrics_table(tl: Timeline, names: list[str]) -> Section:
    """One row per metric, one column per run (empty where the run did not record it)."""
    rows = [(name, *(tl.metrics[run_id].get(name) for run_id, _ in tl.runs)) for name in names]
    return Section("metrics", "Metrics", ["metric", *(f"run {i}" for i in
                                                      range(1, len(tl.runs) + 1))], rows)


def _zeros_line(zeros: int) -> str:
    return (f"{plural(zeros, 'metric')} 0 in every run, not shown (--format json lists "
            "every value)") if zeros else ""


def render_history(tl: Timeline, fmt: str, source: str = "") -> str:
    """The history in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use {', '.join(FORMATS)})")
    if fmt in ("json", "csv"):
        return render([runs_section(tl), metrics_long(tl)], fmt)
    names, zeros = shown_metrics(tl)
    if fmt == "html":
        return history_page(tl, names, zeros, source)
    text = render([runs_section(tl), metrics_table(tl, names)],
                  "table" if fmt == "text" else fmt)
    note = _zeros_line(zeros)
    if not tl.runs:
        note = "no runs recorded yet"
    return text + (f"\n{note}\n" if note else "")


def history_page(tl: Timeline, names: list[str], zeros: int, source: str) -> str:
    """The page: a chart per metric shown, then the runs."""
    title = f"quizkit history: {source}" if source else "quizkit history"
    body = [f"<h1>{esc(title)}</h1>",
            f"<p>{esc(plural(len(tl.runs), 'run'))}, {esc(plural(len(names), 'metric'))} "
            f"shown{esc('; ' + _zeros_line(zeros)) if zeros else ''}</p>"]
    for name in names:
        values = [{"run": i, "value": tl.metrics[run_id][name], "dataset": run.dataset,
                   "started_at": f"{run.started_at:%Y-%m-%d %H:%M:%S}"}
                  for i, (run_id, run) in enumerate(tl.runs, 1) if name in tl.metrics[run_id]]
        chart = trend(f"metric-{name}", name, values)
        body.append(f'<section data-metric="{esc(name)}"><h3>{esc(name)}</h3>'
                    f"{figure(chart, name)}</section>")
    if not tl.runs:
        body.append('<p class="empty">no runs recorded yet</p>')
    runs = runs_section(tl)
    body.append(f'<section id="runs"><h2>Runs</h2>{section_table(runs)}</section>')
    return page(title, "".join(body))


@dataclass(frozen=True)
class HistoryView:
    """What ``quizkit history`` shows: the runs with their metrics, and the text."""

    timeline: Timeline
    text: str


def show_history(location: str, *, dataset: str | None = None, last: int | None = None,
                 format: str = "text", output: str | os.PathLike[str] | None = None
                 ) -> HistoryView:
    """The history at ``location`` in ``format``, also written to ``output`` (atomically)."""
    if format not in FORMATS:
        raise ConfigError(f"unknown format {format!r} (use {', '.join(FORMATS)})")
    if last is not None and (isinstance(last, bool) or not isinstance(last, int) or last < 1):
        raise ConfigError(f"last must be a whole number of 1 or more, got {last!r}")
    if output is not None:
        resolve(output)  # a bad output fails before the history is read
        refuse_inputs([output], [location], read_trees=[location])
    if not is_url(location) and not os.path.lexists(location):
        raise HistoryError(no_such_path(location))
    tl = timeline(location, dataset, last)
    text = render_history(tl, format, dataset or location)
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(text)
    return HistoryView(tl, text)
