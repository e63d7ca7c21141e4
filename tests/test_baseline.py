"""Baselines: write today's findings, then fail only on new ones."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner
from conftest import INVALID, run_script

from quizkit.cli import main

CASES = INVALID / "rules"


def validate(cwd: Path, *args: str):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["validate", "--format", "json", *args])
    finally:
        os.chdir(old)


def setup(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "exports").mkdir(parents=True)
    shutil.copy(CASES / "round-duplicate-position.json", work / "exports" / "a.json")
    shutil.copy(CASES / "banner-updated-before-created.json", work / "exports" / "b.json")
    return work


def test_write_then_use_a_baseline(tmp_path):
    work = setup(tmp_path)
    first = validate(work, "exports")
    assert first.exit_code == 1
    before = json.loads(first.stdout)["findings"]
    assert before

    (work / "qa").mkdir()
    written = validate(work, "exports", "--write-baseline", "qa/baseline.json")
    assert written.exit_code == 0, written.stderr
    assert "wrote" in written.stderr
    data = json.loads((work / "qa" / "baseline.json").read_text())
    assert data["version"] == 1
    entries = data["findings"]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["pointer"], e["rule"]))
    assert {e["path"] for e in entries} == {"../exports/a.json", "../exports/b.json"}
    assert sum(e["count"] for e in entries) == len(before)
    assert not list((work / "qa").glob("*.tmp"))

    again = validate(work, "exports", "--baseline", "qa/baseline.json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)["findings"] == []
    assert f"{len(before)} known findings not reported" in again.stderr

    # The same baseline from another directory: paths are relative to the baseline file.
    elsewhere = validate(work / "exports", ".", "--baseline", "../qa/baseline.json")
    assert elsewhere.exit_code == 0 and json.loads(elsewhere.stdout)["findings"] == []


def test_new_findings_are_reported_and_fail(tmp_path):
    work = setup(tmp_path)
    validate(work, "exports", "--write-baseline", "baseline.json")
    shutil.copy(CASES / "game-unknown-version.json", work / "exports" / "c.json")
    result = validate(work, "exports", "--baseline", "baseline.json")
    report = json.loads(result.stdout)
    assert [(f["path"].rsplit("/", 1)[-1], f["rule"]) for f in report["findings"]] == [
        ("c.json", "game-version-missing")]
    assert result.exit_code == 1


def test_matching_ignores_lines_and_counts_duplicates(tmp_path):
    work = setup(tmp_path)
    validate(work, "exports", "--write-baseline", "baseline.json")
    # Reformat a.json (every line moves) and add a second identical fault to it.
    doc = json.loads((work / "exports" / "a.json").read_text())
    (work / "exports" / "a.json").write_text(json.dumps(doc, indent=4))
    result = validate(work, "exports", "--baseline", "baseline.json")
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []

    base = json.loads((work / "baseline.json").read_text())
    entry = next(e for e in base["findings"] if e["rule"] == "duplicate-position")
    assert entry["count"] == 1
    # Two copies of the same finding in one file, one in the baseline: one is new.
    lines = (CASES / "banner-updated-before-created.json").read_text()
    (work / "exports" / "b.json").unlink()
    (work / "exports" / "bb.jsonl").write_text(
        json.dumps(json.loads(lines)) + "\n" + json.dumps(json.loads(lines)) + "\n")
    (work / "bl.json").write_text(json.dumps({"version": 1, "findings": [
        {"path": "exports/bb.jsonl", "pointer": "/updatedAt", "rule": "updated-before-created",
         "count": 1}]}))
    result = validate(work, "exports/bb.jsonl", "--baseline", "bl.json")
    findings = json.loads(result.stdout)["findings"]
    assert [f["rule"] for f in findings] == ["updated-before-created"]
    assert result.exit_code == 1


def test_fixed_findings_are_counted_as_gone(tmp_path):
    work = setup(tmp_path)
    validate(work, "exports", "--write-baseline", "baseline.json")
    (work / "exports" / "b.json").unlink()
    result = validate(work, "exports", "--baseline", "baseline.json")
    assert result.exit_code == 0
    assert "1 no longer occur" in result.stderr


def test_bad_baselines_are_configuration_errors(tmp_path):
    work = setup(tmp_path)
    (work / "bad.json").write_text('{"findings": []}')
    (work / "notjson.json").write_text("{")
    for args in (["--baseline", "bad.json"], ["--baseline", "notjson.json"],
                 ["--baseline", "missing.json"],
                 ["--baseline", "bad.json", "--write-baseline", "x.json"]):
        result = validate(work, "exports", *args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("Error:")
        assert result.stdout == ""


def test_write_baseline_keeps_exit_3_for_unreadable_input(tmp_path):
    work = setup(tmp_path)
    (work / "exports" / "z.json").write_text("{")
    result = validate(work, "exports", "--write-baseline", "baseline.json")
    assert result.exit_code == 3
    assert (work / "baseline.json").exists()


def test_baseline_respects_configuration(tmp_path):
    work = setup(tmp_path)
    (work / "quizkit.toml").write_text('ignore = ["U"]\n')
    validate(work, "exports", "--write-baseline", "baseline.json")
    rules = {e["rule"] for e in json.loads((work / "baseline.json").read_text())["findings"]}
    assert "duplicate-position" not in rules and "updated-before-created" in rules


def test_console_script_with_baseline(tmp_path):
    work = setup(tmp_path)
    wrote = run_script("validate", "exports", "--write-baseline", "b.json", cwd=work)
    assert wrote.returncode == 0, wrote.stderr
    used = run_script("validate", "exports", "--baseline", "b.json", cwd=work)
    assert used.returncode == 0 and b"known finding" in used.stderr
