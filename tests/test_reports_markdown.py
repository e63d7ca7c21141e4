"""The Markdown summary: golden output, and tables that a stray ``|`` cannot break."""

from __future__ import annotations

import io
import re

from test_report_data import drive, make_report, sample_report

from quizkit.catalog.findings import FileResult, Finding, Report, Severity
from quizkit.reporters import ReportOptions
from quizkit.reporters.markdown import MarkdownReporter, cell, code

GOLDEN = """\
## ❌ quizkit: 6 errors

6 files, 9 documents: **6** errors, **1** warning, **1** info

| severity | findings |
|---|---:|
| error | 6 |
| warning | 1 |
| info | 1 |

### By rule

| rule | name | severity | findings |
|---|---|---|---:|
| `S002` | missing-field | error | 2 |
| `P001` | unreadable-input | error | 1 |
| `P002` | invalid-json | error | 1 |
| `S001` | wrong-type | error | 1 |
| `S004` | invalid-format | error | 1 |
| `S003` | unknown-field | warning | 2 |

### Files with the most findings (3 of 5)

| file | errors | warnings | infos |
|---|---:|---:|---:|
| `exports/pkg.json` | 2 | 1 | 0 |
| `exports/games.jsonl` | 2 | 0 | 0 |
| `exports/broken.json` | 1 | 0 | 0 |

### Findings (first 6 of 8)

| severity | rule | location | pointer | message |
|---|---|---|---|---|
| error | `S001` wrong-type | `exports/pkg.json:3:17` | `/rounds/0/position` | expected a number, got a string |
| warning | `S003` unknown-field | `exports/pkg.json:4:5` | `/rounds/0/colour` | unknown field 'colour' |
| error | `S002` missing-field | `exports/pkg.json:7:5` | `/rounds/1` | missing field 'position' |
| error | `S002` missing-field | `exports/games.jsonl:2:1 (record 2)` | `/id` | missing field 'id' |
| error | `S004` invalid-format | `exports/games.jsonl:5:40 (record 5)` | `/stoppedAt` | '22/11/2026' is not a date-time |
| info | `S003` unknown-field | `exports/odd name, v1:2.json:1:2` | `/title` | note: 100% \\| odd<br>second line |

… and 2 more; the JSON, JSON Lines or SARIF report lists them all.
"""  # noqa: E501


def markdown_of(report: Report, **options: object) -> str:
    out = io.StringIO()
    drive(MarkdownReporter(out, ReportOptions(**options)), report)
    return out.getvalue()


def test_golden() -> None:
    assert markdown_of(sample_report(), max_listed=6, worst_files=3) == GOLDEN


def test_all_findings_listed_under_the_limit() -> None:
    text = markdown_of(sample_report())
    assert "### Findings\n" in text
    assert "more; the JSON" not in text
    assert "`exports/gone.json`" in text
    assert "### Files with the most findings\n" in text


def test_clean_run() -> None:
    report = make_report(files=[FileResult("a.json", "game", 1, 10)])
    assert markdown_of(report) == (
        "## ✅ quizkit: no findings\n\n"
        "1 file, 1 document: **0** errors, **0** warnings, **0** infos\n")


def _cells(row: str) -> int:
    """Number of cell separators GitHub sees: pipes not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)\|", row))


def test_pipes_newlines_and_html_cannot_break_a_table() -> None:
    nasty = "a|b\nc <script> `x` | *y* _z_ [l](u) \\"
    report = make_report(
        files=[FileResult("we|ird`.json", "game", 1, 1)],
        findings=[Finding("we|ird`.json", "/a|b", "S001", Severity.ERROR, nasty,
                          line=1, column=2)])
    text = markdown_of(report)
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert len(tables) == 4
    for rows in tables:
        assert {_cells(row) for row in rows} == {_cells(rows[0])}, rows
    assert _cells(tables[-1][0]) == 6  # five columns in the findings table
    assert "<script>" not in text
    assert "&lt;script&gt;" in text


def test_cell_and_code_helpers() -> None:
    assert cell("a|b") == "a\\|b"
    assert cell("x\r\ny") == "x<br>y"
    assert code("a`b") == "``a`b``"
    assert code("`") == "`` ` ``"
    assert code("p|q") == "`p\\|q`"
