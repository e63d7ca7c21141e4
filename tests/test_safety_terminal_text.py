"""Text from the inputs never drives a terminal: control characters of keys and values (C0,
C1 = U+0080..U+009F, DEL) come out escaped in every output meant for people — the text and
concise reports, query and summary tables — through one helper
(quizkit.catalog.display.printable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from safety_cli import SAMPLES, quizkit

#: A window title, a screen clear and a colour, written with ESC (C0), CSI (C1) and DEL.
HOSTILE = "x\x1b]0;pwned\x07\u009b2J\x1b[31m\x7f\u0085y"


def drives_a_terminal(text: str) -> list[str]:
    """The characters of ``text`` a terminal would act on (line feeds aside)."""
    return [ch for ch in text if ch != "\n" and (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F)]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    doc = json.loads((SAMPLES / "package-full.json").read_text())
    doc[f"key{HOSTILE}"] = 1  # an unknown-field finding naming the key
    doc["name"] = f"name{HOSTILE}"
    path = tmp_path_factory.mktemp("terminal") / "package.json"
    path.write_text(json.dumps(doc, ensure_ascii=True))  # the JSON text itself is ASCII
    return path


@pytest.mark.parametrize("args", [
    ["validate", "--format", "text", "--color", "always"],
    ["validate", "--format", "concise"],
    ["validate", "--format", "markdown"],
    ["query", "SELECT name, 1 AS n FROM packages"],
    ["query", "SELECT name AS \"col\x1b[2J\u009b\" FROM packages"],
    ["query", "SELECT name FROM packages", "--format", "markdown"],
    ["summary", "all"],
    ["summary", "sizes", "--format", "markdown"],
], ids=["text", "concise", "markdown", "query", "query-column", "query-markdown", "summary",
        "summary-markdown"])
def test_control_characters_from_inputs_come_out_escaped(hostile: Path,
                                                         args: list[str]) -> None:
    done = quizkit(*args[:2], hostile, *args[2:]) if args[0] == "query" else \
        quizkit(*args, hostile)
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    if "--color" in args:  # the report's own colours are the only ESC it writes
        out = out.replace("\x1b[0m", "")
        for code in ("1;31", "33", "36", "1;4", "2"):
            out = out.replace(f"\x1b[{code}m", "")
    assert "pwned" in out or "name" in out
    assert drives_a_terminal(out) == []
    assert drives_a_terminal(done.stderr) == []
