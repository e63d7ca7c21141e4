"""Every snippet of README.md and docs/ is parsed or run, whatever its language.

TOML, JSON, YAML and XML blocks must parse; a TOML block that is a config file (its first line
names ``pyproject.toml`` or ``quizkit.toml``) or an enum profile (``[enums]``/``[service]``)
must also be accepted by quizkit. Shell blocks (``sh``, and the ``$`` lines of ``console``
transcripts) run in a fresh directory holding the samples (``samples/``, ``dump/``,
``exports/``, ``export.json``, ``schemas/``), block after block in the order of the page, each
command within a time bound. A ``sh`` command must not end in a usage error (exit 2) or an
unknown command; no command may print a traceback or an unknown-option error. A ``python``
block runs as a script there and must exit 0; an ``sql`` block runs in DuckDB there. CI
recipes run too: the commands of a YAML workflow's ``run`` steps (GitHub Actions) and
``script`` lists (GitLab CI), and a Jenkinsfile's ``sh '...'`` steps, except the install step,
which must install from a repository or a path (quizkit is not on PyPI); a pre-commit config
names hooks that ``.pre-commit-hooks.yaml`` defines. ``text`` and ``markdown`` blocks show
output to the reader and are not checked here. A block in any other language fails the test:
give it a check. A block that cannot run here carries ``<!-- snippet: not run (reason) -->``
on the line before it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from conftest import ROOT, SAMPLES, valid_samples

from quizkit import api

GENERATED = {"cli.md", "rules.md"}  # generated from the code and checked by test_docs.py
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                     if p.name not in GENERATED)]
NOT_RUN = re.compile(r"<!-- snippet: not run \((?P<why>[^)]+)\) -->\s*$")
SHELL = {"sh", "bash", "shell", "console"}
#: Blocks that show the reader some output; nothing to parse or run.
SHOWN = {"text", "markdown"}
#: Languages of blocks that run, and so may be marked not run.
RUNNABLE = SHELL | {"python", "sql", "yaml", "groovy"}
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


def run_sql(body: str, where: str, workspace: Path) -> None:
    """An SQL block runs in DuckDB, in the workspace (where earlier blocks made their files)."""
    cwd = os.getcwd()
    os.chdir(workspace)
    try:
        with duckdb.connect() as con:
            con.execute(body).fetchall()
    except duckdb.Error as exc:
        raise AssertionError(f"{where}: {exc}") from None
    finally:
        os.chdir(cwd)


def recipe_commands(data: Any) -> list[str]:
    """The shell commands of a CI recipe: GitHub Actions ``run`` steps, GitLab ``script``."""
    out: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "run" and isinstance(value, str):
                out.append(value)
            elif key == "script" and isinstance(value, list):
                out.extend(v for v in value if isinstance(v, str))
            else:
                out.extend(recipe_commands(value))
    elif isinstance(data, list):
        for value in data:
            out.extend(recipe_commands(value))
    return out


def run_recipe(commands_: list[str], where: str, workspace: Path) -> None:
    assert commands_, f"{where}: a recipe without commands"
    for command in commands_:
        if command.startswith("pip install"):
            assert "git+" in command or " ./" in command or " -e " in command, \
                f"{where}: {command}: install quizkit from its repository or a path"
            for ref in re.findall(r"\.git@([^\s\"']+)", command):
                check_ref(ref, where)
            continue
        run_shell("sh", command, where, workspace)


def check_ref(ref: str, where: str) -> None:
    """A git ref a recipe installs from must exist: a version tag only once it is tagged."""
    if re.fullmatch(r"v?\d+(\.\d+)+", ref):
        tags = subprocess.run(["git", "tag", "--list", ref], cwd=ROOT, capture_output=True,
                              text=True).stdout.split()
        assert ref in tags, f"{where}: the tag {ref} does not exist (pin a branch or commit)"


def check_yaml(body: str, where: str, workspace: Path) -> None:
    data = yaml.safe_load(body)
    if isinstance(data, dict) and "repos" in data:  # a .pre-commit-config.yaml
        hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
        used = {h["id"] for repo in data["repos"] for h in repo["hooks"]}
        for repo in data["repos"]:
            check_ref(str(repo.get("rev", "")), where)
        assert used <= hooks, f"{where}: no such pre-commit hook: {used - hooks}"
        return
    run_recipe(recipe_commands(data), where, workspace)


def run_groovy(body: str, where: str, workspace: Path) -> None:
    """A Jenkinsfile's ``sh '...'`` steps."""
    run_recipe(re.findall(r"""\bsh\s+'([^']*)'""", body), where, workspace)


