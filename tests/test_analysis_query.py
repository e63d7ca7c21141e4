"""`quizkit query` (read-only SQL) and `quizkit export --parquet`."""

from __future__ import annotations

import csv
import hashlib
import io
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import pytest
from click.testing import CliRunner
from test_analysis_data import read_documents, write_fixture_corpus

from quizkit.cli import main


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("query")
    root = base / "exports"
    write_fixture_corpus(root)
    db = base / "q.duckdb"
    result = CliRunner().invoke(main, ["load", str(root), "--db", str(db), "--no-findings"])
    assert result.exit_code == 0, result.output
    return root, db


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_select_in_every_format(loaded: tuple[Path, Path]) -> None:
    root, db = loaded
    sql = "SELECT type, count(*) AS n FROM packages GROUP BY type ORDER BY type"
    want = {}
    for _, kind, d in read_documents(root):
        if kind == "package-full":
            want[d["type"]] = want.get(d["type"], 0) + 1
    as_json = orjson.loads(invoke("query", sql, "--db", str(db), "--format", "json").stdout)
    assert {r["type"]: r["n"] for r in as_json} == want
    as_csv = list(csv.DictReader(io.StringIO(
        invoke("query", sql, "--db", str(db), "--format", "csv").stdout)))
    assert {r["type"]: int(r["n"]) for r in as_csv} == want
    md = invoke("query", sql, "--db", str(db), "--format", "markdown").stdout.splitlines()
    assert md[0] == "| type | n |" and md[1] == "|---|---:|" and len(md) == 2 + len(want)
    table = invoke("query", sql, "--db", str(db)).stdout.splitlines()
    assert table[0].split() == ["type", "n"] and len(table) == 2 + len(want)


def test_query_straight_on_files_including_findings(loaded: tuple[Path, Path]) -> None:
    import quizkit

    root, _ = loaded
    out = invoke("query", "SELECT count(*) AS n FROM findings", str(root), "--format", "json")
    assert out.exit_code == 0, out.output
    assert orjson.loads(out.stdout) == [{"n": len(quizkit.validate([str(root)]).findings)}]
    out = invoke("query", "SELECT count(*) AS n FROM steps", str(root), "--format", "csv")
    steps = sum(len(v["steps"]) for _, k, d in read_documents(root)
                for v in (d["versions"] if k == "package-full" else
                          [d] if k in ("version", "version-list") else []))
    assert out.stdout == f"n\n{steps}\n"


@pytest.mark.parametrize("sql", [
    "INSERT INTO packages (id) VALUES ('x')",
    "DELETE FROM packages",
    "UPDATE packages SET starts = 0",
    "DROP TABLE steps",
    "CREATE TABLE t AS SELECT 1",
    "COPY packages TO '/tmp/quizkit-should-not-exist.csv'",
    "ATTACH '/tmp/other.duckdb' AS other",
    "SET threads = 1",
    "INSTALL httpfs",
    "PRAGMA version",
    "SELECT 1; DELETE FROM packages",
])
def test_writing_statements_are_refused(loaded: tuple[Path, Path], sql: str) -> None:
    _, db = loaded
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = invoke("query", sql, "--db", str(db))
    assert result.exit_code == 2
    assert result.stderr.startswith("quizkit: error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path("/tmp/quizkit-should-not-exist.csv").exists()


def test_refusal_says_why(loaded: tuple[Path, Path]) -> None:
    _, db = loaded
    err = invoke("query", "DELETE FROM packages", "--db", str(db)).stderr
    assert "only reads" in err and "DELETE" in err


def test_refused_on_files_too(loaded: tuple[Path, Path]) -> None:
    root, _ = loaded
    result = invoke("query", "DROP TABLE packages", str(root))
    assert result.exit_code == 2 and "only reads" in result.stderr


def test_no_file_access_from_a_query(loaded: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = loaded
    (tmp_path / "x.csv").write_text("a\n1\n")
    result = invoke("query", f"SELECT * FROM read_csv('{tmp_path / 'x.csv'}')", "--db", str(db))
    assert result.exit_code == 2 and "Traceback" not in result.stderr


def test_bad_sql_is_a_one_line_error(loaded: tuple[Path, Path]) -> None:
    _, db = loaded
    for sql in ("SELEC 1", "SELECT nope FROM packages", "SELECT * FROM no_such_table"):
        result = invoke("query", sql, "--db", str(db))
        assert result.exit_code == 2, sql
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_query_through_python_dash_m(loaded: tuple[Path, Path]) -> None:
    _, db = loaded
    proc = subprocess.run([sys.executable, "-m", "quizkit", "query",
                           "UPDATE games SET name = 'x'", "--db", str(db)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "only reads" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "quizkit", "query",
                           "SELECT count(*) AS n FROM games", "--db", str(db), "--format", "json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert orjson.loads(proc.stdout) == [{"n": 12}]


def test_export_parquet_one_file_per_table(loaded: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = loaded
    out = tmp_path / "parquet"
    result = invoke("export", "--db", str(db), "--parquet", str(out))
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(db), read_only=True)
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema='main'").fetchall()]
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{t}.parquet" for t in tables)
    for t in tables:
        original = sorted(con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
        again = sorted(con.execute(f"SELECT * FROM read_parquet('{out / t}.parquet')")
                       .fetchall(), key=repr)
        assert again == original, t
    con.close()


def test_export_of_a_missing_database(tmp_path: Path) -> None:
    result = invoke("export", "--db", str(tmp_path / "nope.duckdb"), "--parquet",
                    str(tmp_path / "out"))
    assert result.exit_code == 2 and "no such database file" in result.stderr
    assert not (tmp_path / "out").exists()
