"""Reports through the real CLI: every format on real files, streaming and Ctrl-C in a real
process (a FIFO input holds the run mid-way, deterministically)."""

from __future__ import annotations

import io
import json
import os
import select
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from quizkit.cli import main
from quizkit.reporters import REPORTERS

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"
SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-2.1.0.json").read_text())
posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs and signals")


def corpus(root: Path) -> Path:
    """exports/: a valid game, another with an unknown field, and a truncated document."""
    exports = root / "exports"
    exports.mkdir()
    game = json.loads((SAMPLES / "game.json").read_text())
    (exports / "a-valid.json").write_text(json.dumps(game, indent=2))
    # Another game (the same id with other content would be a cross-file conflict).
    other = json.loads((SAMPLES / "games.jsonl").read_text().splitlines()[0])
    assert other["id"] != game["id"]
    other["colour"] = "red"
    (exports / "b-extra.json").write_text(json.dumps(other, indent=2))
    (exports / "c-broken.json").write_text('{\n  "id": "g1",\n')
    return exports


def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")
    return CliRunner().invoke(main, ["validate", *args], catch_exceptions=False)


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_every_format_through_the_cli(fmt: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(tmp_path)
    result = run_cli(tmp_path, monkeypatch, "exports", "--format", fmt, "-o", "out")
    assert result.exit_code == 3, result.output  # c-broken.json cannot be parsed
    text = (tmp_path / "out").read_text()
    if not fmt.startswith("service"):  # validation blocks name versions, not files
        assert "c-broken.json" in text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_sarif_from_the_cli_is_valid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(tmp_path)
    result = run_cli(tmp_path, monkeypatch, "exports", "--format", "sarif")
    doc = json.loads(result.output)
    cls = jsonschema.validators.validator_for(SCHEMA)
    errors = list(cls(SCHEMA, format_checker=cls.FORMAT_CHECKER).iter_errors(doc))
    assert errors == []
    results = doc["runs"][0]["results"]
    by_uri = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r
              for r in results}
    assert set(by_uri) == {"exports/b-extra.json", "exports/c-broken.json"}
    assert by_uri["exports/b-extra.json"]["ruleId"] == "S003"
    assert by_uri["exports/b-extra.json"]["level"] == "warning"
    assert by_uri["exports/c-broken.json"]["ruleId"] == "P002"
    assert by_uri["exports/c-broken.json"]["locations"][0]["physicalLocation"]["region"][
        "startLine"] == 3


def test_junit_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(tmp_path)
    result = run_cli(tmp_path, monkeypatch, "exports", "--format", "junit")
    root = ET.parse(io.StringIO(result.output)).getroot()
    cases = {tc.get("name"): tc for tc in root.iter("testcase")}
    assert list(cases) == ["exports/a-valid.json", "exports/b-extra.json",
                           "exports/c-broken.json"]
    assert root.get("tests") == "3"
    assert cases["exports/b-extra.json"].find("failure") is None
    assert "unknown-field" in cases["exports/b-extra.json"].find("system-out").text
    assert cases["exports/c-broken.json"].find("error").get("type") == "P002"


def _subprocess(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "quizkit", "validate", *args], cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)


def _held_run(tmp_path: Path) -> str:
    """Bad files, then stdin, which holds the run until something is written to it.

    (Not a named FIFO: validate refuses those rather than block on them, see docs/limits.md.)
    """
    exports = corpus(tmp_path)
    (exports / "a-valid.json").unlink()
    return "-"


@posix_only
def test_jsonl_streams_while_the_run_goes_on(tmp_path: Path) -> None:
    held = _held_run(tmp_path)
    proc = _subprocess(["exports/b-extra.json", "exports/c-broken.json", held,
                        "--format", "jsonl"], tmp_path)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no JSON Lines output while the run was held"
        lines = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert proc.poll() is None  # the run is still going (blocked on stdin)
        assert [(f["path"], f["code"]) for f in lines] == [
            ("exports/b-extra.json", "S003"), ("exports/c-broken.json", "P002")]
        # let the run finish
        rest, _ = proc.communicate((SAMPLES / "game.json").read_bytes(), timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 3
    assert rest == b""  # the held document is valid


@posix_only
def test_ctrl_c_leaves_the_previous_report(tmp_path: Path) -> None:
    held = _held_run(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text("previous report\n")
    proc = _subprocess(["exports/b-extra.json", "exports/c-broken.json", held,
                        "--format", "jsonl", "--output", out.name], tmp_path)
    try:
        # The findings of the first files are in the temporary file: the run is mid-way.
        deadline = time.monotonic() + 60
        while not any(p.name.startswith(".out.jsonl.") and p.stat().st_size
                      for p in tmp_path.iterdir()):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run never wrote its first finding"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert out.read_text() == "previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exports", "out.jsonl"]
    assert proc.returncode == 130, stderr.decode(errors="replace")[-300:]
    assert b"Traceback" not in stderr
