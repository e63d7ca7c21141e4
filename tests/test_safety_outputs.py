"""One way to write an output, through the real CLI on real file-system
entries (symlinks, FIFOs, device nodes, read-only and full file systems, ``ulimit -f``)."""

from __future__ import annotations

import json
import os
import resource
import stat
from pathlib import Path

import pytest
from safety_cli import (
    SAMPLES,
    FifoReader,
    device_like,
    one_line_error,
    quizkit,
    small_filesystem,
    snapshot,
)

GAME = SAMPLES / "game.json"
INVALID = SAMPLES / "invalid"  # gives a JSON report of some 55 kB


def _report(text: str) -> dict:
    data = json.loads(text)
    assert data["summary"]["files"] >= 1
    return data


def test_a_symlink_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "report.json"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    done = quizkit("validate", GAME, "--format", "json", "-o", link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    _report(target.read_text())
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]


def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to("made.json")
    done = quizkit("validate", GAME, "--format", "json", "-o", link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    _report((tmp_path / "made.json").read_text())


def test_a_device_is_written_to_and_never_replaced(tmp_path: Path) -> None:
    device = device_like(tmp_path)
    before = device.stat()
    done = quizkit("validate", GAME, "--format", "json", "-o", device)
    assert done.returncode == 0, done.stderr
    after = device.lstat()
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert device.read_bytes() == b""  # still the null device: reads give nothing


def test_a_fifo_gets_the_report_streamed(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    done = quizkit("validate", INVALID, "--format", "json", "-o", fifo)
    data = reader.finish()
    assert done.returncode == 3, done.stderr  # samples/invalid holds unparsable files
    assert _report(data.decode())["summary"]["errors"] > 0
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_full_device_is_one_line_and_exit_2(tmp_path: Path) -> None:
    full = device_like(tmp_path, "/dev/full")
    line = one_line_error(quizkit("validate", INVALID, "--format", "json", "-o", full))
    assert line == f"quizkit: error: cannot write {full}: No space left on device"
    assert stat.S_ISCHR(full.lstat().st_mode)


def _copy_input(tmp_path: Path) -> Path:
    inputs = tmp_path / "in"
    inputs.mkdir()
    game = inputs / "game.json"
    game.write_bytes(GAME.read_bytes())
    return game


@pytest.mark.parametrize("how", ["-o", "--report", "--write-baseline", "link", "enums"])
def test_an_output_that_is_an_input_is_refused_before_any_work(tmp_path: Path,
                                                              how: str) -> None:
    game = _copy_input(tmp_path)
    before = snapshot(tmp_path)
    if how == "-o":
        args = ["validate", str(game.parent), "-o", str(game)]
    elif how == "--report":
        args = ["validate", str(game), "--report", f"sarif:{game}"]
    elif how == "--write-baseline":
        args = ["validate", str(game.parent), "--write-baseline", str(game)]
    elif how == "enums":
        args = ["enums", "infer", str(game), "-o", str(game)]
    else:
        link = tmp_path / "out.json"
        link.symlink_to(game)
        before = snapshot(tmp_path)
        args = ["validate", str(game), "-o", str(link)]
    line = one_line_error(quizkit(*args))
    assert "is also an input" in line and str(game) in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("args", [
    ["validate", str(GAME), "-o", "{missing}/r.txt"],
    ["validate", str(GAME), "--report", "sarif:{missing}/r.sarif"],
    ["validate", str(GAME), "--write-baseline", "{missing}/b.json"],
    ["enums", "infer", str(SAMPLES), "-o", "{missing}/p.toml"],
    ["load", str(GAME), "--db", "{missing}/a.duckdb"],
])
def test_a_missing_directory_is_one_line_before_the_run(tmp_path: Path,
                                                        args: list[str]) -> None:
    missing = tmp_path / "no" / "such"
    line = one_line_error(quizkit(*[a.format(missing=missing) for a in args]))
    assert f"cannot write {missing}/" in line and "does not exist" in line
    assert list(tmp_path.iterdir()) == []


def _limit_file_size(limit: int):
    def setup() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return setup


def test_file_size_limit_efbig_keeps_the_old_report(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("previous report")
    done = quizkit("validate", "--no-cache", INVALID, "--format", "json", "-o", target,
                   preexec=_limit_file_size(4096))  # (the cache's own warning aside)
    line = one_line_error(done)
    assert line == f"quizkit: error: cannot write {target}: File too large"
    assert target.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_baseline_over_the_file_size_limit(tmp_path: Path) -> None:
    target = tmp_path / "baseline.json"
    done = quizkit("validate", "--no-cache", INVALID, "--write-baseline", target,
                   preexec=_limit_file_size(1024))  # (the cache's own warning aside)
    assert "File too large" in one_line_error(done)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def tiny_fs(tmp_path: Path):
    """A 64 kB tmpfs holding an old report; skipped where mounting is not allowed."""
    mount = tmp_path / "fs"
    try:
        with small_filesystem(mount, "64k") as read_only:
            (mount / "report.json").write_text("previous report")
            yield mount, read_only
    except PermissionError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")


def test_disk_full_enospc_keeps_the_old_report(tiny_fs) -> None:
    mount, _ = tiny_fs
    (mount / "filler").write_bytes(b"x" * 40_000)
    done = quizkit("validate", INVALID, "--format", "json", "-o", mount / "report.json")
    line = one_line_error(done)
    assert line == f"quizkit: error: cannot write {mount / 'report.json'}: " \
                   "No space left on device"
    assert (mount / "report.json").read_text() == "previous report"
    assert sorted(p.name for p in mount.iterdir()) == ["filler", "report.json"]


def test_read_only_directory_is_refused_before_the_run(tiny_fs) -> None:
    mount, read_only = tiny_fs
    read_only()
    for args in (["validate", str(GAME), "-o", str(mount / "report.json")],
                 ["validate", str(GAME), "--write-baseline", str(mount / "new.json")],
                 ["load", str(GAME), "--db", str(mount / "a.duckdb")]):
        line = one_line_error(quizkit(*args))
        assert str(mount) in line and "not writable" in line
    assert [p.name for p in mount.iterdir()] == ["report.json"]
    assert (mount / "report.json").read_text() == "previous report"


def test_new_files_get_the_umask_and_old_files_keep_their_mode(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    kept.chmod(0o600)
    done = quizkit("validate", GAME, "--write-baseline", tmp_path / "baseline.json",
                   "--report", f"json:{kept}", "--report", f"sarif:{tmp_path / 'new.sarif'}")
    assert done.returncode == 0, done.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes == {"baseline.json": 0o644, "kept.json": 0o600, "new.sarif": 0o644}
    done = quizkit("enums", "infer", GAME, "-o", tmp_path / "profile.toml")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((tmp_path / "profile.toml").stat().st_mode) == 0o644


def test_schema_export_follows_a_link_inside_its_directory(tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    (out / "records").mkdir(parents=True)
    elsewhere = tmp_path / "real-enums.json"
    elsewhere.write_text("old")
    (out / "records" / "enums.json").symlink_to(elsewhere)
    done = quizkit("schema", "export", "--out", out)
    assert done.returncode == 0, done.stderr
    assert (out / "records" / "enums.json").is_symlink()
    assert json.loads(elsewhere.read_text())["$defs"]


@pytest.mark.parametrize(("out", "reason"), [
    ("new/charts", "is not a DuckDB database"),  # fails on the database: nothing made
    ("file/charts", "Not a directory"),  # fails before reading anything
])
def test_charts_make_their_directory_only_when_they_write(tmp_path: Path, out: str,
                                                          reason: str) -> None:
    (tmp_path / "notes.json").write_text('{"keep": true}')
    (tmp_path / "file").write_text("a file")
    before = snapshot(tmp_path)
    done = quizkit("summary", "charts", "--db", "notes.json", "--out", out, cwd=tmp_path)
    assert reason in one_line_error(done)
    assert snapshot(tmp_path) == before
