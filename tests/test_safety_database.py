"""``load --db`` opens only DuckDB databases; ``export`` writes only
quizkit's own tables, inside its ``--parquet`` directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import duckdb
import pytest
from safety_cli import SAMPLES, device_like, one_line_error, quizkit, snapshot

from quizkit.analysis.tables import TABLES

GAME = SAMPLES / "game.json"


def _parquet(path: Path) -> None:
    con = duckdb.connect()
    con.sql("SELECT 1 AS a, 'x' AS b").write_parquet(str(path))
    con.close()


@pytest.mark.parametrize(("content", "looks"), [
    (b'{"notes": ["keep me"]}\n', "JSON"),
    (b"\xef\xbb\xbf[1, 2, 3]", "JSON"),
    (b"id,name\n1,Ann\n2,Bob\n", "CSV"),
    (b"Shopping list\nmilk\n", "text"),
    (b"", "an empty file"),
    (None, "a Parquet file"),
])
def test_load_refuses_a_file_that_is_not_a_database(tmp_path: Path, content: bytes | None,
                                                     looks: str) -> None:
    db = tmp_path / "notes.db"
    if content is None:
        _parquet(db)
    else:
        db.write_bytes(content)
    before = snapshot(tmp_path)
    line = one_line_error(quizkit("load", GAME, "--db", db))
    assert line.startswith(f"quizkit: error: {db} is not a DuckDB database "
                           f"(it looks like {looks})"), line
    assert "left unchanged" in line
    assert snapshot(tmp_path) == before  # byte for byte, and no .wal beside it
    assert one_line_error(quizkit("summary", "overview", "--db", db)).startswith(
        f"quizkit: error: {db} is not a DuckDB database")


def test_load_refuses_a_fifo_and_a_device(tmp_path: Path) -> None:
    fifo = tmp_path / "db.fifo"
    os.mkfifo(fifo)
    line = one_line_error(quizkit("load", GAME, "--db", fifo, timeout=30))
    assert "not a regular file" in line
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    zero = device_like(tmp_path, "/dev/zero")
    assert "not a regular file" in one_line_error(quizkit("load", GAME, "--db", zero))
    assert stat.S_ISCHR(zero.lstat().st_mode)


def test_a_real_database_still_loads_and_reloads(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    for _ in range(2):
        done = quizkit("load", GAME, "--db", db, "--no-findings")
        assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM games").fetchall() == [(1,)]
    finally:
        con.close()


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    """A quizkit database to which someone added tables with hostile names."""
    db = tmp_path / "work" / "a.duckdb"
    db.parent.mkdir()
    done = quizkit("load", GAME, "--db", db, "--no-findings")
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(db))
    pwn = tmp_path / "pwn.csv"
    for name in ("../../x", f"x\"; COPY games TO '{pwn}'; --", "../../../../tmp/y",
                 "files/../z"):
        quoted = '"' + name.replace('"', '""') + '"'
        con.execute(f"CREATE TABLE {quoted} AS SELECT 42 AS a")
    con.close()
    return db


def test_export_writes_only_quizkit_tables_inside_its_directory(tmp_path: Path,
                                                              hostile_db: Path) -> None:
    out = tmp_path / "work" / "deep" / "out"
    before = snapshot(tmp_path)
    done = quizkit("export", "--db", hostile_db, "--parquet", out)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    warning = done.stderr.strip()
    assert warning.startswith("quizkit: warning: not exported, not quizkit's tables:")
    assert "'../../x'" in warning and "COPY games" in warning
    after = snapshot(tmp_path)
    new = {name for name in after if name not in before}
    expected = {f"work/deep/out/{t.name}.parquet" for t in TABLES}
    assert new == expected | {"work/deep", "work/deep/out"}
    assert all(after[name] == before[name] for name in before if name != "work/a.duckdb")
    con = duckdb.connect()
    try:
        rows = con.execute("SELECT count(*) FROM read_parquet($p)",
                           {"p": str(out / "games.parquet")}).fetchall()
    finally:
        con.close()
    assert rows == [(1,)]


def test_export_follows_a_link_and_keeps_it(tmp_path: Path, hostile_db: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    real = tmp_path / "elsewhere.parquet"
    real.write_text("old")
    (out / "games.parquet").symlink_to(real)
    done = quizkit("export", "--db", hostile_db, "--parquet", out, "-q")
    assert done.returncode == 0, done.stderr
    assert (out / "games.parquet").is_symlink()
    assert real.read_bytes()[:4] == b"PAR1"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_export_into_a_file_or_an_impossible_place_is_exit_2(tmp_path: Path,
                                                             hostile_db: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("keep")
    line = one_line_error(quizkit("export", "--db", hostile_db, "--parquet",
                                  blocker / "sub"))
    assert str(blocker / "sub") in line
    assert blocker.read_text() == "keep"
