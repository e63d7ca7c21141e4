"""The team's checks on hostile values and corpora, through the CLI: every run ends with a
clear message and an exit code of the contract, never a traceback, and a load whose
checks fail leaves the database or dataset as it was."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from conftest import requires, run_script
from test_team_checks import EVERY_GAME, check, configure, corpus

#: One row of values of every kind DuckDB gives Python, and text with control characters.
TYPES = r"""
[[checks]]
code = "X001"
name = "every-type"
description = "d"
severity = "warning"
message = "{b}|{d}|{i}|{u}|{nan}|{l}|{t}"
sql = '''select 'a\xff\x00b'::BLOB as b, 1.25::DECIMAL(10, 3) as d, interval 3 day as i,
  '56126066-3082-4c38-a35b-3f907d180bb3'::UUID as u, 'nan'::DOUBLE as nan,
  [1.5::DECIMAL(3, 1)] as l, 'red ' || chr(27) || '[31m' || chr(10) || 'next' as t'''
"""


@pytest.mark.parametrize("form", ["text", "github", "json"])
def test_values_of_every_type_show_in_the_message(tmp_path, form):
    corpus(tmp_path)
    configure(tmp_path, TYPES)
    out = check(tmp_path, "exports", "--select", "X", "--format", form)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    shown = r"a\xff\x00b|1.250|3 days, 0:00:00|56126066-3082-4c38-a35b-3f907d180bb3|nan|"
    assert shown.replace("\\", "\\\\" if form == "json" else "\\") in text
    assert "\x1b" not in text and "\x00" not in text
    assert (r"red \\x1b[31m\\nnext" if form == "json" else r"red \x1b[31m\nnext") in text


def test_a_file_named_by_a_query_cannot_break_the_report(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, """
[[checks]]
code = "X008"
name = "odd-file"
description = "d"
severity = "warning"
sql = "select 'x' || chr(10) || '::error::forged' || chr(27) || '[2J' as file, 1 as v"
""")
    out = check(tmp_path, "exports", "--select", "X")
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert "\x1b" not in text and "\n::error::forged" not in text
    assert "x\\n::error::forged\\x1b[2J\n  -        warning  X008" in text


def test_a_metric_that_is_nan_is_a_note_not_a_pass(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, """
[[checks]]
code = "X002"
name = "ratio"
metric = "select 'nan'::DOUBLE"
error-if = "> 0"
""")
    out = check(tmp_path, "exports", "--select", "X")
    assert out.returncode == 0
    assert b"check X002 (ratio): the metric is NaN; nothing to compare" in out.stderr


def test_failures_limit_0_stores_the_count_and_the_columns(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, EVERY_GAME)
    out = check(tmp_path, "exports", "--store-failures", "failed", "--failures-limit", "0")
    assert b"X003: 0 of 3 failing rows" in out.stderr, out.stderr
    con = duckdb.connect()
    stored = con.execute("SELECT * FROM read_parquet(?)",
                         [str(tmp_path / "failed" / "X003.parquet")])
    assert stored.fetchall() == [] and [d[0] for d in stored.description] == ["id", "file"]


EMPTY_CHECKS = """
[[checks]]
code = "X004"
name = "none"
description = "d"
severity = "error"
message = "game {id}"
sql = "select id, file from games where false"

[[checks]]
code = "X005"
name = "biggest-video"
metric = "select max(size_video) from packages"
warn-if = "> 0"

[[checks]]
code = "X006"
name = "games-count"
metric = "select count(*) from games"
error-if = "< 1"
"""


def test_checks_on_an_empty_corpus(tmp_path):
    (tmp_path / "exports").mkdir()
    configure(tmp_path, EMPTY_CHECKS)
    out = check(tmp_path, "exports", "--format", "json")
    assert out.returncode == 1, out.stderr
    assert b"Traceback" not in out.stderr
    assert b"check X005 (biggest-video): the metric is NULL; nothing to compare" in out.stderr
    assert b'"message": "games-count is 0 (error if < 1)"' in out.stdout


#: A metric that only fails on the data: its SQL is fine on the empty tables.
FAILS_ON_DATA = """
[[checks]]
code = "X007"
name = "a-name"
metric = "select max(name) from games"
warn-if = "> 0"
"""


@pytest.mark.parametrize("target", ["db", "parquet"])
def test_a_load_whose_check_fails_is_exit_2_and_changes_nothing(tmp_path, target):
    if target == "parquet":
        requires("pyarrow")
    work = corpus(tmp_path)
    out = tmp_path / ("dump.duckdb" if target == "db" else "dataset")
    assert run_script("load", str(work / "banners.jsonl"), f"--{target}", str(out),
                      cwd=tmp_path).returncode == 0
    before = _state(out)
    configure(tmp_path, FAILS_ON_DATA)
    done = run_script("load", str(work), f"--{target}", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "check X007 (a-name): a metric gives a number" in lines[0]
    assert _state(out) == before


def _state(out: Path) -> dict[str, bytes]:
    files = [out] if out.is_file() else sorted(p for p in out.rglob("*")
                                               if p.is_file() and not p.name.startswith("."))
    return {str(p): p.read_bytes() for p in files}
