"""Every command that loads exports into DuckDB takes ``--memory-limit`` and ``--threads``
alike, and a load that outgrows the memory limit is one line saying so and exit 2 (a limit of
the run, as a full disk), whichever command met it: never a traceback, never exit 3 (that is
for an input that cannot be read)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, console_script

GAME = str(SAMPLES / "game.json")
PACKAGE = str(SAMPLES / "package-full.json")


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "quizkit.toml"
    path.write_text('[[checks]]\ncode = "X001"\nname = "packages"\n'
                    'metric = "select count(*) from packages"\nwarn-if = "> 5"\n')
    return str(path)


def commands(tmp_path: Path, config: str) -> dict[str, list[str]]:
    """Each command that loads, given files to load."""
    return {
        "load": ["load", PACKAGE, "--db", str(tmp_path / "t.duckdb")],
        "check": ["check", "--config", config, PACKAGE],
        "diff": ["diff", GAME, PACKAGE],
        "query": ["query", "SELECT count(*) FROM packages", PACKAGE],
        "summary": ["summary", "overview", PACKAGE],
        "charts": ["summary", "charts", PACKAGE, "--out", str(tmp_path / "charts")],
    }


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_script(), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", ["load", "check", "diff", "query", "summary", "charts"])
def test_a_load_past_the_memory_limit_is_one_line_and_exit_2(tmp_path: Path, config: str,
                                                              name: str) -> None:
    done = run([*commands(tmp_path, config)[name], "--memory-limit", "1MB"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("quizkit: error: ") and "give a larger --memory-limit" in line
    assert not (tmp_path / "t.duckdb").exists()


@pytest.mark.parametrize("name", ["load", "check", "diff", "query", "summary", "charts"])
def test_the_options_are_bounded_alike(tmp_path: Path, config: str, name: str) -> None:
    args = commands(tmp_path, config)[name]
    for bad in (["--threads", "0"], ["--threads", "257"], ["--memory-limit", "lots"]):
        done = run([*args, *bad], tmp_path)
        assert done.returncode == 2, (bad, done.stderr)
        assert bad[0] in done.stderr and "Traceback" not in done.stderr
    done = run([*args, "--memory-limit", "300MB", "--threads", "1"], tmp_path)
    assert done.returncode in (0, 1), done.stderr
