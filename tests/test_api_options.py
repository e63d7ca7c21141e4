"""The Python API equals the CLI: every option of every command is a parameter of the
command's function in ``quizkit.api`` (renames and terminal-only options are the documented
tables ``api.CLI_RENAMES`` and ``api.CLI_ONLY``); and the API gives what the CLI gives."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys

import click
import pytest
from conftest import INVALID, SAMPLES, run_script

from quizkit import api
from quizkit.docgen import commands
from quizkit.settings.config import ConfigError

LEAVES = [(name.removeprefix("quizkit "), cmd) for name, cmd in commands()
          if not isinstance(cmd, click.Group)]


def option_name(param: click.Parameter) -> str:
    """``--max-file-size`` → ``max_file_size``; an argument by its name."""
    if isinstance(param, click.Argument):
        return param.name or ""
    flags = [o for o in param.opts if o.startswith("--")] or param.opts
    return flags[0].lstrip("-").replace("-", "_")


def test_every_command_has_an_api_function():
    assert {name for name, _ in LEAVES} == set(api.COMMANDS)


@pytest.mark.parametrize(("name", "command"), LEAVES, ids=[n for n, _ in LEAVES])
def test_every_cli_option_is_an_api_parameter(name, command):
    parameters = inspect.signature(api.COMMANDS[name]).parameters
    missing = []
    for param in command.params:
        if param.name == "help" or getattr(param, "is_eager", False):
            continue
        option = option_name(param)
        if (name, option) in api.CLI_ONLY:
            continue
        wanted = api.CLI_RENAMES.get((name, option), option)
        if wanted not in parameters:
            missing.append(f"{option} (API: {wanted})")
    assert not missing, f"quizkit {name}: no API parameter for {', '.join(missing)}"


def test_the_tables_name_real_options():
    known = {(name, option_name(p)) for name, cmd in LEAVES for p in cmd.params}
    assert set(api.CLI_RENAMES) <= known
    assert set(api.CLI_ONLY) <= known


def test_a_new_option_without_api_parameter_is_caught():
    """The walk can fail: an option the API lacks is reported."""
    cmd = click.Command("validate", params=[click.Option(["--no-such-option"])])
    with pytest.raises(AssertionError, match="no_such_option"):
        test_every_cli_option_is_an_api_parameter("validate", cmd)


def test_api_and_cli_agree_on_a_configured_run(tmp_path, monkeypatch):
    work = tmp_path / "work"
    shutil.copytree(INVALID / "rules", work)
    (tmp_path / "quizkit.toml").write_text(
        'ignore = ["duplicate-price"]\n[severity]\nunknown-field = "error"\n'
        '[per-path-ignores]\n"work/banner-*.json" = ["T"]\n')
    monkeypatch.chdir(work)
    cli = run_script("validate", "--jobs", "1", "--format", "json", ".", cwd=work)
    from_cli = json.loads(cli.stdout)["findings"]
    report = api.validate(["."], jobs=1)
    from_api = [f.to_dict() for f in report.findings]
    assert from_api == from_cli
    rules = {f["rule"] for f in from_cli}
    assert "duplicate-price" not in rules and "updated-before-created" not in rules
    assert api.settings().exit_code(report) == cli.returncode


def test_api_config_may_be_a_table_or_none(tmp_path, monkeypatch):
    work = tmp_path / "work"
    shutil.copytree(INVALID / "rules", work)
    (work / "quizkit.toml").write_text('select = ["C"]\n')
    monkeypatch.chdir(work)
    found = {f.rule for f in api.validate(["."], jobs=1).findings}
    assert found and all(r != "updated-before-created" for r in found)
    table = {f.rule for f in api.validate(["."], jobs=1, config={"select": ["T001"]}).findings
             if not f.code.startswith("P")}  # input rules always report
    assert table == {"updated-before-created"}
    everything = {f.rule for f in api.validate(["."], jobs=1, config=False).findings}
    assert found < everything and table < everything
    with pytest.raises(ConfigError, match="'nope'"):
        api.validate(["."], config={"ignore": ["nope"]})


def test_load_applies_the_project_config_to_the_findings_table(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(INVALID / "rules", work)

    def rules_in_db(db: str) -> set[str]:
        out = run_script("query", "SELECT DISTINCT rule FROM findings", "--db", db,
                         "--format", "json", cwd=work)
        assert out.returncode == 0, out.stderr
        return {row["rule"] for row in json.loads(out.stdout)}

    plain = run_script("load", ".", "--db", str(tmp_path / "plain.duckdb"), cwd=work)
    assert plain.returncode == 1, plain.stderr  # the cases hold errors: exit 1, as validate
    assert "duplicate-price" in rules_in_db(str(tmp_path / "plain.duckdb"))
    (work / "quizkit.toml").write_text('ignore = ["duplicate-price"]\n')
    configured = run_script("load", ".", "--db", str(tmp_path / "conf.duckdb"), cwd=work)
    assert configured.returncode == 1, configured.stderr
    rules = rules_in_db(str(tmp_path / "conf.duckdb"))
    assert "duplicate-price" not in rules and "updated-before-created" in rules
    # and a query over the files straight applies it too
    out = run_script("query", "SELECT count(*) AS n FROM findings WHERE rule = 'duplicate-price'",
                     ".", "--format", "json", cwd=work)
    assert json.loads(out.stdout) == [{"n": 0}]


def test_the_api_reads_every_config_key_without_the_cli_imported(tmp_path):
    """Config keys are one table in quizkit.settings.config: a fresh ``import quizkit`` (no command
    module imported, which used to add ``exclude`` and ``profile`` as a side effect) knows
    them all."""
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "broken.json").write_text("{")
    shutil.copy(INVALID / "rules" / "question-duplicate-price.json", tmp_path / "q.json")
    (tmp_path / "quizkit.toml").write_text('exclude = ["old"]\nignore = ["duplicate-price"]\n')
    code = ("import sys, quizkit; r = quizkit.validate(['.'], jobs=1); "
            "print(r.file_count, len(r.findings), r.unreadable, "
            "'quizkit.commands.validate' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0", "False", "False"]


def test_api_analysis_gives_what_the_cli_prints(tmp_path):
    db = tmp_path / "s.duckdb"
    result = api.load([str(SAMPLES)], db, findings=False)
    assert result.files >= 10 and result.findings is None
    sql = "SELECT kind, count(*) AS n FROM files GROUP BY ALL ORDER BY ALL"
    for fmt in ("json", "csv", "table"):
        cli = run_script("query", sql, "--db", str(db), "--format", fmt)
        assert api.query(sql, db=db, format=fmt).text.encode() == cli.stdout
        streamed: list[str] = []
        answer = api.query(sql, db=db, format=fmt, write=streamed.append)
        assert "".join(streamed).encode() == cli.stdout and answer.sections == []
    cli = run_script("summary", "overview", "--db", str(db), "--format", "json")
    assert api.summary("overview", db=db, format="json").text.encode() == cli.stdout
    with pytest.raises(ConfigError, match="no section 'nope'"):
        api.summary("sizes", db=db, section="nope")
    exported = api.export(db, tmp_path / "parquet")
    assert {table for table, _, _ in exported.written} >= {"files", "packages"}
    assert exported.foreign == []


def test_load_applies_select_severity_and_per_path_ignores(tmp_path, monkeypatch):
    """The whole rule configuration reaches the findings table, from a config file through
    the CLI and from a config table through the API, the same way."""
    work = tmp_path / "work"
    shutil.copytree(INVALID / "rules", work)
    config = {"select": ["C", "T"], "severity": {"duplicate-price": "info"},
              "per-path-ignores": {"game-*.json": ["T"]}}
    (work / "quizkit.toml").write_text(
        'select = ["C", "T"]\n[severity]\nduplicate-price = "info"\n'
        '[per-path-ignores]\n"game-*.json" = ["T"]\n')
    sql = ("SELECT DISTINCT regexp_extract(file, '[^/]*$') AS file, code, severity "
           "FROM findings ORDER BY ALL")

    def table(db) -> list[dict]:
        out = run_script("query", sql, "--db", str(db), "--format", "json", cwd=work)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    done = run_script("load", ".", "--db", str(tmp_path / "cli.duckdb"), cwd=work)
    assert done.returncode == 1, done.stderr  # errors are left: exit 1, as validate
    from_cli = table(tmp_path / "cli.duckdb")
    (work / "quizkit.toml").unlink()
    monkeypatch.chdir(work)  # a table's per-path patterns match the paths as given
    api.load(["."], tmp_path / "api.duckdb", config=config)
    from_api = table(tmp_path / "api.duckdb")
    assert from_cli == from_api
    codes = {row["code"][0] for row in from_cli}
    assert codes == {"C", "T"}
    assert {row["severity"] for row in from_cli if row["code"] == "C007"} == {"info"}
    assert not [row for row in from_cli
                if row["file"].startswith("game-") and row["code"].startswith("T")]
    assert [row for row in from_cli if row["code"].startswith("T")]


def test_load_walks_directories_as_validate_does(tmp_path, monkeypatch):
    """The project's `exclude` (and `--exclude`, `exclude=`) leave the same files out of
    `validate`, `load` (rows and findings) and a query straight on the files."""
    work = tmp_path / "work"
    (work / "dump" / "invalid").mkdir(parents=True)
    (work / "dump" / "ok").mkdir()
    shutil.copy(SAMPLES / "version.json", work / "dump" / "ok" / "version.json")
    shutil.copy(INVALID / "rules" / "banner-updated-before-created.json",
                work / "dump" / "invalid" / "banner.json")
    (work / "quizkit.toml").write_text('exclude = ["invalid/"]\n')

    def loaded_files(db: str) -> set[str]:
        out = run_script("query", "SELECT file FROM files UNION ALL SELECT file FROM findings",
                         "--db", db, "--format", "json", cwd=work)
        return {row["file"].rsplit("/", 2)[-2] for row in json.loads(out.stdout)}

    validated = run_script("validate", "--format", "json", "dump", cwd=work)
    assert {f["path"].split("/")[1] for f in json.loads(validated.stdout)["files"]} == {"ok"}
    loaded = run_script("load", "dump", "--db", str(tmp_path / "a.duckdb"), cwd=work)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded_files(str(tmp_path / "a.duckdb")) == {"ok"}
    straight = run_script("query", "SELECT count(*) AS n FROM banners", "dump",
                          "--format", "json", cwd=work)
    assert json.loads(straight.stdout) == [{"n": 0}]
    # without the config every file is loaded; the option and the API parameter exclude too
    everything = run_script("load", "dump", "--db", str(tmp_path / "b.duckdb"),
                            "--config", str(tmp_path / "none.toml"), cwd=work)
    assert everything.returncode == 2  # a config file that does not exist is an error
    (tmp_path / "empty.toml").write_text("")
    everything = run_script("load", "dump", "--db", str(tmp_path / "b.duckdb"),
                            "--config", str(tmp_path / "empty.toml"), cwd=work)
    assert loaded_files(str(tmp_path / "b.duckdb")) == {"ok", "invalid"}
    option = run_script("load", "dump", "--db", str(tmp_path / "c.duckdb"), "--config",
                        str(tmp_path / "empty.toml"), "--exclude", "ok/", "--exclude", "nope/",
                        cwd=work)
    assert "exclude pattern 'nope/' matched nothing" in option.stderr.decode()
    assert loaded_files(str(tmp_path / "c.duckdb")) == {"invalid"}
    monkeypatch.chdir(work)
    api.load(["dump"], str(tmp_path / "d.duckdb"), config=False, exclude=["invalid/"])
    assert loaded_files(str(tmp_path / "d.duckdb")) == {"ok"}
    bad = run_script("load", "dump", "--db", str(tmp_path / "e.duckdb"), "--exclude", "!x",
                     cwd=work)
    assert bad.returncode == 2 and b"negation" in bad.stderr and b"Traceback" not in bad.stderr
