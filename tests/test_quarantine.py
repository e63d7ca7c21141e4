"""``validate --write-valid FILE --write-invalid FILE`` through the CLI: each line of JSON
Lines input, byte for byte, to one file or the other; the outputs follow every output rule."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SAMPLES

GOOD = (SAMPLES / "banners.jsonl").read_bytes().splitlines(keepends=True)
#: A wrong type: a schema finding (error) on its record.
WRONG = GOOD[0].replace(b'"createdAt":"', b'"createdAt":12, "x":"', 1)


def quizkit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          env={**os.environ, "CI": "true"}, timeout=600, cwd=cwd)


def lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def failing_records(report: dict, path: Path) -> set[int]:
    return {f["record"] for f in report["findings"]
            if f["path"] == str(path) and f["severity"] == "error"}


def run_split(src: list[Path], tmp_path: Path, *args: str) -> tuple[int, dict, bytes, bytes]:
    valid, invalid, report = (tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl",
                              tmp_path / "report.json")
    for p in (valid, invalid):
        p.unlink(missing_ok=True)
    proc = quizkit("validate", *map(str, src), "--write-valid", str(valid),
                   "--write-invalid", str(invalid), "--format", "json", "-o", str(report),
                   *args)
    assert proc.returncode in (0, 1, 3), proc.stderr.decode()
    return proc.returncode, json.loads(report.read_text()), valid.read_bytes(), \
        invalid.read_bytes()


def check_split(inputs: list[Path], report: dict, valid: bytes, invalid: bytes) -> int:
    """Each input line is in exactly one file, in order, byte for byte; the invalid ones are
    those with an error on their record. The number of invalid lines."""
    want_valid, want_invalid = [], []
    for path in inputs:
        bad = failing_records(report, path)
        assert None not in bad  # no finding on a whole file here
        for number, line in enumerate(lines(path.read_bytes()), 1):
            (want_invalid if number in bad else want_valid).append(line)
    for got, want in ((valid, want_valid), (invalid, want_invalid)):
        assert [line.rstrip(b"\n") for line in lines(got)] == \
            [line.rstrip(b"\n") for line in want]
        assert got == b"".join(w if w.endswith(b"\n") or i == len(want) - 1 else w + b"\n"
                               for i, w in enumerate(want))
    return len(want_invalid)


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Good records, a wrong type, invalid JSON, a blank line, a CRLF line and a last line
    without a newline."""
    path = tmp_path / "in" / "mixed.jsonl"
    path.parent.mkdir()
    path.write_bytes(GOOD[0] + WRONG + b"{not json\n" + GOOD[1] + b"\n"
                     + GOOD[2].rstrip(b"\n") + b"\r\n" + b"[1, 2\n" + GOOD[3].rstrip(b"\n"))
    return path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_split_holds_every_line_once(mixed: Path, tmp_path: Path, jobs: str) -> None:
    before = mixed.read_bytes()
    code, report, valid, invalid = run_split([mixed], tmp_path, "-j", jobs)
    assert code == 3  # the lines that are not JSON
    assert failing_records(report, mixed) == {2, 3, 7}
    assert check_split([mixed], report, valid, invalid) == 3
    assert sorted(lines(valid) + lines(invalid)) == sorted(lines(before))
    assert invalid.startswith(WRONG) and valid.endswith(GOOD[3].rstrip(b"\n"))
    assert mixed.read_bytes() == before


