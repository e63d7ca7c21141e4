"""The HTML findings report: one self-contained page to look at a run.

The run at a glance (counts of files, documents and findings by severity, rule, kind and file)
is written as markup; the findings themselves travel as one JSON data block that the page's
script shows grouped by file, a page at a time, with filters by severity, rule and file (so a
run with 100,000 findings opens in seconds). Each finding shows the source lines around it,
cut by the engine from the text it checked (``snippet_lines``), and links to its rule's
explanation, which is in the page. Everything from the inputs is escaped (see html_page).
"""

from __future__ import annotations

from collections import Counter

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.rule import Rule
from quizkit.outputs.numbers import plural, thousands
from quizkit.pages.html_page import asset, esc, json_data, page, prose
from quizkit.reporters.base import Reporter, rule_code, rule_of

#: Lines shown either side of a finding's line.
CONTEXT = 2
#: Rows of the "by file" table at a glance (the filters reach every file).
TOP_FILES = 20
#: Findings the page carries, at most (in file order); the page says how many it leaves out
#: and the counts at a glance still cover every finding. A browser holds each finding as a
#: few objects: 200,000 of them took 1.7 GB to build and show.
MAX_PAGE_FINDINGS = 20_000
SEVERITIES = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def _table(head: list[tuple[str, bool]], rows: list[list[str]], test_id: str) -> str:
    """A table; cells are markup already escaped; ``head`` is (title, numeric)."""
    th = "".join(f'<th class="num">{esc(t)}</th>' if num else f"<th>{esc(t)}</th>"
                 for t, num in head)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if head[i][1] else f"<td>{c}</td>"
                         for i, c in enumerate(row)) + "</tr>" for row in rows)
    if not rows:
        body = f'<tr><td colspan="{len(head)}" class="empty">none</td></tr>'
    return f'<table data-testid="{esc(test_id)}"><thead><tr>{th}</tr></thead>' \
           f"<tbody>{body}</tbody></table>"


def _count_cell(n: int, key: str = "") -> str:
    attr = f' data-count="{esc(key)}"' if key else ""
    return f'<span{attr} data-value="{n}">{thousands(n)}</span>'


