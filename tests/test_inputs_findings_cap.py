"""Memory follows the input, not its findings: a file lists at most ``--max-findings``
findings (default 1000) and one ``findings-capped`` finding counts the rest by rule; the HTML
page carries at most ``MAX_PAGE_FINDINGS``. Peak memory of ``validate`` on a document whose
every element is wrong stays within 10 times its size plus 150 MB (measured as the child's
``ru_maxrss``), indented or compact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from safety_cli import SAMPLES, peak_rss, quizkit

from quizkit.inputs.limits import DEFAULT_MAX_FINDINGS
from quizkit.reporters.html_report import MAX_PAGE_FINDINGS

MB = 1_000_000


def zeros(path: Path, count: int, indent: int | None) -> Path:
    """A package whose first version's ``questions`` is ``count`` zeros (each one a
    wrong-type finding)."""
    doc = json.loads((SAMPLES / "package-full.json").read_text())
    doc["versions"][0]["questions"] = [0] * count
    separators = None if indent else (",", ":")
    path.write_text(json.dumps(doc, indent=indent, separators=separators))
    return path


def listed(done) -> list[dict]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_findings_past_the_cap_are_counted_by_rule(tmp_path: Path) -> None:
    doc = zeros(tmp_path / "package.json", 3000, 2)
    rows = listed(quizkit("validate", doc, "--format", "jsonl", "-j", "1"))
    capped = [r for r in rows if r["rule"] == "findings-capped"]
    assert len(rows) == DEFAULT_MAX_FINDINGS + 1 and len(capped) == 1
    assert capped[0]["code"] == "P011" and capped[0]["severity"] == "error"
    more = 3000 - sum(r["rule"] == "wrong-type" for r in rows)
    assert f"S001 wrong-type {more:,}" in capped[0]["message"]
    # the cap moves, or goes
    assert len(listed(quizkit("validate", doc, "--format", "jsonl", "--max-findings", "10"))) \
        == 11
    every = listed(quizkit("validate", doc, "--format", "jsonl", "--max-findings", "0"))
    assert sum(r["rule"] == "wrong-type" for r in every) == 3000
    assert not any(r["rule"] == "findings-capped" for r in every)
    # the text report says it too, and the exit code is the one of the findings
    done = quizkit("validate", doc)
    assert done.returncode == 1 and "P011 findings-capped" in done.stdout


@pytest.mark.parametrize(("count", "indent"), [(200_000, 2), (200_000, None)],
                         ids=["indented", "compact"])
def test_peak_memory_follows_the_input_not_its_findings(tmp_path: Path, count: int,
                                                        indent: int | None) -> None:
    doc = zeros(tmp_path / "package.json", count, indent)
    done, peak = peak_rss("validate", doc, "-j", "1", "--format", "json", "-o",
                          tmp_path / "report.json", timeout=1800)
    assert done.returncode == 1, done.stderr
    size = doc.stat().st_size
    assert peak <= 10 * size + 150 * MB, (peak / MB, size / MB)


def test_the_html_page_carries_at_most_its_share_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    files = MAX_PAGE_FINDINGS // DEFAULT_MAX_FINDINGS + 2
    for i in range(files):
        zeros(folder / f"p{i}.json", DEFAULT_MAX_FINDINGS, None)
    page = tmp_path / "report.html"
    done = quizkit("validate", folder, "--format", "html", "-o", page, timeout=1800)
    assert done.returncode == 1, done.stderr
    text = page.read_text()
    assert f"first {MAX_PAGE_FINDINGS:,} findings of" in text
    start = text.index('id="quizkit-data"')
    data = json.loads(text[text.index(">", start) + 1:text.index("</script>", start)])
    assert len(data["findings"]) == MAX_PAGE_FINDINGS


def test_the_api_takes_the_cap_as_the_command_does(tmp_path: Path) -> None:
    from quizkit import api

    doc = zeros(tmp_path / "package.json", 50, None)
    report = api.validate(str(doc), max_findings=10)
    assert len(report.findings) == 11
    assert [f.rule for f in report.findings].count("findings-capped") == 1
    assert len(api.validate(str(doc), max_findings=0).findings) >= 50
    with pytest.raises(api.ConfigError):
        api.validate(str(doc), max_findings=-1)