def test_a_cached_run_still_writes_both_files(mixed: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run_split([mixed], tmp_path, "--cache-dir", str(cache))
    second = run_split([mixed], tmp_path, "--cache-dir", str(cache), "-v")
    assert first[2:] == second[2:] and second[3]


def test_several_files_and_a_big_file_cut_for_the_workers(tmp_path: Path) -> None:
    """A file big enough to be cut into pieces for the workers: record numbers are the
    file's, so the same lines go aside with one job or two."""
    big = tmp_path / "in" / "big.jsonl"
    big.parent.mkdir()
    body = [GOOD[i % len(GOOD)] for i in range(20000)]
    for number in (5, 7000, 13001, 19999):
        body[number - 1] = WRONG
    big.write_bytes(b"".join(body))
    assert big.stat().st_size > 4 * 1024 * 1024
    small = tmp_path / "in" / "small.ndjson"
    small.write_bytes(GOOD[0] + b"{\n")
    results = [run_split([big, small], tmp_path, "-j", jobs) for jobs in ("1", "2")]
    assert results[0][2:] == results[1][2:]
    _, report, valid, invalid = results[1]
    assert failing_records(report, big) == {5, 7000, 13001, 19999}
    assert check_split([big, small], report, valid, invalid) == 5


def test_fail_on_decides_what_is_invalid(mixed: Path, tmp_path: Path) -> None:
    """With the wrong type re-graded to a warning, it stays valid under --fail-on error and
    goes aside under --fail-on warning."""
    codes = {f["code"] for f in run_split([mixed], tmp_path)[1]["findings"] if f["record"] == 2}
    regrade = [a for c in codes for a in ("--severity", f"{c}=warning")]
    _, _, _, invalid = run_split([mixed], tmp_path, *regrade)
    assert WRONG not in lines(invalid)
    _, _, _, invalid = run_split([mixed], tmp_path, *regrade, "--fail-on", "warning")
    assert WRONG in lines(invalid)


def test_input_that_is_not_json_lines_is_refused(tmp_path: Path, mixed: Path) -> None:
    valid = tmp_path / "valid.jsonl"
    for args, said in (([str(SAMPLES / "banner.json")], "banner.json is a JSON document"),
                       ([str(mixed), str(SAMPLES / "game.json")], "game.json is a JSON"),
                       (["-"], "not standard input")):
        proc = quizkit("validate", *args, "--write-valid", str(valid))
        assert proc.returncode == 2, proc.stderr
        assert said in proc.stderr.decode() and b"Traceback" not in proc.stderr
        assert not valid.exists()


def test_the_outputs_follow_the_output_rules(mixed: Path, tmp_path: Path) -> None:
    before = mixed.read_bytes()
    for args in (["--write-valid", str(mixed)], ["--write-invalid", str(mixed)],
                 ["--write-valid", str(tmp_path / "same"), "--write-invalid",
                  str(tmp_path / "same")],
                 ["--write-invalid", str(tmp_path / "no-such-dir" / "x.jsonl")]):
        proc = quizkit("validate", str(mixed), *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert b"Traceback" not in proc.stderr
    assert mixed.read_bytes() == before
    assert not (tmp_path / "same").exists()
    # a link is followed: the file it points to gets the lines, the link stays
    target = tmp_path / "kept" / "invalid.jsonl"
    target.parent.mkdir()
    target.write_bytes(b"old\n")
    link = tmp_path / "invalid-link.jsonl"
    link.symlink_to(target)
    proc = quizkit("validate", str(mixed), "--write-invalid", str(link))
    assert proc.returncode == 3, proc.stderr
    assert link.is_symlink() and target.read_bytes().startswith(WRONG)
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]


def test_an_interrupted_run_leaves_both_outputs_as_they_were(mixed: Path, tmp_path: Path) -> None:
    valid, invalid, marker = tmp_path / "valid.jsonl", tmp_path / "invalid.jsonl", \
        tmp_path / "paused"
    valid.write_bytes(b"yesterday's valid\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "quizkit", "validate", str(mixed), "--write-valid", str(valid),
         "--write-invalid", str(invalid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "CI": "true", "QUIZKIT_PAUSE_AT": f"quarantine:{marker}"})
    try:
        while not marker.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert valid.read_bytes() == b"yesterday's valid\n" and not invalid.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "paused", "valid.jsonl"]
