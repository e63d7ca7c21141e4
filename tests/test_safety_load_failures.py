"""A failed load says whether the database or dataset changed, as found by looking at it
afterwards (never assumed), and a full disk (ENOSPC) or a file-size limit (EFBIG) is exit 2
in ``load`` as in every command."""

from __future__ import annotations

import resource
from pathlib import Path

import duckdb
import pytest
from safety_cli import SAMPLES, one_line_error, quizkit, small_filesystem

#: Valid exports only: no warning line beside the error.
EXPORTS = [SAMPLES / "package-full.json", SAMPLES / "games.jsonl", SAMPLES / "banners.jsonl"]


def _rows(db: Path) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                for t in ("files", "packages", "games", "banners")}


def _fill(mount: Path) -> Path:
    """A file that takes every byte left on the file system at ``mount``."""
    filler = mount / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


@pytest.fixture
def tiny_fs(tmp_path: Path):
    mount = tmp_path / "fs"
    try:
        with small_filesystem(mount, "3m"):
            yield mount
    except PermissionError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")


@pytest.mark.parametrize("free", [20_000, 150_000, 400_000, 700_000, 1_000_000])
def test_a_full_disk_is_exit_2_and_the_message_tells_what_happened(tiny_fs: Path,
                                                                    free: int) -> None:
    db = tiny_fs / "a.duckdb"
    done = quizkit("load", SAMPLES / "game.json", "--db", db, "--no-findings")
    assert done.returncode == 0, done.stderr
    before = _rows(db)
    filler = _fill(tiny_fs)
    with open(filler, "r+b") as fh:  # give back ``free`` bytes
        fh.truncate(max(0, filler.stat().st_size - free))
    done = quizkit("load", *EXPORTS, "--db", db, "--no-findings")
    filler.unlink()
    if done.returncode == 0:  # it fitted
        return
    line = one_line_error(done, 2)
    assert "No space left on device" in line, line
    after = _rows(db)
    if "the database is unchanged (checked" in line:
        assert after == before
    else:
        assert "the database changed, the load was committed" in line, line
        assert after != before


def test_a_file_size_limit_is_exit_2_and_a_new_database_goes(tmp_path: Path) -> None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))
    db = tmp_path / "a.duckdb"
    line = one_line_error(quizkit("load", *EXPORTS, "--db", db, "--no-findings",
                                  preexec=limit), 2)
    assert "File too large" in line, line
    assert "the new database file was removed again" in line, line
    assert not db.exists()


def test_a_full_disk_under_a_dataset_is_exit_2_and_says_it_is_unchanged(
        tiny_fs: Path) -> None:
    dataset = tiny_fs / "ds"
    done = quizkit("load", SAMPLES / "game.json", "--parquet", dataset, "--no-findings")
    assert done.returncode == 0, done.stderr
    parts = sorted(p.relative_to(dataset) for p in dataset.rglob("part-*.parquet"))
    _fill(tiny_fs)
    line = one_line_error(quizkit("load", *EXPORTS, "--parquet", dataset, "--no-findings"), 2)
    assert "No space left on device" in line, line
    assert "the dataset is unchanged (checked" in line, line
    assert sorted(p.relative_to(dataset) for p in dataset.rglob("part-*.parquet")) == parts


@pytest.mark.parametrize("command", ["export", "summary"])
def test_a_full_disk_is_exit_2_for_the_other_writers_of_a_database(tiny_fs: Path,
                                                                   tmp_path: Path,
                                                                   command: str) -> None:
    db = tmp_path / "a.duckdb"
    done = quizkit("load", *EXPORTS, "--db", db, "--no-findings")
    assert done.returncode == 0, done.stderr
    _fill(tiny_fs)
    args = (["export", "--db", db, "--parquet", tiny_fs / "out"] if command == "export" else
            ["summary", "all", "--db", db, "--format", "html", "-o", tiny_fs / "page.html"])
    line = one_line_error(quizkit(*args), 2)
    assert "No space left on device" in line, line
    out = tiny_fs / "out"  # the export's directory may stay, empty; no file is left half
    assert sorted(p.name for p in tiny_fs.iterdir()) in (["filler"], ["filler", "out"])
    assert not out.exists() or not any(out.iterdir())
