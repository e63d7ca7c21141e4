"""Every file a run reads, whatever its role (export, database, dataset, config given or
found, profile, baseline), is safe from the run's outputs: an output that is one of them, or
lies in a dataset the run reads, is exit 2 before any work, naming both; nothing is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from safety_cli import SAMPLES, one_line_error, quizkit, snapshot


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("stores")
    for option, target in (("--db", where / "db.duckdb"), ("--parquet", where / "ds")):
        done = quizkit("load", SAMPLES / "package-full.json", option, target, "--no-findings")
        assert done.returncode == 0, done.stderr
    return where


@pytest.fixture
def work(tmp_path: Path, stores: Path) -> Path:
    shutil.copyfile(stores / "db.duckdb", tmp_path / "db.duckdb")
    shutil.copytree(stores / "ds", tmp_path / "ds")
    (tmp_path / "u.json").write_bytes((SAMPLES / "game.json").read_bytes())
    (tmp_path / "p.toml").write_text("[enums]\n")
    (tmp_path / "c.toml").write_text('fail-on = "error"\n')
    (tmp_path / "b.json").write_text('{"version": 1, "findings": []}\n')
    (tmp_path / "pyproject.toml").write_text('[tool.quizkit]\nfail-on = "error"\n')
    (tmp_path / "out").mkdir()
    shutil.copyfile(tmp_path / "db.duckdb", tmp_path / "out" / "packages.parquet")
    part = next((tmp_path / "ds" / "packages").iterdir())
    (tmp_path / "part").symlink_to(part)
    return tmp_path


#: (command line, the output and the input the message names), run in the work directory.
CASES = {
    "summary -o its database": (["summary", "all", "--db", "db.duckdb", "-o", "db.duckdb"],
                                "db.duckdb", "db.duckdb"),
    "summary -o in its dataset": (["summary", "sizes", "--parquet", "ds", "-o", "part"],
                                  "part", "ds"),
    "summary charts into its dataset": (["summary", "charts", "--parquet", "ds", "--out", "ds"],
                                        "ds/", "ds"),
    "validate -o its profile": (["validate", "u.json", "--profile", "p.toml", "-o", "p.toml"],
                                "p.toml", "p.toml"),
    "validate -o its config": (["validate", "u.json", "--config", "c.toml", "-o", "c.toml"],
                               "c.toml", "c.toml"),
    "validate -o its baseline": (["validate", "u.json", "--baseline", "b.json", "-o", "b.json"],
                                 "b.json", "b.json"),
    "--write-baseline over the profile": (["validate", "u.json", "--profile", "p.toml",
                                           "--write-baseline", "p.toml"], "p.toml", "p.toml"),
    "--report over the profile": (["validate", "u.json", "--profile", "p.toml", "--report",
                                   "sarif:p.toml"], "p.toml", "p.toml"),
    "-o the config found": (["validate", "u.json", "-o", "pyproject.toml"],
                            "pyproject.toml", "pyproject.toml"),
    "summary of files -o its config": (["summary", "sizes", "u.json", "--config", "c.toml",
                                        "-o", "c.toml"], "c.toml", "c.toml"),
    "summary of files -o its baseline": (["summary", "overview", "u.json", "--baseline",
                                          "b.json", "-o", "b.json"], "b.json", "b.json"),
    "enums infer -o its config": (["enums", "infer", "u.json", "--config", "c.toml", "-o",
                                   "c.toml"], "c.toml", "c.toml"),
    "enums infer -o the config found": (["enums", "infer", "u.json", "-o", "pyproject.toml"],
                                        "pyproject.toml", "pyproject.toml"),
    "export over its database": (["export", "--db", "out/packages.parquet", "--parquet", "out"],
                                 "out/packages.parquet", "out/packages.parquet"),
    "load an export inside the dataset": (["load", "ds/../u.json", "--parquet", "."],
                                          "u.json", "."),
    "load with a config inside the dataset": (["load", "u.json", "--parquet", "ds",
                                               "--config", "ds/c.toml"], "ds/c.toml", "ds"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_output_on_an_input_is_refused_before_any_work(work: Path, case: str) -> None:
    args, output, read = CASES[case]
    if "ds/c.toml" in args:
        (work / "ds" / "c.toml").write_text('fail-on = "error"\n')
    before = snapshot(work)
    line = one_line_error(quizkit(*args, cwd=work))
    assert output in line and read in line, line
    assert snapshot(work) == before


def test_the_same_outputs_elsewhere_are_written(work: Path) -> None:
    """The refusals above are about the inputs, not the names: other runs write there."""
    for args in (["summary", "all", "--db", "db.duckdb", "-o", "summary.txt"],
                 ["summary", "sizes", "--db", "db.duckdb", "-o", "part"],
                 ["validate", "u.json", "-o", "p.toml"],
                 ["export", "--db", "db.duckdb", "--parquet", "out"]):
        done = quizkit(*args, cwd=work)
        assert done.returncode == 0, (args, done.stderr)
    assert (work / "out" / "packages.parquet").read_bytes()[:4] == b"PAR1"
