"""A team's own checks (``[[checks]]``) through ``quizkit check``: sql checks placed at their
record, metrics with thresholds, change checks over a real history, and the options of
``validate`` (select, ignore, severity, baseline, formats) applied to team codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from conftest import SAMPLES, requires, run_script

PACKAGE_ID = "69079d1bff4122a96cc07b07"


def corpus(tmp_path: Path) -> Path:
    """A few exports: one indented package, two games in JSON Lines, banners."""
    work = tmp_path / "exports"
    work.mkdir()
    for name in ("package-full.json", "games.jsonl", "banners.jsonl", "game.json"):
        shutil.copy(SAMPLES / name, work / name)
    return work


def configure(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "quizkit.toml"
    config.write_text(text)
    return config


def check(tmp_path: Path, *args: str):
    return run_script("check", "--jobs", "1", *args, cwd=tmp_path)


VIDEO = """
[[checks]]
code = "X001"
name = "video-over-limit"
description = "No package over 10 MB of video"
severity = "error"
message = "package {id} has {size_video} bytes of video"
sql = "select id, size_video, file from packages where size_video > 1e7"
"""

#: A row that says where it came from: file, JSON Lines record and pointer.
PLACED = """
[[checks]]
code = "X002"
name = "second-game"
description = "the second game, by its record"
severity = "warning"
message = "game {id}"
sql = "select id, file, 2 as record, '/name' as pointer from games where file like '%l' limit 1"

[[checks]]
code = "X004"
name = "package-name"
description = "the package's name, by its pointer"
severity = "error"
message = "package {id}"
sql = "select id, file, NULL::BIGINT as record, '/name' as pointer from packages"
"""


def test_sql_check_gives_a_finding_per_failing_row(tmp_path):
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO)
    out = check(tmp_path, "exports")
    text = out.stdout.decode()
    assert out.returncode == 1, out.stderr
    assert f"package {PACKAGE_ID} has 31457280 bytes of video" in text
    assert "X001" in text and "exports/package-full.json" in text
    validate = run_script("validate", "--jobs", "1", str(work), cwd=tmp_path)
    assert validate.returncode == 0 and b"X001" not in validate.stdout


def test_findings_land_at_record_pointer_line_in_every_format(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, PLACED)
    out = check(tmp_path, "exports", "--format", "json")
    assert out.returncode == 1, out.stderr
    found = {f["code"]: f for f in json.loads(out.stdout)["findings"] if f["code"] >= "X"}
    game = found["X002"]
    assert (game["path"], game["record"], game["pointer"]) == \
        ("exports/games.jsonl", 2, "/name")
    line2 = (SAMPLES / "games.jsonl").read_text().splitlines()[1]
    assert game["line"] == 2 and game["column"] == line2.index('"name":') + len('"name":') + 1
    package = found["X004"]
    lines = (SAMPLES / "package-full.json").read_text().splitlines()
    name_line = next(i for i, line in enumerate(lines, 1) if '"name": "Capitals' in line)
    assert (package["path"], package["pointer"], package["line"]) == \
        ("exports/package-full.json", "/name", name_line)
    assert package["column"] == lines[name_line - 1].index('"Capitals') + 1

    sarif = json.loads(check(tmp_path, "exports", "--format", "sarif").stdout)
    run = sarif["runs"][0]
    result = next(r for r in run["results"] if r["ruleId"] == "X004")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == name_line
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "/name"
    rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "X004")
    assert rule["shortDescription"]["text"] == "the package's name, by its pointer"

    text = check(tmp_path, "exports", "--color", "never").stdout.decode()
    column = lines[name_line - 1].index('"Capitals') + 1
    assert f"{name_line}:{column}" in text.split("exports/package-full.json", 1)[1]
    assert f"X004  package {PACKAGE_ID}" in text

    github = check(tmp_path, "exports", "--format", "github").stdout.decode()
    assert f"::error file=exports/package-full.json,line={name_line}," in github
    assert "::warning file=exports/games.jsonl,line=2," in github


METRICS = """
[[checks]]
code = "X010"
name = "games-count"
description = "enough games"
metric = "select count(*) from games"
warn-if = "< 10"
error-if = "< 2"

