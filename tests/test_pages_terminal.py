"""The text report for people: grouped by file, coloured on a terminal, --show, the summary line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, on_a_terminal

INVALID = ROOT / "samples" / "invalid"
ESC = "\x1b["


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "quizkit", "validate", *args, "-q"],
                          capture_output=True, text=True, cwd=cwd, env=environ, timeout=120)


def json_findings(*args: str, cwd: Path | None = None) -> list[dict]:
    return json.loads(run(*args, "--format", "json", cwd=cwd).stdout)["findings"]


def test_text_is_grouped_by_file_and_ends_with_a_summary() -> None:
    out = run(str(INVALID)).stdout
    assert ESC not in out  # not a terminal: no colour
    findings = json_findings(str(INVALID))
    blocks = out.strip().split("\n\n")
    *groups, summary = blocks
    headers = [g.splitlines()[0] for g in groups]
    # every file with findings has a block; its lines are the findings of that file
    assert set(headers) == {f["path"] for f in findings}
    listed = sum(len(g.splitlines()) - 1 for g in groups)
    assert listed == len(findings)
    for g in groups:
        path = g.splitlines()[0]
        for line in g.splitlines()[1:]:
            assert line.startswith("  ") and line.split()[1] in ("error", "warning", "info")
        mine = [f for f in findings if f["path"] == path]
        assert any(f"{f['line']}:{f['column']}" == g.splitlines()[1].split()[0] for f in mine)
    counts = json.loads(run(str(INVALID), "--format", "json").stdout)["summary"]
    unreadable = f" ({counts['unreadable']} unreadable)" if counts["unreadable"] else ""
    assert summary == (f"{counts['files']} files{unreadable}, {counts['documents']} documents: "
                       f"{counts['errors']} errors, {counts['warnings']} warnings, "
                       f"{counts['infos']} infos")


def test_show_hides_findings_below_a_level_but_counts_them() -> None:
    findings = json_findings(str(INVALID))
    below = sum(f["severity"] != "error" for f in findings)
    assert below > 0
    shown = run(str(INVALID), "--show", "error")
    lines = [line for line in shown.stdout.splitlines() if line.startswith("  ")]
    assert len(lines) == len(findings) - below
    assert all(line.split()[1] == "error" for line in lines)
    assert f"({below} findings below error not shown)" in shown.stdout.splitlines()[-1]
    # --show does not change the exit code; --fail-on does
    warnings_only = ROOT / "samples" / "invalid" / "game-question-with-position.json"
    assert run(str(warnings_only), "--show", "error").returncode == 0
    assert run(str(warnings_only), "--show", "error", "--fail-on", "warning").returncode == 1


def test_color_always_never_and_no_color() -> None:
    always = run(str(INVALID), "--color", "always").stdout
    assert f"{ESC}1;31merror" in always and f"{ESC}33mwarning" in always
    assert ESC not in run(str(INVALID), "--color", "never").stdout
    # explicit always wins over NO_COLOR (it is a request, NO_COLOR a default)
    assert ESC in run(str(INVALID), "--color", "always", env={"NO_COLOR": "1"}).stdout


def _on_terminal(*args: str, env: dict[str, str]) -> str:
    """Run validate on a pseudo-terminal and return what it printed."""
    code, out = on_a_terminal("validate", *args, "-q", env={"NO_COLOR": None, **env})
    assert code in (0, 1), out
    return out.decode()


def test_auto_colours_a_terminal_unless_no_color() -> None:
    sample = str(INVALID / "banner-updated-date-only.json")
    assert f"{ESC}1;31merror" in _on_terminal(sample, env={})
    assert ESC not in _on_terminal(sample, env={"NO_COLOR": "1"})


def test_one_of_each_is_singular(tmp_path: Path) -> None:
    doc = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc["current"] = "yes"  # one error
    doc["colour"] = "red"  # one warning
    (tmp_path / "one.create.json").write_text(json.dumps(doc, indent=2))
    report = json.loads(run(str(tmp_path), "--format", "json").stdout)["summary"]
    assert (report["files"], report["documents"], report["errors"], report["warnings"]) == (
        1, 1, 1, 1)
    assert run(str(tmp_path)).stdout.splitlines()[-1] == (
        "1 file, 1 document: 1 error, 1 warning, 0 infos")
    shown = run(str(tmp_path), "--show", "error").stdout.splitlines()[-1]
    assert shown == "1 file, 1 document: 1 error, 1 warning, 0 infos (1 finding below error " \
                    "not shown)"


def test_control_characters_from_inputs_never_reach_the_terminal(tmp_path: Path) -> None:
    """A key with escape sequences (a window title, a colour) is shown escaped, on a terminal
    and in a pipe, in the text and concise reports."""
    doc = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc["x\x1b]0;pwned\x07\x1b[31mred"] = 1
    (tmp_path / "evil.create.json").write_text(json.dumps(doc))
    for fmt in ("text", "concise"):
        for out in (_on_terminal(str(tmp_path), "--format", fmt, env={}),
                    run(str(tmp_path), "--format", fmt).stdout):
            assert "\x07" not in out and "\x1b]" not in out and "\x1b[31m" not in out
            assert "/x\\x1b]0;pwned\\x07\\x1b[31mred" in out  # the pointer, escaped


def test_control_characters_from_inputs_never_reach_a_ci_log(tmp_path: Path) -> None:
    """GitHub's log viewer and Markdown summaries show what they are given: a key's escape
    sequences are escaped there too (the machine reports keep the exact pointer)."""
    doc = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc["x\x1b]0;pwned\x07\x1b[31mred"] = 1
    (tmp_path / "evil.create.json").write_text(json.dumps(doc))
    for fmt in ("github", "markdown"):
        out = run(str(tmp_path), "--format", fmt).stdout
        assert "\x07" not in out and "\x1b" not in out, fmt
        assert "x\\x1b]0;pwned\\x07" in out, fmt
    exact = json.loads(run(str(tmp_path), "--format", "json").stdout)
    assert any(f["pointer"] == "/x\x1b]0;pwned\x07\x1b[31mred" for f in exact["findings"])
