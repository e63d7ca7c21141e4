"""``quizkit load`` stores the findings of the team's checks in the findings table, of a
database (``--db``) and of a Parquet dataset (``--parquet``) alike, read back with DuckDB."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from conftest import requires, run_script
from test_team_checks import METRICS, VIDEO, configure, corpus
from test_team_checks_limits import many_rows


def _load(tmp_path: Path, target: str, *paths: Path, code: int = 0,
          more: tuple[str, ...] = ()) -> Path:
    """Load ``paths``; the exit ``code`` expected (1: a team's finding at --fail-on)."""
    out = tmp_path / ("dump.duckdb" if target == "db" else "dataset")
    done = run_script("load", *map(str, paths), f"--{target}", str(out), *more, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    return out


def _findings(target: str, out: Path) -> list[tuple]:
    """The team's findings of the table, and the findings-capped findings."""
    con = duckdb.connect()
    if target == "db":
        con.execute("ATTACH ? AS loaded (READ_ONLY)", [str(out)])
        source = "loaded.findings"
    elif not list((out / "findings").glob("*.parquet")):
        return []  # a dataset without findings has no part of them
    else:
        source = f"read_parquet('{out}/findings/*.parquet')"
    rows = con.execute(f"SELECT code, severity, file, message FROM {source} "
                       "WHERE code LIKE 'X%' OR code = 'P011' ORDER BY ALL").fetchall()
    con.close()
    return rows


@pytest.mark.parametrize("target", ["db", "parquet"])
def test_load_stores_the_team_findings(tmp_path, target):
    if target == "parquet":
        requires("pyarrow")
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO + METRICS)
    for _ in range(2):  # a second load replaces the team's findings, never adds to them
        out = _load(tmp_path, target, work, code=1)  # X001 is an error, as check says
    rows = _findings(target, out)
    assert [r[:3] for r in rows] == [("X001", "error", str(work / "package-full.json")),
                                     ("X010", "warning", str(out)),
                                     ("X011", "warning", str(out))]


def test_the_dataset_holds_the_findings_the_database_holds(tmp_path):
    requires("pyarrow")
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO + METRICS)
    db, dataset = _load(tmp_path, "db", work, code=1), _load(tmp_path, "parquet", work, code=1)
    assert _findings("db", db) == [(c, s, str(db) if f == str(dataset) else f, m)
                                   for c, s, f, m in _findings("parquet", dataset)]


#: 1,200 failing rows of games.jsonl, over the cap of 1,000 per file.
MANY = many_rows(400)


@pytest.mark.parametrize("target", ["db", "parquet"])
def test_capped_team_findings_are_replaced_by_the_next_load(tmp_path, target):
    """The findings-capped finding counting the team's findings of a file goes with them
    when the checks run again, also when that file is not loaded again."""
    if target == "parquet":
        requires("pyarrow")
    work = corpus(tmp_path)
    configure(tmp_path, MANY)
    _load(tmp_path, target, work / "games.jsonl")
    out = _load(tmp_path, target, work / "package-full.json")
    rows = _findings(target, out)
    capped = [r for r in rows if r[0] == "P011"]
    assert capped == [("P011", "warning", str(work / "games.jsonl"),
                       "200 more findings not listed (over --max-findings 1,000): "
                       "X001 many-rows 200")]
    assert len(rows) == 1001


@pytest.mark.parametrize("target", ["db", "parquet"])
def test_the_team_findings_decide_the_exit_code_as_in_check(tmp_path, target):
    """A team's error makes ``load`` exit 1, as ``check`` does; a baseline written by
    ``check`` holds it, and then ``load`` neither stores it nor exits 1 for it."""
    if target == "parquet":
        requires("pyarrow")
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO)
    baseline = tmp_path / "baseline.json"
    checked = run_script("check", str(work), cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    written = run_script("check", str(work), "--write-baseline", str(baseline), cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    out = _load(tmp_path, target, work, code=1)
    assert [r[0] for r in _findings(target, out)] == ["X001"]
    out = _load(tmp_path, target, work, code=0, more=("--baseline", str(baseline)))
    assert _findings(target, out) == []