class _Page:
    """Builds the page of one report (a helper object, so nothing lives between runs)."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.files: dict[str, int] = {}
        self.rules: dict[str, Rule | None] = {}
        for r in report.files:
            self.files.setdefault(r.path, len(self.files))
        for f in report.findings:
            self.files.setdefault(f.path, len(self.files))
            self.rules.setdefault(rule_code(f), rule_of(f))

    # -- at a glance ---------------------------------------------------------------------
    def glance(self) -> str:
        s = self.report.summary()
        cards = [("files", "file", ""), ("documents", "document", ""),
                 ("errors", "error", "error"), ("warnings", "warning", "warning"),
                 ("infos", "info", "info")]
        html_cards = "".join(
            f'<div class="card {cls}"><span class="n" data-count="{key}" data-value="{s[key]}">'
            f"{thousands(s[key])}</span>{esc(word if s[key] == 1 else key)}</div>"
            for key, word, cls in cards)
        return (f'<section id="glance"><h2>At a glance</h2><div class="cards">{html_cards}</div>'
                f'<div class="grid">{self._by_severity()}{self._by_kind()}</div>'
                f'<div class="grid">{self._by_rule()}{self._by_file()}</div></section>')

    def _by_severity(self) -> str:
        rows = [[f'<span class="sev sev-{sev}">{sev}</span>',
                 _count_cell(self.report.count(sev), f"severity-{sev}")] for sev in SEVERITIES]
        return "<div><h3>By severity</h3>" + _table([("severity", False), ("findings", True)],
                                                    rows, "by-severity") + "</div>"

    def _by_kind(self) -> str:
        files: Counter[str] = Counter()
        documents: Counter[str] = Counter()
        for r in self.report.files:
            kinds = r.kinds or Counter({r.kind or "(unknown)": r.documents})
            files[r.kind or "(unknown)"] += 1
            for kind, n in kinds.items():
                documents[kind] += n
        findings: Counter[str] = Counter()
        kind_of = {r.path: r.kind or "(unknown)" for r in self.report.files}
        for f in self.report.findings:
            findings[kind_of.get(f.path, "(unknown)")] += 1
        kinds = sorted(set(files) | set(documents), key=lambda k: (-files[k], k))
        rows = [[f"<code>{esc(k)}</code>", _count_cell(files[k]), _count_cell(documents[k]),
                 _count_cell(findings[k], f"kind-{k}")] for k in kinds]
        head = [("kind", False), ("files", True), ("documents", True), ("findings", True)]
        return "<div><h3>By kind</h3>" + _table(head, rows, "by-kind") + "</div>"

    def _by_rule(self) -> str:
        counts: Counter[str] = Counter(rule_code(f) for f in self.report.findings)
        worst: dict[str, Severity] = {}
        for f in self.report.findings:
            code = rule_code(f)
            worst[code] = max(worst.get(code, f.severity), f.severity)
        rows = []
        for code in sorted(counts, key=lambda c: (-worst[c], -counts[c], c)):
            r = self.rules.get(code)
            name = esc(r.name) if r else ""
            rows.append([f'<a href="#rule-{esc(code)}" class="rule-link">{esc(code)}</a>',
                         name, f'<span class="sev sev-{worst[code]}">{worst[code]}</span>',
                         f'<a href="#findings" class="filter-rule" data-rule="{esc(code)}">'
                         f'{_count_cell(counts[code], f"rule-{code}")}</a>'])
        head = [("rule", False), ("name", False), ("severity", False), ("findings", True)]
        return "<div><h3>By rule</h3>" + _table(head, rows, "by-rule") + "</div>"

    def _by_file(self) -> str:
        per: dict[str, Counter[Severity]] = {}
        for f in self.report.findings:
            per.setdefault(f.path, Counter())[f.severity] += 1
        order = sorted(per, key=lambda p: (-per[p][Severity.ERROR], -per[p][Severity.WARNING],
                                           -per[p][Severity.INFO], self.files[p]))
        rows = [[f'<a href="#findings" class="filter-file" data-file="{self.files[p]}">'
                 f"<code>{esc(p)}</code></a>"] +
                [_count_cell(per[p][sev]) for sev in SEVERITIES] for p in order[:TOP_FILES]]
        title = "By file" + (f" (the {TOP_FILES} with the most findings of "
                             f"{thousands(len(order))})" if len(order) > TOP_FILES else "")
        head = [("file", False), ("errors", True), ("warnings", True), ("infos", True)]
        return f"<div><h3>{esc(title)}</h3>" + _table(head, rows, "by-file") + "</div>"

    # -- findings ------------------------------------------------------------------------
    def data(self) -> dict:
        """The findings as compact rows, in file order; source lines once per file."""
        order = sorted(range(len(self.report.findings)),
                       key=lambda i: (self.files[self.report.findings[i].path], i))
        del order[MAX_PAGE_FINDINGS:]
        lines: dict[str, dict[str, str]] = {}
        rows = []
        for i in order:
            f = self.report.findings[i]
            file = self.files[f.path]
            rows.append([file, int(f.severity), rule_code(f), f.line, f.column, f.pointer,
                         f.message, f.record, self._snippet(f, file, lines)])
        rules = {code: ({"name": r.name, "summary": r.summary} if r else
                        {"name": "", "summary": ""}) for code, r in self.rules.items()}
        return {"files": list(self.files), "rules": rules, "findings": rows, "lines": lines}

    @staticmethod
    def _snippet(f: Finding, file: int, lines: dict[str, dict[str, str]]) -> list | None:
        s = f.snippet
        if s is None:
            return None
        kept = lines.setdefault(str(file), {})
        for n, text in enumerate(s.lines, start=s.first):
            kept.setdefault(f"{n}:{s.cut}", text)
        return [s.first, s.first + len(s.lines) - 1, s.line, s.start, s.end, s.cut]

    def findings(self) -> str:
        total = len(self.report.findings)
        sev = "".join(
            f'<label><input type="checkbox" class="sev-filter" value="{int(v)}" checked '
            f'data-testid="filter-{v}"> <span class="sev sev-{v}">{v}</span> '
            f'({thousands(self.report.count(v))})</label>' for v in SEVERITIES)
        rule_opts = "".join(
            f'<option value="{esc(c)}">{esc(c)} {esc(r.name if r else "")}</option>'
            for c, r in sorted(self.rules.items()))
        empty = "no findings" if not total else "(the list needs JavaScript)"
        left_out = total - MAX_PAGE_FINDINGS
        cut = (f'<p class="cut" data-testid="cut">This page lists the first '
               f"{thousands(MAX_PAGE_FINDINGS)} findings of {thousands(total)} (in file "
               f"order); the {esc(plural(left_out, 'other'))} are counted above. The JSON, "
               "JSON Lines or SARIF report lists them all.</p>") if left_out > 0 else ""
        return f"""<section id="findings"><h2>Findings</h2>{cut}
