"""The HTML page of ``quizkit summary``: each section's chart (inline SVG) above its table.

Charts are rendered when the page is written (see quizkit.pages.charts), so the page holds
no script at all; tables show numbers for people (sizes in human units, separators).
"""

from __future__ import annotations

from quizkit.outputs.numbers import plural
from quizkit.pages.charts import Chart, chart_for, no_chart_reason
from quizkit.pages.formats import Section, human
from quizkit.pages.html_page import esc, page

TITLES = {"overview": "Overview", "sizes": "Package sizes", "starts": "Starts and games"}


def section_table(sec: Section) -> str:
    numeric = [bool(sec.rows) and all((isinstance(r[i], int | float) and not isinstance(r[i], bool))
                                      or r[i] is None for r in sec.rows)
               for i in range(len(sec.columns))]
    sizes = [c in sec.sizes for c in sec.columns]
    head = "".join(f'<th class="num">{esc(c)}</th>' if n else f"<th>{esc(c)}</th>"
                   for c, n in zip(sec.columns, numeric, strict=True))
    rows = []
    for row in sec.rows:
        cells = (f'<td class="num">{esc(human(v, s))}</td>' if n else
                 f"<td>{esc(human(v, s))}</td>"
                 for v, s, n in zip(row, sizes, numeric, strict=True))
        rows.append("<tr>" + "".join(cells) + "</tr>")
    if not rows:
        rows = [f'<tr><td colspan="{len(sec.columns)}" class="empty">no rows</td></tr>']
    return (f'<div class="scroll"><table data-section="{esc(sec.name)}"><thead><tr>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def figure(chart: Chart, heading: str) -> str:
    """The chart under the section's heading; its own title as a caption, unless the same."""
    caption = "" if chart.title == heading else f"<figcaption>{esc(chart.title)}</figcaption>"
    return (f'<figure class="chart" id="chart-{esc(chart.name)}" data-chart="{esc(chart.name)}">'
            f"{caption}{chart.svg(titled=False)}</figure>")


def _no_chart(summary: str, sec: Section) -> str:
    """Why a charted section shows no chart (no rows, or every value 0)."""
    why = no_chart_reason(summary, sec)
    if why is None:
        return ""
    return f'<p class="empty" data-no-chart="{esc(summary)}.{esc(sec.name)}">no chart: {why}</p>'



def render_page(groups: list[tuple[str, list[Section]]]) -> str:
    """One page of the summaries in ``groups``: (summary name, its sections) each."""
    nav = []
    body = []
    for summary, sections in groups:
        if len(groups) > 1:
            body.append(f'<h2 id="{esc(summary)}">{esc(TITLES.get(summary, summary))}</h2>')
            nav.append(f'<a href="#{esc(summary)}">{esc(TITLES.get(summary, summary))}</a>')
        for sec in sections:
            chart = chart_for(summary, sec)
            body.append(f'<section id="{esc(summary)}-{esc(sec.name)}">'
                        f"<h3>{esc(sec.title)}</h3>"
                        + (figure(chart, sec.title) if chart else _no_chart(summary, sec))
                        + f'<details{" open" if len(sec.rows) <= 30 else ""}>'
                        f"<summary>{esc(plural(len(sec.rows), 'row'))}</summary>"
                        f"{section_table(sec)}</details></section>")
    names = [TITLES.get(s, s) for s, _ in groups]
    title = "quizkit summary: " + ", ".join(names)
    head = f"<h1>{esc(title)}</h1>"
    if nav:
        head += '<nav class="toc">' + "".join(nav) + "</nav>"
    return page(title, head + "".join(body))


def charts_of(groups: list[tuple[str, list[Section]]]) -> list[Chart]:
    """Every chart of the summaries in ``groups``, for ``summary charts``."""
    return [c for summary, sections in groups for sec in sections
            if (c := chart_for(summary, sec)) is not None]


def missing_charts(groups: list[tuple[str, list[Section]]]) -> list[str]:
    """``summary.section: why`` for each charted section that has no chart."""
    return [f"{summary}.{sec.name}: {why}" for summary, sections in groups for sec in sections
            if (why := no_chart_reason(summary, sec)) is not None]
