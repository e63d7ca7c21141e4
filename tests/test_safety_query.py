"""``query`` streams in constant memory in every format; ``--limit`` and
``--timeout`` (exit 2 with a message)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from safety_cli import SAMPLES, one_line_error, quizkit

FORMATS = ("table", "csv", "json", "markdown")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("query") / "a.duckdb"
    done = quizkit("load", SAMPLES / "game.json", "--db", path, "--no-findings")
    assert done.returncode == 0, done.stderr
    return path


def _rows(text: str, fmt: str) -> list[str]:
    """The data rows of a query's output, as text."""
    if fmt == "json":
        return [str(r["range"]) for r in json.loads(text)]
    if fmt == "csv":
        return [r["range"] for r in csv.DictReader(io.StringIO(text))]
    lines = text.splitlines()[2:]  # the reading formats group digits: 10,000
    if fmt == "markdown":
        return [line.strip("| ").replace(",", "") for line in lines]
    return [line.strip().replace(",", "") for line in lines if line != "(no rows)"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("limit", [0, 3, 25_000])
def test_limit_in_every_format(db: Path, fmt: str, limit: int) -> None:
    done = quizkit("query", "SELECT range FROM range(30000)", "--db", db, "--format", fmt,
                   "--limit", str(limit))
    assert done.returncode == 0, done.stderr
    assert _rows(done.stdout, fmt) == [str(i) for i in range(limit)]


def test_streamed_output_is_what_one_batch_gives(db: Path) -> None:
    """Batches of 10,000 rows join into the same document as a result read whole."""
    sql = "SELECT range AS n, 'v' || range AS s, range % 7 = 0 AS flag FROM range(25000)"
    for fmt in FORMATS:
        streamed = quizkit("query", sql, "--db", db, "--format", fmt).stdout
        small = quizkit("query", sql + " LIMIT 3", "--db", db, "--format", fmt).stdout
        if fmt == "json":
            rows = json.loads(streamed)
            assert len(rows) == 25000 and rows[:3] == json.loads(small)
            continue
        assert len(streamed.splitlines()) == len(small.splitlines()) + 24997
        if fmt == "table":  # widths from the first batch, so compare the cells
            cells = [line.split() for line in streamed.splitlines()]
            want = [line.split() for line in small.splitlines()]
            assert cells[:1] + cells[2:5] == want[:1] + want[2:]
            assert cells[-1] == ["24,999", "v24999", "false"]
        else:
            assert streamed.startswith(small)


def test_timeout_is_exit_2_with_a_message(db: Path) -> None:
    done = quizkit("query", "SELECT count(*) FROM range(100000000000)", "--db", db,
                   "--timeout", "0.5")  # the subprocess's own timeout: a query never stopped
    line = one_line_error(done)
    assert "--timeout 0.5 s" in line
    assert done.stdout == ""


def test_timeout_and_limit_in_the_python_api(db: Path) -> None:
    from quizkit.analysis.query import QueryTimeout  # here: the other tests run on any quizkit
    from quizkit.api import query as api_query

    with pytest.raises(QueryTimeout):
        api_query("SELECT count(*) FROM range(100000000000)", db=str(db), timeout=0.3)
    section = api_query("SELECT range FROM range(10)", db=str(db), limit=4)
    assert section.sections[0].rows == [(0,), (1,), (2,), (3,)]


PEAK_RSS = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
assert done.returncode == 0, done.stderr
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kb(*args: str | Path) -> int:
    done = subprocess.run([sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "quizkit",
                           *map(str, args)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_large_result_takes_constant_memory(db: Path, fmt: str) -> None:
    """600,000 rows cost no more memory than 1,000: read whole, they took some 250 MB more."""
    sql = "SELECT range AS n, 'row number ' || range AS s FROM range({})"
    small = _peak_kb("query", sql.format(1_000), "--db", db, "--format", fmt)
    large = _peak_kb("query", sql.format(600_000), "--db", db, "--format", fmt)
    assert large < small + 60_000, (small, large)


@pytest.mark.parametrize("sql", [
    "EXPLAIN ANALYZE SET memory_limit='100GB'",
    "explain /* a comment */ analyse SET threads = 1",
    "EXPLAIN (FORMAT json) SET memory_limit='100GB'",
    "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1",
    "EXPLAIN ANALYZE INSTALL httpfs",
])
def test_explain_does_not_carry_a_refused_statement(db: Path, sql: str) -> None:
    line = one_line_error(quizkit("query", sql, "--db", db))
    assert "only reads" in line, line


@pytest.mark.parametrize("sql", [
    "EXPLAIN SELECT count(*) FROM packages",
    "EXPLAIN ANALYZE SELECT count(*) FROM packages",
    "EXPLAIN (FORMAT json) SELECT 1",
    "EXPLAIN ANALYZE (SELECT 1) UNION (SELECT 2)",
])
def test_explain_of_a_reading_statement_runs(db: Path, sql: str) -> None:
    done = quizkit("query", sql, "--db", db, "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert "plan" in done.stdout
