"""No input makes quizkit slow out of proportion: cross-file duplicate
detection grows linearly with the copies, and per-path ignores scale to 100,000 patterns."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SAMPLES, run_script

RECORDS = 3000


def _small_game(number: int) -> str:
    game = json.loads((SAMPLES / "game.json").read_text())
    game["id"] = f"{number:024x}"
    game["history"] = []
    return json.dumps(game)


def _validate(*args: str, cwd: Path | None = None) -> tuple[int, dict]:
    """Exit code and JSON report of ``quizkit validate ARGS``. The timeout only catches a
    hang: the quadratic ways these tests guard against took minutes."""
    proc = run_script("validate", "--format", "json", "-j", "1", *args, cwd=cwd, timeout=300)
    assert b"Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_duplicates_in_json_lines_copies_are_found_in_linear_time(tmp_path: Path) -> None:
    """Two copies of a JSON Lines file of thousands of records: each duplicate is found, and
    the files are not read again for every record (which took minutes)."""
    lines = [_small_game(i) for i in range(RECORDS)]
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n")
    changed = json.loads(lines[-1])
    changed["name"] = "renamed"
    (tmp_path / "b.jsonl").write_text("\n".join([*lines[:-1], json.dumps(changed)]) + "\n")
    code, report = _validate(str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    rules = [f["rule"] for f in report["findings"]]
    assert rules.count("identical-duplicate") == RECORDS - 1
    assert rules.count("conflicting-duplicate") == 1 and code == 1
    [conflict] = [f for f in report["findings"] if f["rule"] == "conflicting-duplicate"]
    assert conflict["path"].endswith("b.jsonl") and conflict["record"] == RECORDS
    assert f"a.jsonl (record {RECORDS})" in conflict["message"]


def test_a_hundred_thousand_per_path_ignores_cost_seconds(tmp_path: Path) -> None:
    """A generated per-path-ignores table (one entry per file) must not be matched pattern by
    pattern against every finding's file."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    banner = json.loads((SAMPLES / "banner.json").read_text())
    for i in range(50):
        banner["surplus"] = i  # an unknown-field warning in each file
        (corpus / f"g{i}.json").write_text(json.dumps(banner))
    table = {f"gen/{i}/file{i}.json": ["S"] for i in range(99_990)}
    table["c/g1*.json"] = ["unknown-field"]  # g1, g10..g19: 11 files
    table["c/g2.json"] = ["unknown-field"]
    (tmp_path / "quizkit.toml").write_text(
        "[per-path-ignores]\n" + "".join(f'"{k}" = {json.dumps(v)}\n' for k, v in table.items()))
    code, report = _validate("c", cwd=tmp_path)
    got = {Path(f["path"]).name for f in report["findings"]}
    assert got == {f"g{i}.json" for i in range(50)} - {"g2.json", "g1.json"} - {
        f"g1{i}.json" for i in range(10)}
    assert {f["rule"] for f in report["findings"]} == {"unknown-field"} and code == 0
