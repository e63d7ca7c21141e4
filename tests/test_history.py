"""The run history through the CLI: ``validate --history`` appends each run, in a real DuckDB
file, a local folder of Parquet files, or a folder on the S3 server of the cluster tests;
concurrent runs all land; what is not a history is refused and left byte for byte; the
history is never an input or output of a run; ``quizkit history`` shows it in every format."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from test_cluster import s3_env  # noqa: F401  (the session's S3 server)

from tests.conftest import SAMPLES, requires

INVALID = SAMPLES / "invalid"
CLEAN = ("banner.json", "game.json", "banners.jsonl")
BROKEN = ("package-negative-audio-size.json", "package-round-without-type.json")


def quizkit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "CI": "true", **(env or {})}
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True, env=full, timeout=300)


def popen(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    full = {**os.environ, "CI": "true", **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "quizkit", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=full)


@pytest.fixture
def exports(tmp_path: Path) -> dict[str, Path]:
    """A clean export folder and one with findings."""
    clean, broken = tmp_path / "clean", tmp_path / "broken"
    clean.mkdir()
    broken.mkdir()
    for name in CLEAN:
        (clean / name).write_bytes((SAMPLES / name).read_bytes())
    for name in BROKEN:
        (broken / name).write_bytes((INVALID / name).read_bytes())
    return {"clean": clean, "broken": broken}


def report_counts(path: Path) -> Counter:
    return Counter(f["code"] for f in json.loads(path.read_text())["findings"])


def history_rows(location: Path) -> tuple[list[tuple], list[tuple]]:
    """(runs oldest first, metrics) read by DuckDB itself, from the file or the folder."""
    con = duckdb.connect()
    if location.is_dir():
        runs = f"read_parquet('{location}/runs/*.parquet')"
        metrics = f"read_parquet('{location}/metrics/*.parquet')"
    else:
        con.execute(f"ATTACH '{location}' AS h (READ_ONLY)")
        runs, metrics = "h.runs", "h.metrics"
    return (con.execute(f"SELECT * FROM {runs} ORDER BY started_at").fetchall(),
            con.execute(f"SELECT * FROM {metrics} ORDER BY run_id, name").fetchall())


def digest(path: Path) -> dict[str, str]:
    """Every file under ``path`` (or the file) by its bytes."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.mark.parametrize("name", ["history.duckdb", "history"])
def test_two_runs_append_two_runs(exports: dict[str, Path], tmp_path: Path, name: str) -> None:
    location = tmp_path / name
    codes = []
    for which in ("clean", "broken"):
        out = tmp_path / f"{which}.json"
        proc = quizkit("validate", str(exports[which]), "--history", str(location),
                       "--format", "json", "-o", str(out))
        codes.append(proc.returncode)
    assert codes == [0, 1]
    runs, metrics = history_rows(location)
    assert [(r[1], r[4], r[5], r[6]) for r in runs] == [
        (str(exports["clean"]), 0, 3, 6), (str(exports["broken"]), 1, 2, 2)]
    assert len({r[0] for r in runs}) == 2
    for (run_id, *_), which in zip(runs, ("clean", "broken"), strict=True):
        found = {n: v for rid, n, v in metrics if rid == run_id}
        counts = report_counts(tmp_path / f"{which}.json")
        assert {n[len("findings."):]: v for n, v in found.items() if v} == counts
        assert len(found) >= 60  # every rule of the catalog, 0 when it found nothing
    if location.is_dir():
        assert sorted(p.name for p in location.iterdir()) == ["metrics", "runs"]


