"""Every TOML, JSON and shell snippet of README.md and docs/ is parsed or run.

TOML and JSON blocks must parse; a TOML block that is a config file (its first line names
``pyproject.toml`` or ``quizkit.toml``) or an enum profile (``[enums]``/``[service]``) must also
be accepted by quizkit. Shell blocks (``sh``, and the ``$`` lines of ``console`` transcripts) run
in a fresh directory holding the samples (``samples/``, ``dump/``, ``exports/``, ``export.json``,
``schemas/``), block after block in the order of the page, each command within a time bound.
A ``sh`` command must not end in a usage error (exit 2) or an unknown command; no command may
print a traceback or an unknown-option error. A block that cannot run here carries
``<!-- snippet: not run (reason) -->`` on the line before it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES, valid_samples

from quizkit import api

GENERATED = {"cli.md", "rules.md"}  # generated from the code and checked by test_docs.py
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                     if p.name not in GENERATED)]
NOT_RUN = re.compile(r"<!-- snippet: not run \((?P<why>[^)]+)\) -->\s*$")
SHELL = {"sh", "bash", "shell", "console"}
BROKEN = ("Traceback (most recent call last)", "No such option", "No such command",
          "command not found", "Got unexpected extra argument")
COMMAND_TIMEOUT = 120
#: ``pip install quizkit`` or ``pip install 'quizkit[extra]'``: from an index, where it is not.
UNPUBLISHED = re.compile(r"pip install (-U |--upgrade )?(?P<q>['\"]?)quizkit"
                         r"(\[[\w,-]*\])?(?P=q)(\s|$)")


def blocks(page: Path) -> list[tuple[str, str, str | None, int]]:
    """(language, body, reason it is not run or None, line) of each fenced block."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", text, re.M | re.S):
        line = text.count("\n", 0, m.start()) + 1
        previous = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = NOT_RUN.search(previous)
        out.append((m.group("lang"), m.group("body"), marker.group("why") if marker else None,
                    line))
    return out


def commands(lang: str, body: str) -> list[str]:
    """The command lines of a shell block (continuations joined; ``$`` lines of a transcript)."""
    lines = body.splitlines()
    if lang == "console":
        picked, keep = [], False
        for line in lines:
            if line.startswith("$ "):
                picked.append(line[2:])
                keep = line.endswith("\\")
            elif keep:
                picked.append(line)
                keep = line.endswith("\\")
        lines = picked
    joined = "\n".join(lines).replace("\\\n", " ")
    return [c for c in (line.strip() for line in joined.splitlines())
            if c and not c.startswith("#")]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLES, tmp_path / "samples")
    shutil.copytree(ROOT / "quizkit" / "schemas", tmp_path / "schemas")
    for name in ("dump", "exports"):
        (tmp_path / name).mkdir()
        for sample in valid_samples():
            shutil.copy(sample, tmp_path / name / sample.name)
    shutil.copy(SAMPLES / "package-full.json", tmp_path / "export.json")
    return tmp_path


def check_toml(body: str, where: str, workspace: Path) -> None:
    data = tomllib.loads(body)
    first = body.splitlines()[0].lstrip("# ").strip() if body.startswith("#") else ""
    if first in ("pyproject.toml", "quizkit.toml"):
        (workspace / first).write_text(body)
        assert api.settings(workspace / first) is not None, where
    elif set(data) & {"enums", "service"}:
        (workspace / "profile.toml").write_text(body)
        assert api.read_profile_file(workspace / "profile.toml") is not None, where


def run_shell(lang: str, body: str, where: str, workspace: Path) -> None:
    env = {**os.environ, "CI": "true", "NO_COLOR": "1",
           "GITHUB_STEP_SUMMARY": str(workspace / "step-summary.md"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in commands(lang, body):
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=workspace,
                              env=env, capture_output=True, timeout=COMMAND_TIMEOUT)
        err = done.stderr.decode(errors="replace")
        assert not any(b in err for b in BROKEN), f"{where}: {command}\n{err}"
        if lang != "console":
            assert done.returncode not in (2, 126, 127), f"{where}: {command} exited " \
                f"{done.returncode}\n{err}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_snippets_parse_and_run(page: Path, workspace: Path) -> None:
    for lang, body, not_run, line in blocks(page):
        where = f"{page.name}:{line}"
        if not_run is not None:
            assert lang in SHELL, f"{where}: only shell blocks may be left unrun"
            continue
        if lang == "toml":
            check_toml(body, where, workspace)
        elif lang == "json":
            json.loads(body)
        elif lang in SHELL:
            run_shell(lang, body, where, workspace)


def test_the_snippet_checks_can_fail(workspace: Path) -> None:
    with pytest.raises(AssertionError, match="No such option"):
        run_shell("sh", "quizkit validate --no-such-option dump/", "x", workspace)
    with pytest.raises(AssertionError, match="exited 2"):
        run_shell("sh", "quizkit validate --select NOPE dump/", "x", workspace)
    with pytest.raises(tomllib.TOMLDecodeError):
        check_toml('[service]\nentity = {a = "A",\n  b = "B"}\n', "x", workspace)


def test_docs_do_not_install_an_unpublished_package() -> None:
    """quizkit is not on PyPI yet: recipes install it from a repository or a path."""
    for page in [*PAGES, ROOT / "docs" / "cli.md"]:
        for number, line in enumerate(page.read_text().splitlines(), start=1):
            assert not UNPUBLISHED.search(line), \
                f"{page.name}:{number}: {line}"
