"""open_reporters: --format/--output/--report FORMAT:PATH into the reporters of a run."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_report_data import drive, sample_report

from quizkit.outputs.writer import OutputError
from quizkit.reporters import (
    REPORTERS,
    ReportSpec,
    ReportSpecError,
    open_reporters,
    parse_report_spec,
    parse_reports,
)

DOCS = Path(__file__).parent.parent / "docs" / "reports.md"


def test_all_formats_exist() -> None:
    assert set(REPORTERS) == {"text", "concise", "json", "jsonl", "sarif", "junit", "github",
                              "markdown",
                              "service", "service-jsonl", "gitlab", "html"}
    for name, cls in REPORTERS.items():
        assert cls.name == name
        assert cls.description


@pytest.mark.parametrize(("spec", "expected"), [
    ("sarif:out.sarif", ReportSpec("sarif", "out.sarif")),
    ("JUnit:reports/junit.xml", ReportSpec("junit", "reports/junit.xml")),
    ("json:-", ReportSpec("json", None)),
    ("sarif:C:\\out\\q.sarif", ReportSpec("sarif", "C:\\out\\q.sarif")),
])
def test_parse_spec(spec: str, expected: ReportSpec) -> None:
    assert parse_report_spec(spec) == expected


@pytest.mark.parametrize(("spec", "words"), [
    ("sarif", "FORMAT:PATH"),
    ("sarif:", "FORMAT:PATH"),
    (":out.sarif", "FORMAT:PATH"),
    ("pdf:out.pdf", "unknown report format 'pdf'"),
])
def test_bad_spec_is_a_one_line_value_error(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)) as info:
        parse_report_spec(spec)
    assert isinstance(info.value, ReportSpecError)
    assert "\n" not in str(info.value)


def test_unknown_main_format_names_the_choices() -> None:
    with pytest.raises(ReportSpecError, match=r"--format.*choose from text, concise, json, jsonl"):
        parse_reports("yaml", None, [])


def test_two_reports_on_stdout_or_one_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportSpecError, match="standard output"):
        parse_reports("text", None, ["json:-"])
    out = str(tmp_path / "r.json")
    with pytest.raises(ReportSpecError, match="two reports write to"):
        parse_reports("json", out, [f"sarif:{out}"])
    with pytest.raises(ReportSpecError, match="directory"):
        parse_reports("json", str(tmp_path), [])
    # --report to stdout is fine when the main report goes to a file
    specs = parse_reports("text", out, ["json:-"])
    assert specs == [ReportSpec("text", out), ReportSpec("json", None)]


def test_unwritable_target_fails_before_the_run(tmp_path: Path) -> None:
    good = tmp_path / "good.sarif"
    with pytest.raises(OutputError, match=r"cannot write .*x\.xml: the directory .* does "
                                          "not exist"), \
            open_reporters("text", None, [f"sarif:{good}",
                                          f"junit:{tmp_path / 'no' / 'such' / 'x.xml'}"]):
        pytest.fail("the block must not run")
    assert list(tmp_path.iterdir()) == []  # the first file's temp file was removed too


def test_one_run_writes_every_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    stdout = io.StringIO()
    reports = ["sarif:out.sarif", "junit:out.xml", "jsonl:out.jsonl", "markdown:out.md",
               "github:gh.txt"]
    with open_reporters("text", None, reports, stdout=stdout) as rset:
        assert rset.needs_findings
        drive(rset, sample_report())
    assert stdout.getvalue().startswith("exports/pkg.json\n  3:17     error    S001")
    assert json.loads((tmp_path / "out.sarif").read_text())["version"] == "2.1.0"
    assert ET.parse(tmp_path / "out.xml").getroot().tag == "testsuites"
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 8
    assert (tmp_path / "out.md").read_text().startswith("## ❌ quizkit")
    assert (tmp_path / "gh.txt").read_text().startswith("::error file=exports/pkg.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gh.txt", "out.jsonl", "out.md", "out.sarif", "out.xml"]


def test_output_option(tmp_path: Path) -> None:
    stdout = io.StringIO()
    target = tmp_path / "report.json"
    with open_reporters("json", str(target), [], stdout=stdout) as rset:
        drive(rset, sample_report())
    assert stdout.getvalue() == ""
    assert json.loads(target.read_text())["summary"]["errors"] == 6


def test_streaming_only_runs_need_no_findings(tmp_path: Path) -> None:
    with open_reporters("jsonl", None, [f"github:{tmp_path / 'a.txt'}"],
                        stdout=io.StringIO()) as rset:
        assert rset.needs_findings is False


def test_every_format_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name in REPORTERS:
        assert re.search(rf"^## `{name}`", text, re.MULTILINE), f"{name} not in docs/reports.md"
    documented = set(re.findall(r"^## `([a-z][a-z-]*)`", text, re.MULTILINE))
    assert documented == set(REPORTERS), "docs/reports.md documents a format that is gone"
