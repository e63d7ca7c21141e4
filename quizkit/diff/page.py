"""The diff as one self-contained HTML page, in the frame of the findings page
(:mod:`quizkit.reporters.html_page`): totals and counts as markup, the changes as one JSON data
block that the page's script lists, with filters by table and by kind of change, each change
with its old and new side by side. Nothing from the inputs reaches the markup unescaped."""

from __future__ import annotations

from importlib import resources

from quizkit.diff.compare import CHANGES
from quizkit.diff.fields import ABSENT, cut
from quizkit.diff.result import DiffResult
from quizkit.outputs.numbers import thousands
from quizkit.pages.html_page import esc, json_data, page

#: Changes the page carries (the JSON report has them all).
MOST = 20_000

_STYLE = """<style>
.diff-side { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; }
.diff-side pre { margin: 0; white-space: pre-wrap; word-break: break-all; }
.change { border-top: 1px solid #ddd; padding: .4rem 0; }
.tag-added { color: #1a7f37; } .tag-removed { color: #cf222e; }
.tag-changed { color: #9a6700; } .tag-moved { color: #0969da; }
.filters label { margin-right: .8rem; }
</style>"""


def _value(value: object) -> object:
    return {"absent": True} if value is ABSENT else {"value": cut(value)}


def _data(result: DiffResult) -> list[dict]:
    out = []
    for c in result.changes[:MOST]:
        out.append({"kind": c.kind, "id": c.id, "change": c.change,
                    "old": c.old.to_dict() if c.old else None,
                    "new": c.new.to_dict() if c.new else None,
                    "fields": [{"pointer": f.pointer, "old": _value(f.old), "new": _value(f.new)}
                               for f in c.fields]})
    return out


def _num(n: int | float | None) -> str:
    return "" if n is None else esc(thousands(n))


def html(result: DiffResult) -> str:
    """The whole page."""
    verdict = "different" if result.different else "the same"
    head = (f"<h1>quizkit diff</h1><p data-testid=\"verdict\">{esc(', '.join(result.old))} "
            f"→ {esc(', '.join(result.new))}: <strong>{esc(verdict)}</strong></p>")
    rows = "".join(
        f"<tr data-table=\"{esc(t)}\"><td>{esc(t)}</td>"
        + "".join(f'<td class="num" data-count="{esc(k)}">{_num(counts[k])}</td>'
                  for k in (*CHANGES, "unchanged")) + "</tr>"
        for t, counts in result.summary.items())
    summary = ('<h2>Records</h2><table data-testid="summary"><thead><tr><th>table</th>'
               + "".join(f'<th class="num">{k}</th>' for k in (*CHANGES, "unchanged"))
               + f"</tr></thead><tbody>{rows}</tbody></table>")
    mrows = "".join(
        f"<tr><td>{esc(name)}</td><td class=\"num\">{_num(m['old'])}</td>"
        f"<td class=\"num\">{_num(m['new'])}</td><td class=\"num\">{_num(m['difference'])}</td>"
        f"<td class=\"num\">{'' if m['percent'] is None else esc(m['percent'])}</td></tr>"
        for name, m in result.measures().items())
    totals = ('<h2>Totals</h2><table data-testid="totals"><thead><tr><th>measure</th>'
              '<th class="num">old</th><th class="num">new</th><th class="num">difference</th>'
              f'<th class="num">percent</th></tr></thead><tbody>{mrows}</tbody></table>')
    unreadable = "".join(f"<li>{esc(s)}: {esc(p)}: {esc(r)}</li>"
                         for s, p, r in result.unreadable)
    if unreadable:
        unreadable = f'<h2>Could not be read</h2><ul data-testid="unreadable">{unreadable}</ul>'
    tables = sorted({c.kind for c in result.changes})
    options = "".join(f'<option value="{esc(t)}">{esc(t)}</option>' for t in tables)
    boxes = "".join(f'<label><input type="checkbox" name="change" value="{k}" checked> {k}'
                    f"</label>" for k in CHANGES)
    more = (f"<p>The page lists the first {thousands(MOST)} of "
            f"{thousands(len(result.changes))} changes; the JSON report has them all.</p>"
            if len(result.changes) > MOST else "")
    changes = (f'<h2>Changes</h2><div class="filters"><label>table <select id="table-filter">'
               f'<option value="">all</option>{options}</select></label>{boxes}</div>{more}'
               '<p id="shown" data-testid="shown"></p><div id="changes"></div>')
    body = _STYLE + head + summary + totals + unreadable + changes
    script = resources.files("quizkit.diff").joinpath("page.js").read_text(encoding="utf-8")
    return page("quizkit diff", body, script=script, data=json_data(_data(result), "diff-data"))
