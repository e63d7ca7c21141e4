"""No Python traceback reaches a user from any command: every command that
``quizkit --help`` lists runs with hostile arguments (bad paths, a directory as output, a
device as input or output, a missing or foreign database, impossible values), and with its
standard output on a full device."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from safety_cli import SAMPLES, device_like, quizkit

GAME = str(SAMPLES / "game.json")


def _commands(*group: str) -> list[tuple[str, ...]]:
    """Every leaf command under ``quizkit GROUP... --help``."""
    text = quizkit(*group, "--help").stdout
    listed = re.findall(r"^  (\S+)\s", text.split("Commands:", 1)[1], re.M) \
        if "Commands:" in text else []
    if not listed:
        return [tuple(group)]
    return [leaf for name in listed for leaf in _commands(*group, name)]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Hostile things on disk: a directory, a JSON file posing as a database, devices."""
    root = tmp_path_factory.mktemp("hostile")
    (root / "dir").mkdir()
    (root / "notes.json").write_text('{"keep": true}')
    (root / "file").write_text("not a directory")
    return {"dir": str(root / "dir"), "json": str(root / "notes.json"),
            "file": str(root / "file"), "missing": str(root / "no" / "such"),
            "full": str(device_like(root, "/dev/full")),
            "null": str(device_like(root, "/dev/null")), "zero": "/dev/zero",
            "out": str(root / "out")}


#: Hostile argument lists of each command ({dir}, {json}, ... from the ``place`` fixture).
HOSTILE: dict[tuple[str, ...], list[list[str]]] = {
    ("validate",): [
        ["{zero}"], ["{missing}"], [GAME, "-o", "{dir}"], [GAME, "-o", "{missing}/r"],
        [GAME, "--report", "sarif:{full}"], [GAME, "--write-baseline", "{dir}"],
        [GAME, "--baseline", "{json}"], [GAME, "--config", "{zero}"],
        [GAME, "--profile", "{dir}"], [GAME, "-o", GAME], [GAME, "--report", "nope:{out}"],
        [GAME, "--jobs", "0"], [GAME, "--kind", "banana"],
        [GAME, "--write-valid", "{out}"], [GAME, "--history", "{json}"],
    ],
    ("check",): [
        ["{zero}"], ["{missing}"], [GAME, "--db", "{json}"], [GAME, "-o", GAME],
        [GAME, "--store-failures", "{file}"], [GAME, "--history", "{json}"],
        [GAME, "--config", "{zero}"], [GAME, "--failures-limit", "-1"],
        ["--db", "{json}"], ["--parquet", "{file}"], [GAME, "--threads", "100000"],
    ],
    ("history",): [
        ["--history", "{missing}"], ["--history", "{json}"], ["--history", "{zero}"],
        ["--history", "{file}"], ["--history", "{dir}", "--format", "xml"],
        ["--history", "{json}", "--last", "-1"],
    ],
    ("load",): [
        [GAME, "--db", "{dir}"], [GAME, "--db", "{json}"], [GAME, "--db", "{full}"],
        [GAME, "--db", "{missing}/a.duckdb"], ["{missing}", "--db", "{out}.duckdb"],
        [GAME, "--db", GAME], [GAME, "--db", "{out}.duckdb", "--memory-limit", "1KB"],
    ],
    ("summary", "sizes"): [["--db", "{missing}"], ["--db", "{json}"], ["--db", "{zero}"]],
    ("summary", "starts"): [["--db", "{dir}"], ["{zero}"], [GAME, "--db", "{json}"]],
    ("summary", "overview"): [["--db", "{null}"], ["{missing}"], [GAME, "--section", "x"],
                              [GAME, "--memory-limit", "1KB"]],
    ("summary", "all"): [
        [GAME, "-o", "{full}"], [GAME, "-o", "{dir}"], [GAME, "-o", "{missing}/all.txt"],
        [GAME, "-o", GAME], ["{zero}"], ["--db", "{json}"], [GAME, "--format", "html",
                                                              "-o", "{full}"],
    ],
    ("summary", "charts"): [
        [GAME, "--out", "{file}"], [GAME, "--out", "{null}"], [GAME, "--out", "{full}"],
        [GAME, "--out", "{file}/charts"], ["--db", "{missing}", "--out", "{out}"],
        ["{zero}", "--out", "{out}"], [GAME, "--top", "-1", "--out", "{out}"],
    ],
    ("query",): [
        ["SELECT 1", "--db", "{missing}"], ["SELEC 1", GAME], ["SELECT 1", "{zero}"],
        ["COPY games TO '{out}.csv'", GAME], ["SELECT 1", "--db", "{json}"],
        ["SELECT 1", GAME, "--timeout", "-1"], ["SELECT 1", GAME, "--limit", "-5"],
        ["SELECT * FROM read_text('/etc/passwd')", GAME],
        ["SELECT 1", GAME, "--memory-limit", "1KB"], ["SELECT 1", GAME, "--threads", "0"],
    ],
    ("export",): [
        ["--db", "{missing}", "--parquet", "{out}"], ["--db", "{json}", "--parquet", "{out}"],
        ["--db", "{zero}", "--parquet", "{out}"],
    ],
    ("enums", "infer"): [
        ["{missing}"], [GAME, "-o", "{dir}"], [GAME, "-o", "{missing}/p.toml"],
        [GAME, "-o", "{full}"], [GAME, "-o", GAME],
    ],
    ("schema", "list"): [["--all", "--bogus"]],
    ("schema", "show"): [["record:../../etc/passwd"], ["{zero}"]],
    ("schema", "export"): [["--out", "{file}"], ["--out", "{full}"],
                           ["--out", "{missing}/s", "--profile", "{zero}"]],
    ("schema", "editor"): [["--match", "nokind=*.json"], ["--match", "="]],
    ("samples", "generate"): [["--out", "{file}"], ["--out", "{null}"],
                              ["--out", "{missing}", "--packages", "-1"]],
    ("rules",): [["nope"], ["--format", "xml"]],
    ("diff",): [
        [GAME, "{missing}"], ["{zero}", GAME], [GAME, "{json}", "-o", "{dir}"],
        [GAME, GAME, "-o", GAME], [GAME, GAME, "-o", "{full}"], [GAME, "{dir}", "--db", "x"],
        [GAME, GAME, "--fail-if", "packages.removed >> 1%"], [GAME, GAME, "--format", "xml"],
        ["{json}", GAME, "--fail-on", "renamed"], ["{dir}", "{file}"],
        [GAME, "{json}", "--memory-limit", "1KB"], [GAME, GAME, "--threads", "100000"],
    ],
}


