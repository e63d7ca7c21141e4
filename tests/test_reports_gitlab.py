"""The GitLab Code Quality report, checked against GitLab's published format."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import ROOT

INVALID = ROOT / "samples" / "invalid"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quizkit", "validate", *args, "-q"],
                          capture_output=True, text=True, cwd=cwd, timeout=120)

@pytest.fixture(scope="module")
def gitlab_validator() -> jsonschema.protocols.Validator:
    schema = json.loads((ROOT / "tests/data/gitlab-codequality.schema.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_gitlab_report_follows_the_published_format(
        tmp_path: Path, gitlab_validator: jsonschema.protocols.Validator) -> None:
    work = tmp_path / "repo"
    shutil.copytree(INVALID, work / "exports")
    proc = run("./exports", "--report", "gitlab:gl.json", "--format", "json", cwd=work)
    assert proc.returncode in (1, 3), proc.stderr
    report = json.loads((work / "gl.json").read_text())
    gitlab_validator.validate(report)
    findings = json.loads(proc.stdout)["findings"]
    assert len(report) == len(findings)
    assert len({i["fingerprint"] for i in report}) == len(report)
    severity = {"error": "major", "warning": "minor", "info": "info"}
    for issue, f in zip(report, findings, strict=True):
        assert issue["location"]["path"] == f["path"].removeprefix("./")
        assert not issue["location"]["path"].startswith("./")
        assert issue["location"]["lines"]["begin"] == (f["line"] or 1)
        assert issue["check_name"] == f["code"] and issue["severity"] == severity[f["severity"]]
        assert f["message"] in issue["description"]


def test_gitlab_schema_catches_a_bad_report(
        gitlab_validator: jsonschema.protocols.Validator) -> None:
    good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "major",
            "location": {"path": "a.json", "lines": {"begin": 1}}}
    gitlab_validator.validate([good])
    for bad in ({**good, "severity": "error"}, {**good, "location": {"path": "./a.json",
                                                                     "lines": {"begin": 1}}},
                {k: v for k, v in good.items() if k != "fingerprint"},
                {**good, "location": {"path": "a.json", "lines": {"begin": "1"}}}):
        with pytest.raises(jsonschema.ValidationError):
            gitlab_validator.validate([bad])


def test_fingerprints_survive_moved_lines_and_paths_are_relative(
        tmp_path: Path, gitlab_validator: jsonschema.protocols.Validator) -> None:
    """A fingerprint names the finding, not its line: lines added above keep it; an absolute
    path inside the working directory is written relative to it."""
    doc = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc["current"] = "yes"
    target = tmp_path / "exports" / "b.create.json"
    target.parent.mkdir()
    target.write_text(json.dumps(doc, indent=2))
    first = run(str(target), "--format", "gitlab", cwd=tmp_path)
    target.write_text("\n\n\n" + json.dumps(doc, indent=2))
    moved = run(str(target), "--format", "gitlab", cwd=tmp_path)
    before, after = json.loads(first.stdout), json.loads(moved.stdout)
    for report in (before, after):
        gitlab_validator.validate(report)
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    assert after[0]["location"]["lines"]["begin"] == before[0]["location"]["lines"]["begin"] + 3
    assert before[0]["location"]["path"] == "exports/b.create.json"
    assert first.returncode == 1  # an error: the exit code is validate's, whatever the format


def test_a_finding_without_a_line_begins_at_line_one(
        tmp_path: Path, gitlab_validator: jsonschema.protocols.Validator) -> None:
    (tmp_path / "empty.json").write_text("")
    findings = json.loads(run("empty.json", "--format", "json", cwd=tmp_path).stdout)["findings"]
    report = json.loads(run("empty.json", "--format", "gitlab", cwd=tmp_path).stdout)
    gitlab_validator.validate(report)
    assert len(report) == len(findings) > 0
    for issue, f in zip(report, findings, strict=True):
        assert issue["location"]["lines"]["begin"] == (f["line"] or 1)
