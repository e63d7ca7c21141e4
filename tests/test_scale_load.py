"""Bounded-memory load and the Parquet dataset: batches give the tables one pass gives, the
dataset holds the tables `--db` holds, reloading replaces, names are literal.

Run through the real CLI, the real DuckDB and pyarrow, on real files.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pyarrow.dataset as pads
import pytest
from click.testing import CliRunner
from test_analysis_data import write_fixture_corpus
from test_analysis_load import expected_counts, snapshot

from quizkit.analysis import connect, load
from quizkit.analysis.tables import DATA_TABLES, TABLES
from quizkit.cli import main
from tests.conftest import SAMPLES, console_script, on_a_terminal, screen

TABLE_NAMES = [t.name for t in TABLES if t.name != "quizkit_meta"]


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "exports"
    write_fixture_corpus(root)
    # The same package in a second file, so that winners must be picked across batches.
    dup = root / "zz-dup"
    dup.mkdir()
    shutil.copy(root / "packages" / "pkg-002.json", dup / "pkg-002-again.json")
    return root


def dataset_rows(root: Path, table: str, exclude: str = "") -> list[tuple]:
    con = duckdb.connect()
    parts = sorted(str(p) for p in (root / table).glob("part-*.parquet"))
    rows = con.execute(f"SELECT * {exclude} FROM read_parquet($p)", {"p": parts}).fetchall()
    return sorted(rows, key=repr)


def db_rows(db: Path, table: str, exclude: str = "") -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return sorted(con.execute(f'SELECT * {exclude} FROM "{table}"').fetchall(), key=repr)
    finally:
        con.close()


def test_one_file_per_batch_gives_the_tables_of_one_batch(corpus: Path, tmp_path: Path) -> None:
    """Winners picked across batches are the winners of one pass over everything."""
    snaps = []
    for name, batch_bytes in (("one.duckdb", 1 << 40), ("many.duckdb", 1)):
        con = connect(tmp_path / name)
        load(con, [corpus], findings=False, batch_bytes=batch_bytes)
        con.close()
        snaps.append(snapshot(tmp_path / name))
    one, many = snaps
    for table in DATA_TABLES:
        key = (lambda r: r[:-1]) if table == "files" else (lambda r: r)  # loaded_at differs
        assert sorted(map(key, one[table]), key=repr) == sorted(map(key, many[table]), key=repr)
    counts = {t: len(one[t]) for t in expected_counts(corpus)}
    assert counts == expected_counts(corpus)


def test_parquet_dataset_holds_the_tables_of_db(corpus: Path, tmp_path: Path) -> None:
    db, ds = tmp_path / "d.duckdb", tmp_path / "ds"
    # the fixture holds error findings: load exits 1 for them, as validate does
    assert cli("load", str(corpus), "--db", str(db))[0] == 1
    code, out, err = cli("load", str(corpus), "--parquet", str(ds))
    assert code == 1, err
    assert f"into {ds}" in out
    for table in TABLE_NAMES:
        exclude = "EXCLUDE (loaded_at)" if table == "files" else ""
        assert dataset_rows(ds, table, exclude) == db_rows(db, table, exclude), table
    assert dataset_rows(ds, "findings")  # findings included (the fixture has some)


def test_the_dataset_has_the_columns_and_types_of_the_tables(corpus: Path,
                                                              tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    assert cli("load", str(corpus), "--parquet", str(ds), "--no-findings")[0] == 0
    con = duckdb.connect()
    for t in TABLES:
        parts = sorted(str(p) for p in (ds / t.name).glob("*.parquet"))
        assert parts, t.name  # every table has a folder with a part, even when empty
        described = con.execute("DESCRIBE SELECT * FROM read_parquet($p)", {"p": parts}).fetchall()
        assert [(r[0], r[1]) for r in described] == [(c.name, c.type) for c in t.columns]
        # pyarrow reads each folder as a dataset, with the same row count as DuckDB
        table = pads.dataset(str(ds / t.name), format="parquet").to_table()
        assert table.column_names == t.column_names
        (n,) = con.execute("SELECT count(*) FROM read_parquet($p)", {"p": parts}).fetchone()
        assert table.num_rows == n


def test_reloading_replaces_rows_and_new_files_add_parts(corpus: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    assert cli("load", str(corpus / "packages"), "--parquet", str(ds), "--no-findings")[0] == 0
    first = {t: dataset_rows(ds, t, "EXCLUDE (loaded_at)" if t == "files" else "")
             for t in TABLE_NAMES}
    parts_before = sorted((ds / "packages").glob("*.parquet"))
    # the same files again: same rows, no duplicates
    assert cli("load", str(corpus / "packages"), "--parquet", str(ds), "--no-findings")[0] == 0
    again = {t: dataset_rows(ds, t, "EXCLUDE (loaded_at)" if t == "files" else "")
             for t in TABLE_NAMES}
    assert again == first
    # other files: a new part, the earlier rows kept
    assert cli("load", str(corpus / "games.jsonl"), "--parquet", str(ds), "--no-findings")[0] == 0
    assert len(list((ds / "games").glob("part-*.parquet"))) >= 1
    assert dataset_rows(ds, "packages") == first["packages"]
    assert len(dataset_rows(ds, "files", "EXCLUDE (loaded_at)")) == len(first["files"]) + 1
    assert parts_before  # the first load wrote parts
    # the whole corpus into a fresh --db gives what the dataset now holds for both
    db = tmp_path / "both.duckdb"
    assert cli("load", str(corpus / "packages"), str(corpus / "games.jsonl"), "--db", str(db),
               "--no-findings")[0] == 0
    for table in ("packages", "versions", "steps", "games", "game_history"):
        assert dataset_rows(ds, table) == db_rows(db, table), table


def test_summary_and_query_read_the_dataset_as_they_read_db(corpus: Path,
                                                            tmp_path: Path) -> None:
    db, ds = tmp_path / "d.duckdb", tmp_path / "ds"
    cli("load", str(corpus), "--db", str(db))
    cli("load", str(corpus), "--parquet", str(ds))
    for args in (["summary", "sizes", "--format", "csv"], ["summary", "starts"],
                 ["query", "SELECT rule, count(*) FROM findings GROUP BY ALL ORDER BY ALL"],
                 ["query", "SELECT count(*), sum(size_total) FROM packages"]):
        from_db = cli(*args, "--db", str(db))
        from_ds = cli(*args, "--parquet", str(ds))
        assert from_ds[0] == from_db[0] == 0, from_ds[2]
        assert from_ds[1] == from_db[1]
    overview = cli("summary", "overview", "--parquet", str(ds))[1]
    assert "steps" in overview


def test_query_on_a_dataset_reads_nothing_else(corpus: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    cli("load", str(corpus), "--parquet", str(ds), "--no-findings")
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    code, _, err = cli("query", f"SELECT * FROM read_csv('{secret}')", "--parquet", str(ds))
    assert code == 2
    assert "Traceback" not in err


def test_not_a_dataset_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for target in (tmp_path / "empty", tmp_path / "missing"):
        code, _, err = cli("summary", "overview", "--parquet", str(target))
        assert code == 2
        assert str(target) in err


def test_load_needs_one_target_and_a_sane_memory_limit(corpus: Path, tmp_path: Path) -> None:
    assert cli("load", str(corpus))[0] == 2
    assert cli("load", str(corpus), "--db", str(tmp_path / "a"), "--parquet",
               str(tmp_path / "b"))[0] == 2
    code, _, err = cli("load", str(corpus), "--db", str(tmp_path / "c.duckdb"),
                       "--memory-limit", "lots")
    assert code == 2 and "memory-limit" in err
    assert not (tmp_path / "c.duckdb").exists()
    code, _, err = cli("load", str(corpus), "--db", str(tmp_path / "d.duckdb"),
                       "--memory-limit", "256MB", "--threads", "1", "--no-findings")
    assert code == 0, err


@pytest.mark.parametrize("target", ["--db", "--parquet"])
def test_names_are_literal(tmp_path: Path, target: str) -> None:
    """A name holding glob, brace or list characters is one file, loaded once."""
    src = tmp_path / "src"
    write_fixture_corpus(src)
    game = (src / "games.jsonl").read_bytes().splitlines()[0] + b"\n"
    root = tmp_path / "in [x] {a,b}"
    root.mkdir()
    names = ["g*.jsonl", "g?.jsonl", "g[ab].jsonl", "ga.jsonl", "g{a,b}.jsonl", "g,1.jsonl",
             "g'q\".jsonl", "g space.jsonl", "g\nline.jsonl", "gé✓.jsonl"]
    for n in names:
        (root / n).write_bytes(game)
    out = tmp_path / ("o.duckdb" if target == "--db" else "o")
    code, _, err = cli("load", str(root), target, str(out), "--no-findings")
    assert code == 0, err
    if target == "--parquet":
        table = pads.dataset(str(out / "files"), format="parquet").to_table()
        files = list(zip(table["file"].to_pylist(), table["documents"].to_pylist(),
                         strict=True))
    else:
        files = db_rows(out, "files", "EXCLUDE (format, compressed, bytes, kind, "
                                      "unknown_documents, loaded_at)")
    assert sorted(files) == sorted((str(root / n), 1) for n in names)


def test_load_progress_on_a_terminal_forced_or_off(tmp_path: Path) -> None:
    """On a terminal --progress draws the line from the start (no waiting for the
    automatic one-second delay, so the test does not depend on the machine's speed) and
    erases it before each step's time (--timings) and the summary; -q and --no-progress
    draw nothing; the summary line is printed unless -q."""
    corpus = tmp_path / "corpus"
    cli("samples", "generate", "--packages", "20", "--seed", "3", "--out", str(corpus))
    outputs = {}
    for label, extra in (("forced", ["--progress", "--timings"]), ("quiet", ["-q"]),
                         ("off", ["--no-progress"])):
        code, outputs[label] = on_a_terminal(
            "load", str(corpus), "--db", str(tmp_path / f"{label}.duckdb"), *extra)
        assert code == 0, outputs[label]
    assert re.search(rb"\d+(/\d+)? files.*\d+\.\d MB/s", outputs["forced"]), outputs["forced"]
    shown = [line for line in screen(outputs["forced"]) if line]
    assert not any("MB/s" in line for line in shown) and shown[-1].startswith("Loaded"), shown
    # each step's time (--timings) on a line of its own, the progress line erased first
    assert any(re.fullmatch(r"  read +\d+\.\d{3} s", line) for line in shown), shown
    assert b"Loaded" in outputs["forced"] and b"Loaded" in outputs["off"]
    assert b"MB/s" not in outputs["quiet"] + outputs["off"]
    assert b"Loaded" not in outputs["quiet"]


@pytest.mark.parametrize("command", ["load", "validate"])
def test_progress_on_a_pipe_only_when_forced(tmp_path: Path, command: str) -> None:
    """Not a terminal: no line by default; --progress writes plain lines on stderr all the
    same (a CI log: no escape codes), and stdout stays clean."""
    corpus = tmp_path / "corpus"
    cli("samples", "generate", "--packages", "5", "--seed", "4", "--out", str(corpus))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("CI", None)
    errs = {}
    for label, extra in (("auto", []), ("forced", ["--progress"])):
        target = ["--db", str(tmp_path / f"{label}.duckdb")] if command == "load" else []
        done = subprocess.run([sys.executable, "-m", "quizkit", command, str(corpus), *target,
                               *extra], capture_output=True, env=env, timeout=300, check=False)
        assert done.returncode in (0, 1), done.stderr
        assert b"MB/s" not in done.stdout and b"\x1b[K" not in done.stdout
        errs[label] = done.stderr
    assert b"MB/s" not in errs["auto"]
    assert b"MB/s" in errs["forced"] and b"\x1b" not in errs["forced"]
    assert b"\r" not in errs["forced"]  # whole lines, as a log holds them


def test_automatic_progress_is_for_a_terminal_outside_ci() -> None:
    """The automatic rule on a real pseudo-terminal against a pipe (the one-second delay
    itself is tested with a fake clock in test_report_progress)."""
    from quizkit.outputs.progress import ProgressLine

    main_fd, side_fd = os.openpty()
    read_fd, write_fd = os.pipe()
    try:
        with os.fdopen(os.dup(side_fd), "w") as tty, os.fdopen(os.dup(write_fd), "w") as pipe:
            assert ProgressLine.for_run(stream=tty, env={}).show
            assert ProgressLine.for_run(stream=tty, env={}).delay == 1.0
            assert not ProgressLine.for_run(stream=tty, env={"CI": "true"}).show
            assert not ProgressLine.for_run(stream=tty, env={}, quiet=True).show
            assert not ProgressLine.for_run(stream=tty, env={}, force=False).show
            assert not ProgressLine.for_run(stream=pipe, env={}).show
            forced = ProgressLine.for_run(stream=pipe, env={"CI": "true"}, force=True)
            assert forced.show and forced.delay == 0.0
    finally:
        for fd in (main_fd, side_fd, read_fd, write_fd):
            os.close(fd)


def test_a_json_lines_file_of_big_lines_loads_within_a_small_memory_limit(
        tmp_path: Path) -> None:
    """Ten lines of 6 MB (63 MB) under a 320 MB memory limit, as a real process: the
    documents are typed a slice of text at a time, fewer at once the bigger they are (typed
    16 MiB at a time, with a copy of each line in a list beside it, they needed more than
    350 MB). On one thread: which slices two threads type side by side, and so the peak,
    depends on their timing."""
    package = orjson.loads((SAMPLES / "package-full.json").read_bytes())
    versions = package["versions"] * 45
    path = tmp_path / "in" / "big.jsonl"
    path.parent.mkdir()
    with open(path, "wb") as fh:
        for n in range(10):
            fh.write(orjson.dumps({**package, "id": f"pkg-{n}", "versions": versions}) + b"\n")
    assert path.stat().st_size > 60 << 20
    db = tmp_path / "big.duckdb"
    done = subprocess.run([console_script(), "load", "--no-findings", str(path), "--db", str(db),
                           "--memory-limit", "320MB", "--threads", "1"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*), min(record), max(record) FROM packages"
                           ).fetchall() == [(10, 1, 10)]
    finally:
        con.close()


def test_a_big_json_lines_file_loads_within_a_small_memory_limit(tmp_path: Path) -> None:
    """A 34 MB JSON Lines file under a 300 MB memory limit (DuckDB's reader once kept a
    buffer of the file's size per thread, and typed all its documents at once: 300 MB was
    too little), as a real process; its tables hold what the same documents give as
    separate files, each document at its own line."""
    counts = {}
    for shape in ("lines", "compact"):
        corpus = tmp_path / shape
        subprocess.run([console_script(), "samples", "generate", "--packages", "300",
                        "--seed", "1", "--shape", shape, "--out", str(corpus)], check=True,
                       capture_output=True, timeout=300)
        db = tmp_path / f"{shape}.duckdb"
        done = subprocess.run([console_script(), "load", "--no-findings", str(corpus),
                               "--db", str(db), "--memory-limit", "300MB", "--threads", "2"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        counts[shape] = {t: len(db_rows(db, t)) for t in DATA_TABLES if t != "files"}
    assert counts["lines"] == counts["compact"]
    assert counts["lines"]["packages"] == 300
    (jsonl,) = (tmp_path / "lines").rglob("*.jsonl")
    with open(jsonl, "rb") as fh:
        lines = sum(1 for _ in fh)
    con = duckdb.connect(str(tmp_path / "lines.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT documents FROM files").fetchall() == [(lines,)]
        assert con.execute("SELECT count(DISTINCT record), min(record) >= 1, "
                           "max(record) <= ? FROM packages", [lines]).fetchall() \
            == [(300, True, True)]
    finally:
        con.close()