def test_every_command_has_hostile_cases() -> None:
    assert sorted(_commands()) == sorted(HOSTILE)


@pytest.mark.parametrize(("command", "args"),
                         [(c, a) for c, cases in HOSTILE.items() for a in cases],
                         ids=lambda v: " ".join(v) if isinstance(v, tuple) else None)
def test_no_traceback_from_hostile_arguments(place: dict[str, str], command: tuple[str, ...],
                                             args: list[str]) -> None:
    before = Path(place["json"]).read_bytes(), Path(GAME).read_bytes()
    done = quizkit(*command, *[a.format(**place) for a in args], timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (1, 2, 3), (done.returncode, done.stderr)
    assert (done.stderr + done.stdout).strip(), "a failing command says why"
    assert (Path(place["json"]).read_bytes(), Path(GAME).read_bytes()) == before
    for name in ("full", "null"):
        assert Path(place[name]).is_char_device()


#: Commands that print to standard output, run for real with it on a full device.
PRINTING = [
    ["validate", GAME], ["rules"], ["schema", "show", "game"], ["enums", "infer", GAME],
    ["summary", "all", GAME], ["query", "SELECT * FROM range(100000)", GAME],
    ["diff", GAME, str(SAMPLES / "games.jsonl")],
]


@pytest.mark.parametrize("args", [[*c, "--help"] for c in _commands()] + PRINTING,
                         ids=" ".join)
def test_standard_output_on_a_full_device_is_one_line(place: dict[str, str],
                                                      args: list[str]) -> None:
    with open(place["full"], "w") as full:
        done = subprocess.run([sys.executable, "-m", "quizkit", *args], stdout=full,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              timeout=60)
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, \
        done.stderr
    assert done.returncode == 2, done.stderr
    assert done.stderr == "quizkit: error: cannot write standard output: No space left on " \
                          "device\n"
