"""Configuration: discovery, options, CLI precedence, per-path ignores, errors (exit 2)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import INVALID, ROOT, run_script

from quizkit import api
from quizkit.catalog.findings import Severity
from quizkit.cli import main
from quizkit.settings import config

CASES = INVALID / "rules"
PRICE = CASES / "question-duplicate-price.json"  # one warning: duplicate-price
BANNER = CASES / "banner-updated-before-created.json"  # one error: updated-before-created


def run(tmp: Path, *args: str, files: tuple[Path, ...] = (PRICE, BANNER)) -> tuple[
        int, dict | None, str]:
    """Run validate --format json in a directory below ``tmp`` (config discovery starts
    there and walks up to ``tmp``), on copies of ``files``."""
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    for src in files:
        shutil.copy(src, work / src.name)
    old = os.getcwd()
    os.chdir(work)
    try:
        result = CliRunner().invoke(main, ["validate", "--format", "json", *args,
                                           *(f.name for f in files)])
    finally:
        os.chdir(old)
    try:
        report = json.loads(result.stdout) if result.stdout.strip() else None
    except json.JSONDecodeError:
        report = None
    return result.exit_code, report, result.stderr


def rules_of(report: dict) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["severity"]) for f in report["findings"])


def test_without_config_defaults_apply(tmp_path):
    code, report, _ = run(tmp_path)
    assert rules_of(report) == [("duplicate-price", "warning"),
                                ("updated-before-created", "error")]
    assert code == 1


def test_pyproject_select_severity_and_fail_on(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.quizkit]\nselect = ["C"]\nfail-on = "warning"\n'
        '[tool.quizkit.severity]\nduplicate-price = "info"\n')
    code, report, _ = run(tmp_path)
    assert rules_of(report) == [("duplicate-price", "info")]
    assert code == 0  # the only finding left is an info, below fail-on warning
    (tmp_path / "pyproject.toml").write_text(
        '[tool.quizkit]\nselect = ["C", "T001"]\nfail-on = "warning"\n'
        '[tool.quizkit.severity]\nT = "warning"\n')
    code, report, _ = run(tmp_path)
    assert rules_of(report) == [("duplicate-price", "warning"),
                                ("updated-before-created", "warning")]
    assert code == 1


def test_cli_wins_over_config(tmp_path):
    (tmp_path / "quizkit.toml").write_text('select = ["C"]\nfail-on = "warning"\n'
                                           '[severity]\nC007 = "info"\n')
    code, report, _ = run(tmp_path, "--select", "T,C007", "--fail-on", "error",
                          "--severity", "duplicate-price=error")
    assert rules_of(report) == [("duplicate-price", "error"),
                                ("updated-before-created", "error")]
    assert code == 1
    code, report, _ = run(tmp_path, "--ignore", "T", "--fail-on", "info")
    assert rules_of(report) == [("duplicate-price", "info")]
    assert code == 1
    code, report, _ = run(tmp_path)
    assert rules_of(report) == [("duplicate-price", "info")]
    assert code == 0


def test_quizkit_toml_wins_over_pyproject_in_the_same_directory(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.quizkit]\nignore = ["C"]\n')
    (tmp_path / "quizkit.toml").write_text('ignore = ["T"]\n')
    code, report, _ = run(tmp_path)
    assert rules_of(report) == [("duplicate-price", "warning")]
    assert code == 0


def test_discovery_walks_upward_and_skips_pyproject_without_table(tmp_path):
    (tmp_path / "quizkit.toml").write_text('ignore = ["U", "R001"]\n')
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert config.find_config(sub) == tmp_path / "quizkit.toml"
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.quizkit]\nselect = ["ALL"]\n')
    assert config.find_config(sub) == tmp_path / "a" / "pyproject.toml"


def test_explicit_config_file(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    cfg = other / "strict.toml"
    cfg.write_text('fail-on = "warning"\nignore = ["T"]\n')
    (tmp_path / "quizkit.toml").write_text('ignore = ["C"]\n')  # found, but not used
    code, report, _ = run(tmp_path, "--config", str(cfg))
    assert rules_of(report) == [("duplicate-price", "warning")]
    assert code == 1


def test_per_path_ignores(tmp_path):
    (tmp_path / "quizkit.toml").write_text(
        '[per-path-ignores]\n"legacy/**" = ["updated-before-created", "C"]\n')
    legacy = tmp_path / "work" / "legacy" / "old"
    legacy.mkdir(parents=True)
    shutil.copy(BANNER, legacy / BANNER.name)
    shutil.copy(PRICE, legacy / PRICE.name)
    code, report, _ = run(tmp_path, "legacy", files=(BANNER,))
    assert {(f["path"], f["rule"]) for f in report["findings"]} == {
        (BANNER.name, "updated-before-created")}
    assert code == 1
    # Patterns are relative to the config file's directory, whatever the current directory.
    (tmp_path / "quizkit.toml").write_text(
        '[per-path-ignores]\n"work/legacy/**" = ["T001", "C"]\n"work/*.json" = ["T"]\n')
    code, report, _ = run(tmp_path, "legacy", files=(BANNER,))
    assert report["findings"] == [] and code == 0


def test_per_path_ignores_are_gitignore_patterns(tmp_path):
    """As ``--exclude``: ``*`` stops at ``/`` and ``**`` crosses it; a pattern without ``/``
    matches a name at any depth; one naming a directory covers what is below it."""
    deep = tmp_path / "work" / "sub" / "deeper"
    deep.mkdir(parents=True)
    shutil.copy(BANNER, deep / BANNER.name)

    def found(table: str) -> set[str]:
        (tmp_path / "quizkit.toml").write_text(f"[per-path-ignores]\n{table}")
        _, report, err = run(tmp_path, "sub", files=(BANNER,))
        assert report is not None, err
        return {f["path"] for f in report["findings"]}

    everything = {BANNER.name, f"sub/deeper/{BANNER.name}"}
    assert found('"work/*.json" = ["T"]\n') == {f"sub/deeper/{BANNER.name}"}
    assert found('"work/*/*.json" = ["T"]\n') == everything
    assert found('"work/**/*.json" = ["T"]\n') == set()
    assert found('"banner-*.json" = ["T"]\n') == set()
    assert found('"work/sub" = ["T"]\n') == {BANNER.name}
    assert found('"deeper/" = ["T"]\n') == {BANNER.name}
    assert found('"*/deeper/*" = ["T"]\n') == {BANNER.name}


def test_a_negated_per_path_ignore_is_refused(tmp_path):
    (tmp_path / "quizkit.toml").write_text('[per-path-ignores]\n"!keep.json" = ["T"]\n')
    code, _, err = run(tmp_path, files=(BANNER,))
    assert code == 2 and "negation" in err


@pytest.mark.parametrize(("content", "needle"), [
    ('selekt = ["S"]\n', "'selekt'"),
    ('ignore = ["unknown-feild"]\n', "'unknown-feild'"),
    ('[severity]\nunknown-field = "fatal"\n', "'fatal'"),
    ('[severity]\nX123 = "error"\n', "'X123'"),
    ('fail-on = "sometimes"\n', "'sometimes'"),
    ('[per-path-ignores]\n"a/**" = ["nope"]\n', "'nope'"),
    ('select = "S\n', "quizkit.toml:1:12: config file is not valid TOML"),
    ('select = [1, 2]\n', "select"),
    ('ignore = "unknown-field"\n', "ignore in"),
    ('select = "S"\n', "must be an array of strings, not a string"),
    ('[per-path-ignores]\n"a/**" = "T"\n', "per-path-ignores.a/**"),
])
def test_config_errors_name_the_problem_and_the_file(tmp_path, content, needle):
    (tmp_path / "quizkit.toml").write_text(content)
    code, report, err = run(tmp_path)
    assert code == 2 and report is None
    assert needle in err and "quizkit.toml" in err


def test_unknown_option_in_pyproject_is_named_with_its_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.quizkit]\nfail_on = "warning"\n')
    code, _, err = run(tmp_path)
    assert code == 2 and "'tool.quizkit.fail_on'" in err and "pyproject.toml" in err


@pytest.mark.parametrize("args", [("--select", "ZZZ"), ("--severity", "S003"),
                                  ("--severity", "S003=loud"), ("--ignore", "no-such")])
def test_bad_cli_rule_options_exit_2(tmp_path, args):
    code, report, err = run(tmp_path, *args)
    assert code == 2 and report is None and err.startswith("Error:")


def test_input_rules_cannot_be_ignored(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": ')
    code, report, _ = run(tmp_path, "--ignore", "P,S", files=(broken,))
    assert [f["rule"] for f in report["findings"]] == ["invalid-json"]
    assert code == 3


def test_selectors_resolve_codes_names_and_prefixes():
    assert config.resolve_selector("s003", "x") == {"unknown-field"}
    assert config.resolve_selector("unknown-field", "x") == {"unknown-field"}
    assert "wrong-type" in config.resolve_selector("S", "x")
    assert config.resolve_selector("T00", "x") == {
        "updated-before-created", "state-before-created", "history-before-game",
        "completed-and-stopped"}
    with pytest.raises(config.ConfigError, match="'S-'"):
        config.resolve_selector("S-", "x")


def _toml_blocks(text: str) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", text, re.DOTALL)


def test_documented_examples_parse_and_load(tmp_path):
    blocks = _toml_blocks((ROOT / "docs" / "configuration.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 2
    for block in blocks:
        name = block.splitlines()[0].lstrip("# ").strip()
        assert name in ("pyproject.toml", "quizkit.toml"), block
        tomllib.loads(block)
        path = tmp_path / name
        path.write_text(block)
        settings = api.settings(path)
        assert settings.select and settings.fail_on == Severity.WARNING
        assert ("legacy/**", ("unknown-field",)) in settings.per_path_ignores
        settings.adjuster()  # every selector resolves


@pytest.mark.parametrize("command", [("validate", "--profile", "nope.toml"),
                                     ("load", "--db", "out.duckdb"), ("query", "SELECT 1"),
                                     ("summary", "overview")])
def test_a_profile_that_cannot_be_read_fails_before_the_walk(tmp_path, command):
    """The profile is read where the settings are resolved: a mistyped path is exit 2 naming
    the profile before any input is listed (here, before the missing input is noticed)."""
    (tmp_path / "quizkit.toml").write_text('profile = "nope.toml"\n')
    done = run_script(*command, "--config", str(tmp_path / "quizkit.toml"),
                      str(tmp_path / "not-walked"), cwd=tmp_path)
    assert done.returncode == 2
    assert b"cannot read profile" in done.stderr and b"nope.toml" in done.stderr
    assert b"not-walked" not in done.stderr