[[checks]]
code = "X011"
name = "packages-count"
description = "not too many packages"
metric = "select count(*) from packages"
warn-if = "> 0"
error-if = "> 5"
"""


def test_metric_finding_at_the_worst_threshold_crossed(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, METRICS)
    out = check(tmp_path, "exports", "--format", "json")
    found = {f["code"]: f for f in json.loads(out.stdout)["findings"] if f["code"] >= "X"}
    assert found["X010"]["severity"] == "warning"  # 3 games: under 10, not under 2
    assert "games-count is 3" in found["X010"]["message"]
    assert "warning if < 10" in found["X010"]["message"]
    assert found["X011"]["severity"] == "warning"
    assert "packages-count is 1 (warning if > 0)" in found["X011"]["message"]
    assert out.returncode == 0  # warnings only


CHANGE = """
[[checks]]
code = "X020"
name = "game-count-drop"
description = "the game count falls"
metric = "select count(*) from games"
change = "last"
warn-if = "< -10%"
error-if = "< -50%"
"""


def test_change_check_fires_on_the_second_run_of_a_shrunken_corpus(tmp_path):
    work = corpus(tmp_path)
    configure(tmp_path, CHANGE)
    history = tmp_path / "history.duckdb"
    first = check(tmp_path, "exports", "--history", str(history), "--dataset", "nightly")
    assert first.returncode == 0, first.stderr
    assert b"X020" not in first.stdout
    assert b"no run history of this dataset yet" in first.stderr
    (work / "games.jsonl").unlink()  # 3 games → 1
    second = check(tmp_path, "exports", "--history", str(history), "--dataset", "nightly",
                   "--format", "json")
    found = [f for f in json.loads(second.stdout)["findings"] if f["code"] == "X020"]
    assert len(found) == 1 and found[0]["severity"] == "error", second.stderr
    assert "game-count-drop is 1" in found[0]["message"] and "-66.7%" in found[0]["message"]
    assert second.returncode == 1
    con = duckdb.connect(str(history), read_only=True)
    values = con.execute("SELECT value FROM metrics WHERE name = 'game-count-drop' "
                         "ORDER BY run_id").fetchall()
    rows = con.execute("SELECT value FROM metrics WHERE name = 'rows.games' "
                       "ORDER BY run_id").fetchall()
    con.close()
    assert values == [(3.0,), (1.0,)] and rows == [(3.0,), (1.0,)]


def test_select_ignore_severity_and_baseline_apply_to_team_codes(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, VIDEO)
    ignored = check(tmp_path, "exports", "--ignore", "X001")
    assert ignored.returncode == 0 and b"X001" not in ignored.stdout
    only = check(tmp_path, "exports", "--select", "X", "--format", "json")
    codes = {f["code"] for f in json.loads(only.stdout)["findings"]}
    assert codes == {"X001"}
    regraded = check(tmp_path, "exports", "--severity", "video-over-limit=info")
    assert regraded.returncode == 0 and b"X001" in regraded.stdout
    baseline = tmp_path / "baseline.json"
    assert check(tmp_path, "exports", "--write-baseline", str(baseline)).returncode == 0
    known = check(tmp_path, "exports", "--baseline", str(baseline))
    assert known.returncode == 0 and b"X001" not in known.stdout


#: Every game is a failing row (three in the corpus).
EVERY_GAME = """
[[checks]]
code = "X003"
name = "every-game"
description = "every game"
severity = "info"
sql = "select id, file from games order by id"
"""


def test_store_failures_writes_each_sql_checks_rows(tmp_path):
    corpus(tmp_path)
    configure(tmp_path, VIDEO + EVERY_GAME)
    out = check(tmp_path, "exports", "--store-failures", "failed", "--failures-limit", "2")
    assert b"X003: 2 of 3 failing rows" in out.stderr, out.stderr
    con = duckdb.connect()
    rows = con.execute("SELECT id FROM read_parquet(?)",
                       [str(tmp_path / "failed" / "X003.parquet")]).fetchall()
    video = con.execute("SELECT id, size_video FROM read_parquet(?)",
                        [str(tmp_path / "failed" / "X001.parquet")]).fetchall()
    assert len(rows) == 2 and video == [(PACKAGE_ID, 31457280)]
    assert out.returncode == 1  # the report is the same with or without the failures kept


def test_checks_over_a_loaded_database(tmp_path):
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO)
    db = tmp_path / "dump.duckdb"
    # The video check's error is a finding of the load too: it exits 1, as check does.
    assert run_script("load", str(work), "--db", str(db), cwd=tmp_path).returncode == 1
    out = check(tmp_path, "--db", str(db), "--format", "json")
    findings = json.loads(out.stdout)["findings"]
    assert out.returncode == 1
    assert [f["code"] for f in findings] == ["X001"]
    assert findings[0]["path"] == str(work / "package-full.json")


def test_rules_lists_the_team_checks(tmp_path):
    configure(tmp_path, VIDEO + METRICS)
    out = run_script("rules", cwd=tmp_path).stdout.decode()
    assert "X001  video-over-limit" in out and "No package over 10 MB of video" in out
    one = run_script("rules", "X010", cwd=tmp_path).stdout.decode()
    assert "enough games" in one and "select count(*) from games" in one


@pytest.mark.parametrize(("table", "wanted"), [
    ('code = "S001"', "checks[0].code"),
    ('code = "X"', "checks[0].code"),
    ('code = "B"', "prefix of built-in codes"),
    ('code = "X001"\nname = "unknown-field"', "name of a built-in rule"),
    ('code = "X001"\nwarn-if = "about 3"', "checks[0].warn-if"),
    ('code = "X001"\nwarn-if = "< -3%"', "only a check with change"),
    ('code = "X001"\nwarn-if = "< 3"\nchange = "yesterday"', "checks[0].change"),
    ('code = "X001"\nwarn-if = "< 3"\nseverity = "error"', "unknown key checks[0].severity"),
    ('code = "X001"\nsql = "select 1 as n"\nmessage = "{n:,}"', "takes no format"),
])
def test_bad_check_configuration_is_exit_2_naming_the_key(tmp_path, table, wanted):
    corpus(tmp_path)
    text = f'[[checks]]\n{table}\n' + ("" if "sql =" in table else 'metric = "select 1"\n')
    if "name =" not in table:
        text += 'name = "a-check"\n'
    if "-if" not in table and "sql =" not in table:
        text += 'warn-if = "> 0"\n'
    configure(tmp_path, text)
    out = check(tmp_path, "exports")
    assert out.returncode == 2, out.stdout
    assert wanted in out.stderr.decode()


def test_rows_carry_their_own_record_and_pointer(tmp_path):
    """``select *`` of a table gives file, record and pointer: the finding is at the row's
    record (JSON Lines) or at its value inside a document."""
    corpus(tmp_path)
    configure(tmp_path, """
