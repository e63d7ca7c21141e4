"""The examples of docs/reports.md are the reports of a real run, not prose.

The page shows one input file and, under each format's heading, what quizkit writes for it;
this test writes that file, runs ``quizkit validate exports/`` in each format and compares:
text formats line for line, JSON formats as data, the Markdown summary line by line (the page
leaves some of its tables out).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs" / "reports.md"
INPUT = re.compile(r"<!-- example input: (?P<path>\S+) -->\n```json\n(?P<body>.*?)^```",
                   re.M | re.S)
#: format: (language of its example block, how it is compared)
EXAMPLES = {"text": ("text", "exact"), "concise": ("text", "exact"), "json": ("json", "data"),
            "jsonl": ("json", "lines"), "github": ("text", "exact"),
            "markdown": ("markdown", "some lines"), "gitlab": ("json", "data")}


def example(fmt: str, lang: str) -> str:
    """The first ``lang`` block under the heading of ``fmt``."""
    lines = DOCS.read_text(encoding="utf-8").splitlines(keepends=True)
    heading = f"## `{fmt}`\n"
    assert heading in lines, f"no section for {fmt}"
    section, fenced = [], False
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("## ") and not fenced:  # the next section (not a line of a block)
            break
        fenced ^= line.startswith("```")
        section.append(line)
    block = re.search(rf"^```{lang}\n(.*?)^```", "".join(section), re.M | re.S)
    assert block, f"no {lang} example under {fmt}"
    return block.group(1)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("docs")
    found = INPUT.search(DOCS.read_text(encoding="utf-8"))
    assert found, "docs/reports.md shows no example input"
    target = where / found.group("path")
    target.parent.mkdir(parents=True)
    target.write_text(found.group("body"), encoding="utf-8")
    return where


@pytest.mark.parametrize("fmt", EXAMPLES)
def test_each_example_is_what_quizkit_writes(workspace: Path, fmt: str) -> None:
    lang, how = EXAMPLES[fmt]
    shown = example(fmt, lang)
    proc = subprocess.run([sys.executable, "-m", "quizkit", "validate", "exports/", "--format",
                           fmt, "-q", "--color", "never"], cwd=workspace, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr  # the example has an error
    out = proc.stdout
    if how == "exact":
        assert shown == out
    elif how == "data":
        assert json.loads(shown) == json.loads(out)
    elif how == "lines":
        lines = [json.loads(line) for line in out.splitlines()]
        assert all(json.loads(line) in lines for line in shown.splitlines())
    else:
        lines = out.splitlines()
        assert all(line in lines for line in shown.splitlines() if line), shown


def test_the_comparison_can_fail(workspace: Path) -> None:
    """A changed word in an example is caught."""
    shown = example("text", "text").replace("unknown field", "unknwon field")
    out = subprocess.run([sys.executable, "-m", "quizkit", "validate", "exports/", "-q"],
                         cwd=workspace, capture_output=True, text=True, timeout=120).stdout
    assert shown != out
