"""Every command that reads exports behaves as one: the same files from the same walk and
configuration, an unreadable input reported as the same finding, the same exit codes.

Each command runs as the real program, over one corpus: a config file that excludes a
directory (holding a broken file of its own), a truncated export, a path that does not exist,
and a baseline written by ``validate``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, run_script

from quizkit.catalog import exits

#: Each reading command, with ``{dump}`` for the inputs and ``{out}`` for a file it may write.
COMMANDS = {
    "validate": ["validate", "--format", "concise", "{dump}"],
    "load": ["load", "{dump}", "--db", "{out}"],
    "load --parquet": ["load", "{dump}", "--parquet", "{out}"],
    "summary": ["summary", "overview", "{dump}"],
    "query": ["query", "SELECT count(*) AS n FROM files", "{dump}"],
    "enums infer": ["enums", "infer", "{dump}"],
}
#: Commands that take the missing path only (their report of unreadable inputs is their own).
MORE = {"diff": ["diff", "{dump}", "dump"]}
FINDING = re.compile(r"^(\S+:\d+:\d+): error (P\d{3} \S+ .*)$", re.MULTILINE)
FILES = re.compile(r"(\d+) files? \((\d+) unreadable\)")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    dump = root / "dump"
    (dump / "a").mkdir(parents=True)
    for name in ("game.json", "package-full.json", "banners.jsonl", "version-list.json"):
        shutil.copy(SAMPLES / name, dump / "a" / name)
    cut = (SAMPLES / "package-full.json").read_bytes()[:74]
    (dump / "a" / "cut.json").write_bytes(cut)
    (dump / "users").mkdir()
    shutil.copy(SAMPLES / "user-self.json", dump / "users" / "user.json")
    (dump / "users" / "cut-too.json").write_bytes(cut)  # excluded: never reported
    (root / "quizkit.toml").write_text('exclude = ["users/"]\n')
    written = run_script("validate", "dump", "--write-baseline", "base.json", cwd=root)
    assert written.returncode == 3, written.stderr.decode()
    return root


def _run(root: Path, name: str, *extra: str, dump: str = "dump"):
    out = root / "out" / name.replace(" ", "-")
    shutil.rmtree(out.parent, ignore_errors=True)
    out.parent.mkdir()
    argv = [a.format(dump=dump, out=out) for a in {**COMMANDS, **MORE}[name]]
    return run_script(*argv, *extra, cwd=root, timeout=300)


def test_every_command_reads_the_same_files_and_reports_the_same_unreadable_input(corpus):
    seen = {}
    for name in COMMANDS:
        proc = _run(corpus, name)
        text = proc.stdout.decode() + proc.stderr.decode()
        assert "Traceback" not in text
        assert proc.returncode == exits.INPUT, (name, text)
        seen[name] = (FINDING.findall(text), FILES.findall(text))
    validate = seen.pop("validate")
    assert validate[0] == [("dump/a/cut.json:3:37",
                            "P002 invalid-json invalid JSON: the text ends before the "
                            "document does (truncated?)")]
    assert validate[1] == [("5", "1")]  # users/ is excluded by the configuration
    for name, got in seen.items():
        assert got == validate, name


def test_a_baseline_holding_the_finding_absorbs_the_unreadable_input_everywhere(corpus):
    for name in COMMANDS:
        proc = _run(corpus, name, "--baseline", "base.json")
        text = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode == exits.OK, (name, text)
        assert not FINDING.findall(text), name
        assert FILES.findall(text) == [("5", "1")], name  # still said, not failed on


def test_a_path_that_does_not_exist_is_the_same_usage_error_everywhere(corpus):
    for name in [*COMMANDS, *MORE]:
        proc = _run(corpus, name, dump="missing")
        assert proc.returncode == exits.USAGE, name
        assert proc.stderr.decode() == \
            f"quizkit: error: {exits.no_such_path('missing')}\n", name
        assert not (corpus / "out" / name.replace(" ", "-")).exists(), name
