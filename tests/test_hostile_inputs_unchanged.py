"""Input files are never changed: contents, modification times and modes are the same after any
run, including runs that write their report next to the inputs."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from pathlib import Path

from tests.conftest import SAMPLES, cli, run_script


def fingerprint(root: Path) -> dict[str, tuple]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            st = path.stat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[str(path.relative_to(root))] = (digest, st.st_mtime_ns, st.st_mode, st.st_size)
    return out


def make_inputs(root: Path) -> None:
    shutil.copy(SAMPLES / "banner.json", root / "ok.json")
    shutil.copy(SAMPLES / "games.jsonl", root / "games.jsonl")
    (root / "ok.json.gz").write_bytes(gzip.compress((SAMPLES / "banner.json").read_bytes()))
    (root / "bom.json").write_bytes(b"\xef\xbb\xbf" + (SAMPLES / "banner.json").read_bytes())
    (root / "broken.json").write_bytes(b'{"slot": "profile",}')
    (root / "dup.json").write_bytes(b'{"slot": "profile", "slot": "x"}')
    (root / "empty.json").write_bytes(b"")
    (root / "utf16.json").write_bytes('{"slot": 1}'.encode("utf-16"))
    sub = root / "sub"
    sub.mkdir()
    (sub / "bad.ndjson").write_bytes(b'{"slot": 5}\n{oops\n')
    # Old modification times, so that any rewrite would show even within one clock tick.
    for path in root.rglob("*"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def test_runs_never_change_their_inputs(tmp_path):
    make_inputs(tmp_path)
    before = fingerprint(tmp_path)
    assert len(before) == 9
    for fmt in ("text", "json"):
        report = tmp_path / f"report.{fmt}"
        result = cli("validate", "--format", fmt, "-o", str(report), str(tmp_path))
        assert result.exit_code == 3
        assert report.exists()
        report.unlink()
    # A run whose inputs include the previous run's report, written beside them: the report
    # is an input of the second run, so that run is refused (exit 2) and the report unchanged.
    cli("validate", "--format", "json", "-o", str(tmp_path / "report.json"), str(tmp_path))
    first = (tmp_path / "report.json").read_bytes()
    result = cli("validate", "--format", "json", "-o", str(tmp_path / "report.json"),
                 str(tmp_path), "--jobs", "2")
    assert result.exit_code == 2
    assert (tmp_path / "report.json").read_bytes() == first
    (tmp_path / "report.json").unlink()
    proc = run_script("validate", str(tmp_path), "--max-file-size", "100")
    assert proc.returncode == 3
    assert fingerprint(tmp_path) == before


def test_the_fingerprint_sees_a_rewrite(tmp_path):
    make_inputs(tmp_path)
    before = fingerprint(tmp_path)
    path = tmp_path / "ok.json"
    path.write_bytes(path.read_bytes())  # same bytes, new modification time
    assert fingerprint(tmp_path) != before