def run_python(body: str, where: str, workspace: Path) -> None:
    done = subprocess.run([sys.executable, "-c", body], cwd=workspace, capture_output=True,
                          timeout=COMMAND_TIMEOUT, env={**os.environ, "CI": "true"})
    assert done.returncode == 0, f"{where}:\n{done.stderr.decode(errors='replace')}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_snippets_parse_and_run(page: Path, workspace: Path) -> None:
    for lang, body, not_run, line in blocks(page):
        where = f"{page.name}:{line}"
        if not_run is not None:
            assert lang in RUNNABLE, f"{where}: only blocks that run may be left unrun"
            continue
        check_block(lang, body, where, workspace)


def check_block(lang: str, body: str, where: str, workspace: Path) -> None:
    if lang == "toml":
        check_toml(body, where, workspace)
    elif lang == "json":
        json.loads(body)
    elif lang == "yaml":
        check_yaml(body, where, workspace)
    elif lang == "xml":
        ET.fromstring(body)
    elif lang in SHELL:
        run_shell(lang, body, where, workspace)
    elif lang == "python":
        run_python(body, where, workspace)
    elif lang == "sql":
        run_sql(body, where, workspace)
    elif lang == "groovy":
        run_groovy(body, where, workspace)
    else:
        assert lang in SHOWN, f"{where}: a ```{lang or '(no language)'} block: say its " \
            "language and give it a check in tests/test_docs_snippets.py"


def test_the_snippet_checks_can_fail(workspace: Path) -> None:
    with pytest.raises(AssertionError, match="No such option"):
        run_shell("sh", "quizkit validate --no-such-option dump/", "x", workspace)
    with pytest.raises(AssertionError, match="exited 2"):
        run_shell("sh", "quizkit validate --select NOPE dump/", "x", workspace)
    with pytest.raises(tomllib.TOMLDecodeError):
        check_toml('[service]\nentity = {a = "A",\n  b = "B"}\n', "x", workspace)
    with pytest.raises(AssertionError, match="install quizkit from its repository"):
        check_yaml("jobs:\n  a:\n    steps:\n      - run: pip install quizkit\n", "x",
                   workspace)
    with pytest.raises(AssertionError, match="No such option"):
        check_yaml("job:\n  script:\n    - quizkit validate --nope dump/\n", "x", workspace)
    with pytest.raises(AssertionError, match="no such pre-commit hook"):
        check_yaml("repos:\n  - repo: x\n    hooks:\n      - id: nope\n", "x", workspace)
    with pytest.raises(AssertionError, match="exited 2"):
        run_groovy("sh 'quizkit validate --select NOPE dump/'", "x", workspace)
    with pytest.raises(AssertionError, match="x: "):
        run_sql("SELECT * FROM no_such_table", "x", workspace)
    with pytest.raises(ET.ParseError):
        check_block("xml", "<a><b></a>", "x", workspace)
    with pytest.raises(AssertionError, match="give it a check"):
        check_block("ini", "[x]\n", "x", workspace)


def test_docs_do_not_install_an_unpublished_package() -> None:
    """quizkit is not on PyPI yet: recipes install it from a repository or a path."""
    for page in [*PAGES, ROOT / "docs" / "cli.md"]:
        for number, line in enumerate(page.read_text().splitlines(), start=1):
            assert not UNPUBLISHED.search(line), \
                f"{page.name}:{number}: {line}"
