"""JSON Lines on stdin: ``-`` reads JSON Lines, found by looking or asked
for with ``--stdin-format jsonl``; a single document is never split."""

from __future__ import annotations

import gzip
import json

import pytest

from tests.conftest import SAMPLES, run_script

LINES = (SAMPLES / "games.jsonl").read_bytes()
PRETTY = (SAMPLES / "package-full.json").read_bytes()


def _validate(data: bytes, *args: str) -> tuple[int, dict]:
    proc = run_script("validate", "--format", "json", *args, "-", input=data)
    assert b"Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("args", [[], ["--stdin-format", "jsonl"]])
def test_json_lines_on_stdin_are_read_line_by_line(args: list[str]) -> None:
    code, report = _validate(LINES, *args)
    count = len([ln for ln in LINES.splitlines() if ln.strip()])
    assert count > 1 and report["summary"]["documents"] == count
    assert code == 0 and report["findings"] == []


def test_gzipped_json_lines_on_stdin() -> None:
    code, report = _validate(gzip.compress(LINES))
    assert code == 0 and report["summary"]["documents"] > 1


def test_a_broken_line_is_reported_at_its_record() -> None:
    lines = LINES.splitlines()
    data = b"\n".join([lines[0], b'{"id": ', *lines[1:]]) + b"\n"
    code, report = _validate(data)
    [hit] = report["findings"]
    assert hit["path"] == "<stdin>" and hit["record"] == 2 and hit["rule"] == "invalid-json"
    assert code == 3
    # When the first line is the broken one, looking cannot tell: the switch can.
    first_broken = b"\n".join([b'{"id": ', *lines]) + b"\n"
    code, report = _validate(first_broken, "--stdin-format", "jsonl")
    assert [f["record"] for f in report["findings"]] == [1] and code == 3
    assert report["summary"]["documents"] == len(lines) + 1


@pytest.mark.parametrize("fmt", ["auto", "json"])
def test_one_document_on_stdin_stays_one(fmt: str) -> None:
    assert PRETTY.count(b"\n") > 10
    code, report = _validate(PRETTY, "--stdin-format", fmt)
    assert code == 0 and report["summary"]["documents"] == 1


def test_json_lines_read_as_one_document_when_told() -> None:
    code, report = _validate(LINES, "--stdin-format", "json")
    assert code == 3 and report["findings"][0]["rule"] == "invalid-json"


def test_enums_infer_reads_json_lines_on_stdin() -> None:
    proc = run_script("enums", "infer", "--format", "json", "-", input=LINES)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout)["documents"] == len(LINES.splitlines())
    proc = run_script("enums", "infer", "--stdin-format", "json", "-", input=LINES)
    assert proc.returncode == 3 and b"<stdin>:2:1: error P002 invalid-json" in proc.stderr


def test_the_api_takes_the_stdin_format(monkeypatch) -> None:
    import io
    import sys

    import quizkit

    class Stdin:
        buffer = io.BytesIO(LINES)

    monkeypatch.setattr(sys, "stdin", Stdin())
    report = quizkit.validate("-", stdin_format="jsonl")
    assert report.summary()["documents"] == len(LINES.splitlines())
