"""The fence of a team's checks: their SQL reads quizkit's tables and nothing else. Each
refused or failing check is exit 2 with one line naming its code, before the exports are
read where that can be known, and nothing is read or written outside."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import INVALID, SAMPLES, run_script


def _run(tmp_path: Path, sql: str, kind: str = "sql", extra: str = ""):
    work = tmp_path / "exports"
    work.mkdir(exist_ok=True)
    for name in ("package-full.json", "games.jsonl"):
        shutil.copy(SAMPLES / name, work / name)
    # An input that cannot be parsed: a check refused before the run leaves it unreported.
    shutil.copy(INVALID / "package-truncated.json", work / "truncated.json")
    limits = 'warn-if = "> 0"\n' if kind == "metric" else 'severity = "error"\n'
    (tmp_path / "quizkit.toml").write_text(
        f'[[checks]]\ncode = "X042"\nname = "fenced"\ndescription = "d"\n{limits}{extra}'
        f"{kind} = '''{sql}'''\n")
    return run_script("check", "--jobs", "1", "exports", cwd=tmp_path)


@pytest.mark.parametrize(("sql", "reason"), [
    ("select * from read_text('/etc/passwd')", "Permission Error"),
    ("select (select count(*) from read_csv('/etc/passwd'))", "Permission Error"),
    ("select * from glob('/etc/*')", "Permission Error"),
    ("install httpfs", "LOAD statement refused"),
    ("set enable_external_access = true", "SET statement refused"),
    ("pragma version", "PRAGMA statement refused"),
    ("call pragma_version()", "CALL statement refused"),
    ("delete from packages", "DELETE statement refused"),
    ("select 1; select 2", "2 statements"),
    ("selec id from packages", "Parser Error"),
    ("select no_such_column from packages", "Binder Error"),
    ("select * from no_such_table", "Catalog Error"),
])
def test_refused_before_the_exports_are_read(tmp_path, sql, reason):
    out = _run(tmp_path, sql)
    err = out.stderr.decode()
    assert out.returncode == 2, (out.stdout, err)
    assert "check X042 (fenced)" in err and reason in err
    assert len(err.strip().splitlines()) == 1
    assert out.stdout == b""  # no report: the truncated input was never read
    assert "root:" not in err


def test_copy_to_writes_nothing(tmp_path):
    leak = tmp_path / "leak.csv"
    out = _run(tmp_path, f"copy (select * from packages) to '{leak}'")
    assert out.returncode == 2 and b"COPY statement refused" in out.stderr
    assert not leak.exists()


def test_attach_opens_nothing(tmp_path):
    other = tmp_path / "other.duckdb"
    out = _run(tmp_path, f"attach '{other}' as other")
    assert out.returncode == 2 and b"ATTACH statement refused" in out.stderr
    assert not other.exists()


def test_a_metric_of_several_columns_is_refused_first(tmp_path):
    out = _run(tmp_path, "select count(*), 2 from packages", kind="metric")
    assert out.returncode == 2 and out.stdout == b""
    assert b"check X042 (fenced): a metric gives one number" in out.stderr


def test_a_metric_of_several_rows_is_refused(tmp_path):
    out = _run(tmp_path, "select 1 from games", kind="metric")
    assert out.returncode == 2
    assert b"check X042 (fenced): a metric gives one row, this query gave 3" in out.stderr


def test_a_message_naming_a_column_the_query_lacks(tmp_path):
    out = _run(tmp_path, "select id from packages", extra='message = "{size}"\n')
    assert out.returncode == 2 and out.stdout == b""
    assert b"the message names {size}" in out.stderr


def test_pyproject_checks_name_their_key_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.quizkit.checks]]\ncode = "S003"\nname = "n"\nsql = "select 1"\n')
    (tmp_path / "exports").mkdir()
    shutil.copy(SAMPLES / "game.json", tmp_path / "exports")
    out = run_script("check", "exports", cwd=tmp_path)
    assert out.returncode == 2
    assert b"tool.quizkit.checks[0].code" in out.stderr and b"built-in code" in out.stderr