@pytest.mark.parametrize("name", ["history.duckdb", "history"])
def test_concurrent_runs_all_land(exports: dict[str, Path], tmp_path: Path, name: str) -> None:
    location = tmp_path / name
    procs = [popen("validate", str(exports["broken"]), "--history", str(location),
                   "--dataset", f"run-{i}", "-q", "-j", "1") for i in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 1, err
    runs, metrics = history_rows(location)
    assert sorted(r[1] for r in runs) == [f"run-{i}" for i in range(4)]
    assert Counter(rid for rid, _, _ in metrics) == Counter(
        {r[0]: len(metrics) // 4 for r in runs})


def test_a_locked_history_file_is_waited_for(exports: dict[str, Path], tmp_path: Path) -> None:
    """Another process holds the DuckDB file (as a run appending to it does): the run waits
    and lands once the file is free."""
    location = tmp_path / "history.duckdb"
    assert quizkit("validate", str(exports["clean"]), "--history", str(location)).returncode == 0
    holder = duckdb.connect(str(location))
    proc = popen("validate", str(exports["broken"]), "--history", str(location))
    try:
        time.sleep(3)  # the run has started and met the lock (not a limit: any delay does)
        assert proc.poll() is None, proc.stderr.read()  # still waiting for the file
    finally:
        holder.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    runs, _ = history_rows(location)
    assert [r[4] for r in runs] == [0, 1]


def _foreign_database(path: Path, sql: str) -> None:
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()


NOT_HISTORIES = {
    "text file": lambda p: (p / "h.db").write_text("not a database\n"),
    "json file": lambda p: (p / "h.db").write_text('{"runs": []}\n'),
    "database with other tables": lambda p: _foreign_database(
        p / "h.db", "CREATE TABLE customers (id INTEGER); INSERT INTO customers VALUES (1)"),
    "database with a view for runs": lambda p: _foreign_database(
        p / "h.db", "CREATE TABLE metrics (run_id VARCHAR, name VARCHAR, value DOUBLE); "
                    "CREATE VIEW runs AS SELECT * FROM read_text('/etc/passwd')"),
    "history with a macro": lambda p: _foreign_database(
        p / "h.db", "CREATE TABLE runs (run_id VARCHAR, dataset VARCHAR, started_at TIMESTAMP, "
                    "quizkit_version VARCHAR, exit_code INTEGER, files BIGINT, documents BIGINT);"
                    "CREATE TABLE metrics (run_id VARCHAR, name VARCHAR, value DOUBLE);"
                    "CREATE MACRO list_contains(a, b) AS true"),
    "database with other columns": lambda p: _foreign_database(
        p / "h.db", "CREATE TABLE runs (run_id VARCHAR); CREATE TABLE metrics (x INTEGER)"),
    "folder of other files": lambda p: ((p / "h.db").mkdir(),
                                        (p / "h.db" / "notes.txt").write_text("mine\n")),
    "folder with other parquet": lambda p: ((p / "h.db" / "runs").mkdir(parents=True),
                                            duckdb.sql("SELECT 1 AS x").write_parquet(
                                                str(p / "h.db" / "runs" / "a.parquet"))),
}


@pytest.mark.parametrize("kind", sorted(NOT_HISTORIES))
def test_what_is_not_a_history_is_refused_and_left_unchanged(
        exports: dict[str, Path], tmp_path: Path, kind: str) -> None:
    NOT_HISTORIES[kind](tmp_path)
    location = tmp_path / "h.db"
    before = digest(location)
    report = tmp_path / "report.json"
    for args in (["validate", str(exports["broken"]), "--history", str(location),
                  "--format", "json", "-o", str(report)],
                 ["history", "--history", str(location)]):
        proc = quizkit(*args)
        assert proc.returncode == 2, (kind, proc.stderr)
        assert proc.stderr.startswith("quizkit: error: ") and proc.stderr.count("\n") == 1, \
            proc.stderr
        assert "h.db" in proc.stderr and "Traceback" not in proc.stderr
    assert digest(location) == before
    assert not report.exists()  # refused before the run


def test_the_history_is_never_an_input_or_an_output(exports: dict[str, Path],
                                                    tmp_path: Path) -> None:
    location = tmp_path / "history.duckdb"
    assert quizkit("validate", str(exports["clean"]), "--history", str(location)).returncode == 0
    before = digest(location)
    for args in (["validate", str(location), "--history", str(location)],
                 ["validate", str(exports["clean"]), "--history", str(location),
                  "--format", "json", "-o", str(location)],
                 ["validate", str(exports["clean"]), "--history", str(location),
                  "--write-baseline", str(location)],
                 ["history", "--history", str(location), "-o", str(location)]):
        proc = quizkit(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert digest(location) == before


@pytest.mark.parametrize("name", ["history.duckdb", "history"])
def test_an_interrupted_run_records_nothing(exports: dict[str, Path], tmp_path: Path,
                                            name: str) -> None:
    location = tmp_path / name
    assert quizkit("validate", str(exports["clean"]), "--history", str(location)).returncode == 0
    before = digest(location)
    marker = tmp_path / "paused"
    proc = popen("validate", str(exports["broken"]), "--history", str(location),
                 env={"QUIZKIT_PAUSE_AT": f"history:{marker}"})
    try:
        while not marker.exists() and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert digest(location) == before


def test_a_parquet_history_on_s3(exports: dict[str, Path], s3_env: dict[str, str],  # noqa: F811
                                 tmp_path: Path) -> None:
    fs = requires("s3fs").S3FileSystem(key=s3_env["AWS_ACCESS_KEY_ID"],
                                       secret=s3_env["AWS_SECRET_ACCESS_KEY"],
                                       client_kwargs={"endpoint_url": s3_env["AWS_ENDPOINT_URL"]})
    fs.makedirs("histories", exist_ok=True)
    url = "s3://histories/nightly/"
    codes = [quizkit("validate", str(exports[w]), "--history", url, "--dataset", "nightly",
                     env=s3_env).returncode for w in ("clean", "broken", "broken")]
    assert codes == [0, 1, 1]
    listed = sorted(p.split("nightly/", 1)[1].split("/")[0] for p in fs.find(url))
    assert listed == ["metrics"] * 3 + ["runs"] * 3
    proc = quizkit("history", "--history", url, "--dataset", "nightly", "--format", "json",
                   env=s3_env)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert [r["exit_code"] for r in shown["runs"]] == [0, 1, 1]
    assert [m["value"] for m in shown["metrics"] if m["metric"] == "findings.S006"] == \
        [0, 1, 1]
    # a prefix holding something else is refused and left as it was
    fs.pipe_file("histories/other/notes.txt", b"mine\n")
    proc = quizkit("validate", str(exports["clean"]), "--history", "s3://histories/other",
                   env=s3_env)
    assert proc.returncode == 2 and "not a quizkit history" in proc.stderr, proc.stderr
    assert fs.find("s3://histories/other") == ["histories/other/notes.txt"]


def _two_runs(exports: dict[str, Path], location: Path) -> None:
    for which in ("clean", "broken"):
        quizkit("validate", str(exports[which]), "--history", str(location), "--dataset", "d")


def test_history_in_every_format(exports: dict[str, Path], tmp_path: Path) -> None:
    location = tmp_path / "history.duckdb"
    _two_runs(exports, location)
    broken = quizkit("validate", str(exports["broken"]), "--format", "json")
    counts = Counter(f["code"] for f in json.loads(broken.stdout)["findings"])
    out = {}
    for fmt in ("text", "json", "csv", "markdown", "html"):
        proc = quizkit("history", "--history", str(location), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        out[fmt] = proc.stdout
        written = tmp_path / f"history.{fmt}"
        assert quizkit("history", "--history", str(location), "--format", fmt,
                       "-o", str(written)).returncode == 0
        assert written.read_text() == proc.stdout
    data = json.loads(out["json"])
    assert [(r["run"], r["exit_code"], r["dataset"]) for r in data["runs"]] == [
        (1, 0, "d"), (2, 1, "d")]
    values = {(m["metric"], m["run"]): m["value"] for m in data["metrics"]}
    for code, n in counts.items():
        assert values[(f"findings.{code}", 1)] == 0 and values[(f"findings.{code}", 2)] == n
    csv_rows = out["csv"].split("# metrics\n", 1)[1].splitlines()
    assert csv_rows[0] == "metric,run,run_id,value" and len(csv_rows) - 1 == len(values)
    for code, n in counts.items():  # the people's formats: a row per metric that moved
        assert f"findings.{code}  " in out["text"] and f"| findings.{code} | 0 | {n} |" in \
            out["markdown"]
    assert "findings.B003" not in out["text"]  # 0 in every run
    assert "0 in every run, not shown" in out["text"]
    assert out["html"].count('<figure class="chart"') == len(counts)
    only_last = json.loads(quizkit("history", "--history", str(location), "--format", "json",
                                   "--last", "1").stdout)
    assert [r["exit_code"] for r in only_last["runs"]] == [1]
    none = quizkit("history", "--history", str(location), "--dataset", "other")
    assert none.returncode == 0 and "no runs recorded yet" in none.stdout


def test_dataset_defaults_to_the_inputs_common_path(exports: dict[str, Path],
                                                    tmp_path: Path) -> None:
    location = tmp_path / "history"
    files = [str(exports["clean"] / n) for n in CLEAN]
    assert quizkit("validate", *files, "--history", str(location)).returncode == 0
    runs, _ = history_rows(location)
    assert [r[1] for r in runs] == [str(exports["clean"])]
    proc = quizkit("validate", *files, "--dataset", "x")
    assert proc.returncode == 2 and "--history" in proc.stderr


@pytest.mark.parametrize("name", ["history.duckdb", "history"])
def test_series_gives_a_metric_newest_first(exports: dict[str, Path], tmp_path: Path,
                                            name: str) -> None:
    """What a check across runs reads: the values of the dataset's last runs, newest first,
    [] for another dataset or no history yet."""
    location = tmp_path / name
    missing = tmp_path / f"none-{name}"
    for which in ("broken", "clean", "broken"):
        quizkit("validate", str(exports[which]), "--history", str(location), "--dataset", "d")
    code = ("import sys, json\nfrom quizkit.history import series\n"
            "loc, none = sys.argv[1:]\n"
            "print(json.dumps([series(loc, 'd', 'findings.S006', 2),\n"
            "                  series(loc, 'd', 'findings.S006', 9),\n"
            "                  series(loc, 'other', 'findings.S006', 9),\n"
            "                  series(loc, 'd', 'no.such.metric', 9),\n"
            "                  series(none, 'd', 'findings.S006', 9)]))")
    done = subprocess.run([sys.executable, "-c", code, str(location), str(missing)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[1, 0], [1, 0, 1], [], [], []]
    assert not missing.exists()
    proc = quizkit("history", "--history", str(missing))
    assert proc.returncode == 2 and "no such file or directory" in proc.stderr


@pytest.mark.parametrize("name", ["no-such-dir/history.duckdb", "a-file/history"])
def test_a_history_that_cannot_be_made_is_refused_before_the_run(
        exports: dict[str, Path], tmp_path: Path, name: str) -> None:
    (tmp_path / "a-file").write_text("mine\n")
    report = tmp_path / "report.json"
    proc = quizkit("validate", str(exports["clean"]), "--history", str(tmp_path / name),
                   "--format", "json", "-o", str(report))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert not report.exists()
    assert (tmp_path / "a-file").read_text() == "mine\n"
