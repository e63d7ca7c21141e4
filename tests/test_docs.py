"""The docs that are generated from the code are in step with it."""

from __future__ import annotations

from quizkit.docgen import cli_reference
from tests.conftest import ROOT


def test_cli_reference_is_current():
    current = (ROOT / "docs/cli.md").read_text()
    assert current == cli_reference(), "run: python -m quizkit.docgen cli > docs/cli.md"


def test_readme_gives_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = readme.split("```sh\n")
    setup, tests = blocks[1].split("```")[0].strip(), blocks[2].split("```")[0].strip()
    assert "pip install -e '.[test]'" in setup and "quizkit validate samples/" in setup
    assert tests == "pytest"
    ci = (ROOT / ".ci/run").read_text()
    assert "\npytest\n" in ci and "pip install -q -e '.[test]'" in ci
