"""The docs that are generated from the code are in step with it."""

from __future__ import annotations

from quizkit.docgen import cli_reference
from tests.conftest import ROOT


def test_cli_reference_is_current():
    current = (ROOT / "docs/cli.md").read_text()
    assert current == cli_reference(), "run: python -m quizkit.docgen cli > docs/cli.md"


def _readme_sh_blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return [block.split("```")[0].strip() for block in readme.split("```sh\n")[1:]]


def test_readme_gives_the_two_commands():
    """They work in a fresh shell: each names the environment it runs in (nothing needs an
    activated one); .ci/run runs them as written, and the ajv-cli install the README gives."""
    setup, tests, ajv = _readme_sh_blocks()[:3]
    assert ". .venv/bin/activate" not in setup
    assert ".venv/bin/pip install -e '.[test]'" in setup
    assert ".venv/bin/quizkit validate samples/" in setup
    assert tests == ".venv/bin/pytest"
    assert ajv.startswith("npm install") and "--prefix .tools ajv-cli" in ajv
    ci = (ROOT / ".ci/run").read_text().splitlines()
    assert {setup, tests, ajv} <= set(ci)


def _readme_commands() -> list[list[str]]:
    """The `quizkit ...` command lines of the README's code blocks, split into words."""
    import shlex

    readme = (ROOT / "README.md").read_text()
    lines = []
    for block in readme.split("```")[1::2]:
        for line in block.splitlines():
            line = line.split(" #", 1)[0].split("&&")[-1].split("|")[0].strip()
            if line.startswith("cat "):
                continue
            if line.startswith("quizkit "):
                lines.append(shlex.split(line))
    return lines


def test_readme_commands_and_options_exist():
    import click

    from quizkit.cli import main

    commands = _readme_commands()
    assert len(commands) > 15
    for words in commands:
        command: click.Command = main
        ctx = click.Context(main)
        rest = words[1:]
        while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
            sub = command.get_command(ctx, rest[0])
            if sub is None:
                break
            command, rest = sub, rest[1:]
        assert command is not main, words
        known = {opt for p in command.params for opt in getattr(p, "opts", [])}
        for word in rest:
            if word.startswith("--"):
                assert word.split("=")[0] in known, (words, word)
