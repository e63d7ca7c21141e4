"""Configuration is visible and found only where the user's own files are: ``-v`` and the head
of the text report name the config file in use; discovery stops at the repository root and
the home directory, and never reads a config file (or a directory) owned by another user;
``--isolated`` turns discovery off. Through the real CLI, in real directories; the owners are
real (``os.chown`` to ``nobody``), so those tests need root."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent.parent / "samples"
SILENCE = 'exclude = ["*"]\n'  # a config that would leave nothing to check


def quizkit(*args: str, cwd: Path, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quizkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": "/nonexistent", **(env or {})})


def tree(root: Path) -> Path:
    """``root/parent/quizkit.toml`` (silencing) and ``root/parent/project/exports/``; the
    project directory."""
    project = root / "parent" / "project"
    (project / "exports").mkdir(parents=True)
    shutil.copy(SAMPLES / "game.json", project / "exports" / "game.json")
    (root / "parent" / "quizkit.toml").write_text(SILENCE)
    return project


def nobody() -> int:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("needs root to give files to another user")
        pytest.skip("needs root to give files to another user")
    return pwd.getpwnam("nobody").pw_uid


def checked_one_file(done: subprocess.CompletedProcess[str]) -> bool:
    return done.returncode == 0 and "1 file, 1 document" in done.stdout


def test_the_config_in_use_is_named(tmp_path: Path) -> None:
    project = tree(tmp_path)
    config = tmp_path / "parent" / "quizkit.toml"
    done = quizkit("validate", "exports", "-v", cwd=project)
    assert f"config: {config}" in done.stderr
    assert done.stdout.startswith(f"config: {config}\n")
    assert "0 files" in done.stdout  # it is the config that excluded everything
    (project / "quizkit.toml").write_text("")
    done = quizkit("validate", "exports", "-v", cwd=project)
    assert f"config: {project / 'quizkit.toml'}" in done.stderr and checked_one_file(done)


def test_isolated_uses_no_config(tmp_path: Path) -> None:
    project = tree(tmp_path)
    done = quizkit("validate", "exports", "--isolated", "-v", cwd=project)
    assert checked_one_file(done) and "config: none" in done.stderr
    assert not done.stdout.startswith("config:")
    for args in (["load", "exports", "--db", "x.duckdb", "--isolated"],
                 ["query", "SELECT count(*) FROM games", "exports", "--isolated"]):
        assert quizkit(*args, cwd=project).returncode == 0
    done = quizkit("validate", "exports", "--isolated", "--config",
                   str(tmp_path / "parent" / "quizkit.toml"), cwd=project)
    assert done.returncode == 2 and "--isolated" in done.stderr


def test_discovery_stops_at_the_repository_root(tmp_path: Path) -> None:
    project = tree(tmp_path)
    (project / ".git").mkdir()
    done = quizkit("validate", ".", "-v", cwd=project / "exports")
    assert checked_one_file(done) and "config: none" in done.stderr
    (project / "quizkit.toml").write_text("")  # the repository's own is still found
    done = quizkit("validate", ".", "-v", cwd=project / "exports")
    assert f"config: {project / 'quizkit.toml'}" in done.stderr


def test_discovery_stops_at_the_home_directory(tmp_path: Path) -> None:
    project = tree(tmp_path)
    done = quizkit("validate", "exports", "-v", cwd=project, env={"HOME": str(project)})
    assert checked_one_file(done) and "config: none" in done.stderr


def test_a_directory_owned_by_another_user_is_not_searched(tmp_path: Path) -> None:
    uid = nobody()
    project = tree(tmp_path)
    os.chown(tmp_path / "parent", uid, -1)
    os.chown(tmp_path / "parent" / "quizkit.toml", uid, -1)
    done = quizkit("validate", "exports", "-v", cwd=project)
    assert checked_one_file(done), done.stdout + done.stderr
    assert "config: none" in done.stderr


def test_a_config_file_owned_by_another_user_is_not_read(tmp_path: Path) -> None:
    uid = nobody()
    project = tree(tmp_path)
    os.chown(tmp_path / "parent" / "quizkit.toml", uid, -1)  # in a directory of ours
    done = quizkit("validate", "exports", "-v", cwd=project)
    assert checked_one_file(done), done.stdout + done.stderr
    assert "config: none" in done.stderr
    # named with --config, it is the user's choice and is read
    done = quizkit("validate", "exports", "--config",
                   str(tmp_path / "parent" / "quizkit.toml"), cwd=project)
    assert "0 files" in done.stdout
