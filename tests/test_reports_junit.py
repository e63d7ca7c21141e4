"""The JUnit XML report, parsed back with an XML parser."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from test_report_data import drive, make_report, sample_report

from quizkit.catalog.findings import FileResult, Finding, Report, Severity
from quizkit.reporters.junit import JUnitReporter


def junit_of(report: Report) -> ET.Element:
    out = io.StringIO()
    drive(JUnitReporter(out), report)
    text = out.getvalue()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(text.encode("utf-8"))


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {tc.get("name"): tc for tc in root.iter("testcase")}


def test_structure_and_counts() -> None:
    root = junit_of(sample_report())
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    by_name = cases(root)
    assert list(by_name) == [
        "exports/pkg.json", "exports/games.jsonl", "exports/games.jsonl:2",
        "exports/games.jsonl:5", "exports/clean.json", "exports/odd name, v1:2.json",
        "exports/broken.json", "exports/gone.json",
    ]
    for el in (root, suite):
        assert el.get("tests") == "8"
        # pkg.json, games.jsonl:2 and :5 fail; broken.json and gone.json could not be read.
        assert el.get("failures") == "3"
        assert el.get("errors") == "2"
    assert float(suite.get("time")) >= 0


def test_one_failure_per_error_finding_with_rule_pointer_and_position() -> None:
    pkg = cases(junit_of(sample_report()))["exports/pkg.json"]
    failures = pkg.findall("failure")
    assert [f.get("type") for f in failures] == ["S001", "S002"]
    assert failures[0].get("message") == "S001 wrong-type: expected a number, got a string"
    text = failures[0].text
    assert "S001 wrong-type" in text
    assert "/rounds/0/position" in text
    assert "3:17" in text
    assert "expected a number, got a string" in text
    # the warning is not a failure: it is in system-out
    out = pkg.find("system-out").text
    assert "warning S003 unknown-field 4:5 at /rounds/0/colour" in out


def test_clean_file_and_info_only_file_pass() -> None:
    by_name = cases(junit_of(sample_report()))
    clean = by_name["exports/clean.json"]
    assert list(clean) == []
    assert clean.get("classname") == "quizkit.version"
    odd = by_name["exports/odd name, v1:2.json"]
    assert odd.find("failure") is None
    assert "note: 100% | odd\nsecond line" in odd.find("system-out").text


def test_jsonl_records_are_their_own_cases() -> None:
    by_name = cases(junit_of(sample_report()))
    assert by_name["exports/games.jsonl"].find("failure") is None
    rec = by_name["exports/games.jsonl:5"]
    assert rec.get("file") == "exports/games.jsonl"
    assert rec.find("failure").get("type") == "S004"


def test_unreadable_inputs_are_errors_not_failures() -> None:
    gone = cases(junit_of(sample_report()))["exports/gone.json"]
    assert gone.find("failure") is None
    assert gone.find("error").get("type") == "P001"


def test_markup_and_control_characters_stay_well_formed() -> None:
    message = 'bad <value> & "quotes" ]]> \x01\x1b end'
    report = make_report(files=[FileResult("a&b<c>.json", "game", 1, 1)],
                    findings=[Finding("a&b<c>.json", "/x", "S001", Severity.ERROR, message,
                                      line=1, column=1)])
    tc = cases(junit_of(report))["a&b<c>.json"]
    failure = tc.find("failure")
    assert 'bad <value> & "quotes" ]]> \\x01\\x1b end' in failure.get("message")
    assert 'bad <value> & "quotes" ]]> \\x01\\x1b end' in failure.text


def test_empty_run() -> None:
    root = junit_of(Report())
    assert root.get("tests") == "0"
    assert root.find("testsuite").findall("testcase") == []