<div class="filters">{sev}
<label>rule <select id="rule-filter" data-testid="rule-filter">
<option value="">all rules</option>{rule_opts}</select></label>
<label>file <input type="search" id="file-filter" data-testid="file-filter"
 placeholder="part of a path" list="file-list"></label>
<span id="shown" data-testid="shown">{esc(plural(total, "finding"))}</span>
</div>
<div class="pager" id="pager-top"></div>
<div id="finding-list" data-testid="finding-list"><p class="empty">{empty}</p></div>
<div class="pager" id="pager-bottom"></div>
<datalist id="file-list"></datalist>
</section>"""

    def rules_section(self) -> str:
        parts = []
        for code, r in sorted(self.rules.items()):
            if r is None:
                parts.append(f'<div class="rule" id="rule-{esc(code)}"><h3>{esc(code)}</h3>'
                             "<p>not in the rule catalog</p></div>")
                continue
            examples = ""
            if r.bad:
                examples += f"<p>Bad:</p><pre>{esc(r.bad)}</pre>"
            if r.good:
                examples += f"<p>Good:</p><pre>{esc(r.good)}</pre>"
            parts.append(f'<div class="rule" id="rule-{esc(code)}"><h3>{esc(code)} {esc(r.name)} '
                         f'<span class="sev sev-{r.severity}">({r.severity})</span></h3>'
                         f"<p><strong>{prose(r.summary)}</strong></p><p>{prose(r.explanation)}</p>"
                         f"{examples}</div>")
        if not parts:
            return ""
        return '<section id="rules"><h2>Rules</h2>' + "".join(parts) + "</section>"


def render(report: Report) -> str:
    """The page of ``report`` (its findings and files must have been kept)."""
    built = _Page(report)
    s = report.summary()
    head = (f"<h1>quizkit validation report</h1><p class=\"sub\">"
            f"{esc(plural(s['files'], 'file'))}, {esc(plural(s['documents'], 'document'))}: "
            f"{esc(plural(s['errors'], 'error'))}, {esc(plural(s['warnings'], 'warning'))}, "
            f"{esc(plural(s['infos'], 'info'))}</p>"
            '<nav class="toc"><a href="#glance">At a glance</a><a href="#findings">Findings</a>'
            + ('<a href="#rules">Rules</a>' if built.rules else "") + "</nav>")
    body = head + built.glance() + built.findings() + built.rules_section()
    return page("quizkit validation report", body, script=asset("html_report.js"),
                data=json_data(built.data(), "quizkit-data"))


class HtmlReporter(Reporter):
    name = "html"
    description = ("one self-contained HTML page: the run at a glance, findings by file with "
                   "their source lines, filters, rule explanations")
    snippet_lines = CONTEXT

    def finish(self, report: Report) -> None:
        self.stream.write(render(report))
