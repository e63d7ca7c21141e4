"""The team's checks within the limits of a run: ``--max-findings`` caps the findings one
file lists, as for the document rules, and the rows past it are counted, never kept;
``--store-failures`` keeps its own ``--failures-limit``."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from test_team_checks import check, configure, corpus


def many_rows(per_game: int) -> str:
    """A check failing ``per_game`` rows per game (games.jsonl has three games; game.json
    repeats one of them, so it has none of its own)."""
    return f"""
[[checks]]
code = "X001"
name = "many-rows"
description = "d"
severity = "warning"
message = "row {{n}}"
sql = "select file, range as n from games, range({per_game}) order by file, n"
"""


#: 300 rows for games.jsonl, and 6 of a second check.
MANY = many_rows(100) + """
[[checks]]
code = "X002"
name = "few-rows"
description = "d"
severity = "error"
message = "other {n}"
sql = "select file, range as n from games, range(2); -- the end"
"""


def _by_file(findings: list[dict], path: str) -> list[dict]:
    return [f for f in findings if f["path"] == path]


def test_team_findings_obey_max_findings_per_file(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, MANY)
    out = check(tmp_path, "exports", "--max-findings", "5", "--format", "json", "--select",
                "X,P011")
    assert out.returncode == 1, out.stderr
    findings = json.loads(out.stdout)["findings"]
    games = _by_file(findings, "exports/games.jsonl")
    listed = [f for f in games if f["code"].startswith("X")]
    assert [f["message"] for f in listed] == ["row 0"] * 3 + ["row 1"] * 2
    (capped,) = [f for f in games if f["code"] == "P011"]
    # 300 + 6 rows, 5 listed: the rest counted by check, at the worst severity among them
    assert capped["message"] == ("301 more findings not listed (over --max-findings 5): "
                                 "X001 many-rows 295, X002 few-rows 6")
    assert capped["severity"] == "error"


def test_without_a_cap_every_row_is_a_finding(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, MANY)
    out = check(tmp_path, "exports", "--max-findings", "0", "--format", "json", "--select", "X")
    findings = json.loads(out.stdout)["findings"]
    assert len(findings) == 3 * 102 and not any(f["code"] == "P011" for f in findings)


def test_store_failures_keeps_its_own_limit_under_the_cap(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, MANY)
    out = check(tmp_path, "exports", "--max-findings", "5", "--store-failures", "failed",
                "--failures-limit", "250", "--format", "json")
    assert b"X001: 250 of 300 failing rows" in out.stderr, out.stderr
    assert b"X002: 6 of 6 failing rows" in out.stderr
    rows = duckdb.connect().execute(
        "SELECT n FROM read_parquet(?)", [str(Path(tmp_path, "failed", "X001.parquet"))]
    ).fetchall()
    assert [r[0] for r in rows] == sorted(n for n in range(100) for _ in range(3))[:250]
