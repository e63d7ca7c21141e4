"""The SARIF report: valid against the official SARIF 2.1.0 schema, and what GitHub needs."""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from test_report_data import drive, make_report, sample_findings, sample_report

from quizkit import __version__
from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.reporters import ReportOptions
from quizkit.reporters.sarif import FINGERPRINT_KEY, SarifReporter
from quizkit.rules import REGISTRY

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sarif_of(report: Report, **options: object) -> dict:
    out = io.StringIO()
    drive(SarifReporter(out, ReportOptions(**options)), report)
    return json.loads(out.getvalue())


def schema_errors(validator: jsonschema.protocols.Validator, doc: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(doc)]


def test_valid_against_official_schema(validator, in_tmp: Path) -> None:
    doc = sarif_of(sample_report())
    assert schema_errors(validator, doc) == []
    assert doc["version"] == "2.1.0"
    assert len(doc["runs"]) == 1
    assert len(doc["runs"][0]["results"]) == len(sample_findings())


def test_schema_check_can_fail(validator, in_tmp: Path) -> None:
    """The validator really checks: broken logs are rejected."""
    doc = sarif_of(sample_report())
    bad = copy.deepcopy(doc)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    assert schema_errors(validator, bad)
    bad = copy.deepcopy(doc)
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert schema_errors(validator, bad)
    bad = copy.deepcopy(doc)
    del bad["version"]
    assert schema_errors(validator, bad)


def test_driver_carries_the_rule_catalog(in_tmp: Path) -> None:
    driver = sarif_of(sample_report())["runs"][0]["tool"]["driver"]
    assert driver["name"] == "quizkit"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    catalog = list(REGISTRY.rules)
    assert [r["id"] for r in driver["rules"]] == [r.code for r in catalog]
    for desc, rule in zip(driver["rules"], catalog, strict=True):
        assert desc["name"] == rule.name
        assert desc["shortDescription"]["text"] == rule.summary
        assert desc["fullDescription"]["text"] == rule.explanation
        level = {"error": "error", "warning": "warning", "info": "note"}[str(rule.severity)]
        assert desc["defaultConfiguration"]["level"] == level
        assert rule.explanation in desc["help"]["text"]
        if rule.bad:
            assert rule.bad in desc["help"]["markdown"]
            assert rule.bad in desc["help"]["text"]
        if rule.good:
            assert rule.good in desc["help"]["markdown"]


def test_results_point_at_rules_files_and_pointers(in_tmp: Path) -> None:
    run = sarif_of(sample_report())["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == in_tmp.resolve().as_uri() + "/"
    findings = sample_findings()
    for result, f in zip(run["results"], findings, strict=True):
        assert result["ruleId"] == f.rule
        assert rules[result["ruleIndex"]]["id"] == f.rule
        assert result["level"] == {Severity.ERROR: "error", Severity.WARNING: "warning",
                                   Severity.INFO: "note"}[f.severity]
        assert f.message in result["message"]["text"]
        loc = result["locations"][0]
        art = loc["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%"
        assert not art["uri"].startswith("/")
        if f.line is None:
            assert "region" not in loc["physicalLocation"]
        else:
            assert loc["physicalLocation"]["region"] == {"startLine": f.line,
                                                         "startColumn": f.column}
        assert loc["logicalLocations"][0]["fullyQualifiedName"] == f.pointer
    first = run["results"][0]["locations"][0]
    assert first["physicalLocation"]["artifactLocation"]["uri"] == "exports/pkg.json"
    assert first["logicalLocations"][0]["kind"] == "property"


def test_uris_are_percent_encoded(in_tmp: Path) -> None:
    run = sarif_of(sample_report())["runs"][0]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in run["results"]}
    assert "exports/odd%20name%2C%20v1%3A2.json" in uris


def test_path_outside_root_is_an_absolute_file_uri(validator, in_tmp: Path) -> None:
    outside = in_tmp.parent / "elsewhere.json"
    report = make_report(findings=[Finding(str(outside), "/a", "S001", Severity.ERROR, "m",
                                      line=1, column=1)])
    sub = in_tmp / "sub"
    sub.mkdir()
    doc = sarif_of(report, root=sub)
    art = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art["uri"] == outside.as_uri()
    assert "uriBaseId" not in art
    assert schema_errors(validator, doc) == []


def test_fingerprints_are_stable_and_ignore_line_moves(in_tmp: Path) -> None:
    first = sarif_of(sample_report())["runs"][0]["results"]
    again = sarif_of(sample_report())["runs"][0]["results"]
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in first]
    assert prints == [r["partialFingerprints"][FINGERPRINT_KEY] for r in again]
    assert len(set(prints)) == len(prints)
    moved = sample_report()
    for f in moved.findings:
        if f.line is not None:
            f.line += 10
    assert prints == [r["partialFingerprints"][FINGERPRINT_KEY]
                      for r in sarif_of(moved)["runs"][0]["results"]]


def test_rule_given_by_name_maps_to_code(in_tmp: Path) -> None:
    report = make_report(findings=[Finding("a.json", "/x", "wrong-type", Severity.ERROR, "m",
                                      line=1, column=1)])
    result = sarif_of(report)["runs"][0]["results"][0]
    assert result["ruleId"] == "S001"


def test_uncatalogued_rule_still_gives_a_valid_log(validator, in_tmp: Path) -> None:
    report = make_report(findings=[Finding("a.json", "/x", "X999", Severity.WARNING, "m",
                                      line=1, column=1)])
    doc = sarif_of(report)
    result = doc["runs"][0]["results"][0]
    assert doc["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "X999"
    assert schema_errors(validator, doc) == []


def test_results_are_capped_keeping_the_most_severe(validator, in_tmp: Path) -> None:
    doc = sarif_of(sample_report(), sarif_max_results=5)
    run = doc["runs"][0]
    assert len(run["results"]) == 5
    assert all(r["level"] == "error" for r in run["results"])
    assert run["properties"] == {"truncated": True, "omittedResults": 3}
    note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert "3 of 8" in note
    assert schema_errors(validator, doc) == []


MULTITOOL = os.environ.get("QUIZKIT_SARIF_MULTITOOL") or shutil.which("Sarif.Multitool")


@pytest.mark.skipif(not MULTITOOL, reason="set QUIZKIT_SARIF_MULTITOOL to the SARIF Multitool")
def test_sarif_multitool_finds_no_github_problems(in_tmp: Path) -> None:
    """Microsoft's validator, with its GitHub code-scanning rules (optional, not in CI)."""
    (in_tmp / "in.sarif").write_text(json.dumps(sarif_of(sample_report())))
    proc = subprocess.run(
        [MULTITOOL, "validate", "in.sarif", "--rule-kind", "Gh", "-o", "out.sarif",
         "--log", "ForceOverwrite"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((in_tmp / "out.sarif").read_text())["runs"][0]["results"]
    assert results == []