[[checks]]
code = "X030"
name = "every-game"
description = "d"
severity = "warning"
message = "game {id}"
sql = "select * from games where file like '%.jsonl'"

[[checks]]
code = "X031"
name = "second-question"
description = "d"
message = "question {id}"
sql = "select * from questions where position = 2 limit 1"
""")
    out = check(tmp_path, "exports", "--format", "json", "--select", "X")
    found = json.loads(out.stdout)["findings"]
    games = [(f["path"], f["record"], f["line"]) for f in found if f["code"] == "X030"]
    assert games == [("exports/games.jsonl", n, n) for n in (1, 2, 3)]
    (question,) = [f for f in found if f["code"] == "X031"]
    assert question["pointer"].startswith("/versions/0/questions/")
    doc = json.loads((SAMPLES / "package-full.json").read_text())
    index = int(question["pointer"].rsplit("/", 1)[1])
    qid = doc["versions"][0]["questions"][index]["id"]
    lines = (SAMPLES / "package-full.json").read_text().splitlines()
    id_line = next(i for i, line in enumerate(lines, 1) if f'"id": "{qid}"' in line)
    assert question["line"] == id_line - 1  # the question object opens the line before its id


def test_a_report_never_lands_on_the_database_checked(tmp_path):
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO)
    db = tmp_path / "dump.duckdb"
    # The video check's error is a finding of the load too: it exits 1, as check does.
    assert run_script("load", str(work), "--db", str(db), cwd=tmp_path).returncode == 1
    before = db.read_bytes()
    out = check(tmp_path, "--db", str(db), "--format", "json", "-o", str(db))
    assert out.returncode == 2 and db.read_bytes() == before


def test_checks_over_a_parquet_dataset(tmp_path):
    requires("pyarrow")
    work = corpus(tmp_path)
    configure(tmp_path, VIDEO + METRICS)
    dataset = tmp_path / "dataset"
    assert run_script("load", str(work), "--parquet", str(dataset),
                      cwd=tmp_path).returncode == 1  # the video check's error
    out = check(tmp_path, "--parquet", str(dataset), "--format", "json")
    found = json.loads(out.stdout)["findings"]
    assert out.returncode == 1, out.stderr
    assert sorted(f["code"] for f in found) == ["X001", "X010", "X011"]
    assert next(f for f in found if f["code"] == "X010")["path"] == str(dataset)
