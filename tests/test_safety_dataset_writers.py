"""A Parquet dataset has one writer at a time (``flock`` on ``DIR/.quizkit-lock``: a second
``load --parquet DIR`` meanwhile is exit 2 at once), and the last step of a load puts every
table's new parts in place, or none."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from safety_cli import SAMPLES, one_line_error, quizkit, small_filesystem, snapshot

LOADS = 4


def _rows(dataset: Path, table: str) -> int:
    parts = sorted(str(p) for p in (dataset / table).glob("part-*.parquet"))
    with duckdb.connect() as con:
        return con.execute("SELECT count(*) FROM read_parquet($p)", {"p": parts}).fetchone()[0]


def _data(dataset: Path) -> dict:
    """What a reader of the dataset sees (the lock file and hidden work aside)."""
    return {k: v for k, v in snapshot(dataset).items() if not k.startswith(".")}


def test_concurrent_loads_never_leave_rows_twice(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    exports = tmp_path / "exports"
    shutil.copytree(SAMPLES, exports, ignore=shutil.ignore_patterns("invalid"))
    once = tmp_path / "once"
    done = quizkit("load", exports, "--parquet", once, "--no-findings")
    assert done.returncode == 0, done.stderr
    procs = [subprocess.Popen([sys.executable, "-m", "quizkit", "load", str(exports),
                               "--parquet", str(dataset), "--no-findings"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(LOADS)]
    ended = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert all(code in (0, 2) for code, _ in ended), ended
    assert any(code == 0 for code, _ in ended), ended
    for code, err in ended:
        if code == 2:
            assert "being written by another quizkit load" in err, err
    for table in ("packages", "versions", "games", "files", "banners"):
        assert _rows(dataset, table) == _rows(once, table), table


def test_a_second_writer_exits_2_and_changes_nothing(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    done = quizkit("load", SAMPLES / "game.json", "--parquet", dataset, "--no-findings")
    assert done.returncode == 0, done.stderr
    before = _data(dataset)
    with open(dataset / ".quizkit-lock", "a") as held:  # as a load in progress holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        line = one_line_error(quizkit("load", SAMPLES / "package-full.json", "--parquet",
                                      dataset, "--no-findings"))
    assert f"dataset {dataset} is being written by another quizkit load" in line, line
    assert str(dataset / ".quizkit-lock") in line
    assert _data(dataset) == before
    done = quizkit("load", SAMPLES / "package-full.json", "--parquet", dataset, "--no-findings")
    assert done.returncode == 0, done.stderr  # the lock went with its holder


def test_a_failing_rename_puts_every_table_back(tmp_path: Path) -> None:
    """One table folder on another file system: its new part cannot be renamed into place
    (EXDEV) after other tables' parts were; every table is put back as it was."""
    dataset = tmp_path / "ds"
    done = quizkit("load", SAMPLES / "package-full.json", "--parquet", dataset,
                   "--no-findings")
    assert done.returncode == 0, done.stderr
    held = tmp_path / "versions-parts"
    shutil.copytree(dataset / "versions", held)
    try:
        with small_filesystem(dataset / "versions", "4m"):
            for part in held.iterdir():
                shutil.copyfile(part, dataset / "versions" / part.name)
            before = _data(dataset)
            done = quizkit("load", SAMPLES / "package-full.json", SAMPLES / "game.json",
                           "--parquet", dataset, "--no-findings")
            line = one_line_error(done)
            assert "Invalid cross-device link" in line, line
            assert "unchanged" in line, line
            assert _data(dataset) == before
            assert not [p for p in os.listdir(dataset) if p.startswith(".quizkit-")
                        and p != ".quizkit-lock"]
    except PermissionError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
