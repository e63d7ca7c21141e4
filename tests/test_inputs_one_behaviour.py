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
from conftest import INVALID, SAMPLES, run_script

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
FILES = re.compile(r"(\d+) files? \((\d+) unreadable\), (\d+) documents?")
#: What a command says it read: files, unreadable files (0 when it says none), documents.
READ = re.compile(r"(\d[\d,]*) files?(?: \((\d+) unreadable\))?, (\d[\d,]*) documents?")


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
    # users/ is excluded by the configuration; the version list is one document, as are
    # the others, but for the four lines of banners.jsonl
    assert validate[1] == [("5", "1", "8")]
    for name, got in seen.items():
        assert got == validate, name


def test_a_baseline_holding_the_finding_absorbs_the_unreadable_input_everywhere(corpus):
    for name in COMMANDS:
        proc = _run(corpus, name, "--baseline", "base.json")
        text = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode == exits.OK, (name, text)
        assert not FINDING.findall(text), name
        assert FILES.findall(text) == [("5", "1", "8")], name  # still said, not failed on


def test_a_path_that_does_not_exist_is_the_same_usage_error_everywhere(corpus):
    for name in [*COMMANDS, *MORE]:
        proc = _run(corpus, name, dump="missing")
        assert proc.returncode == exits.USAGE, name
        assert proc.stderr.decode() == \
            f"quizkit: error: {exits.no_such_path('missing')}\n", name
        assert not (corpus / "out" / name.replace(" ", "-")).exists(), name


def _read(proc) -> tuple[int, int, int]:
    """(files, unreadable files, documents) a command said it read, from its summary line."""
    (files, unreadable, documents), = READ.findall(proc.stdout.decode() + proc.stderr.decode())
    return (int(files.replace(",", "")), int(unreadable or 0),
            int(documents.replace(",", "")))


@pytest.mark.parametrize("arrays", [False, True], ids=["samples", "arrays"])
def test_validate_and_load_count_the_same_documents(tmp_path, arrays):
    """A JSON file is one document whatever it holds (a top-level array of versions too), a
    JSON Lines file one per non-blank line (one holding an array too): every command counts
    so."""
    root = SAMPLES
    if arrays:
        root = tmp_path / "in"
        root.mkdir()
        versions = (SAMPLES / "version-list.json").read_text()
        for i in range(3):
            (root / f"list-{i}.json").write_text(versions)
        line = versions.replace("\n", "")
        (root / "lists.jsonl").write_text(f"{line}\n\n{line}\n[]\n")
    validate = run_script("validate", "-q", "--no-cache", str(root))
    load = run_script("load", str(root), "--db", str(tmp_path / "t.duckdb"), "--no-findings")
    counted = {name: _read(p) for name, p in (("validate", validate), ("load", load))}
    assert counted["validate"] == counted["load"], counted
    if arrays:
        assert counted["validate"] == (4, 0, 6)
        # Files read straight, as summary and query read them: the files table agrees.
        query = run_script("query", "SELECT count(*), sum(documents) FROM files", str(root),
                           "--format", "csv")
        assert query.stdout.decode().splitlines()[-1] == "4,6"


#: Each command that reports findings, with ``{dump}`` and ``{out}`` as in COMMANDS.
REPORTING = {name: COMMANDS[name] for name in ("validate", "load", "load --parquet")}


@pytest.mark.parametrize(("sample", "fail_on", "config", "code"), [
    ("game-question-with-position.json", None, None, exits.OK),  # warnings only
    ("game-question-with-position.json", "warning", None, exits.FINDINGS),
    ("game-question-with-position.json", "info", None, exits.FINDINGS),
    ("game-question-with-position.json", "error", "warning", exits.OK),
    ("game-question-with-position.json", None, "warning", exits.FINDINGS),
    ("version-negative-price.json", None, None, exits.FINDINGS),  # an error
    ("version-negative-price.json", "error", None, exits.FINDINGS),
])
def test_fail_on_sets_the_exit_code_of_every_command_that_reports_findings(
        tmp_path, sample, fail_on, config, code):
    (tmp_path / "dump").mkdir()
    shutil.copy(INVALID / sample, tmp_path / "dump" / sample)
    if config is not None:
        (tmp_path / "quizkit.toml").write_text(f'fail-on = "{config}"\n')
    extra = ["--fail-on", fail_on] if fail_on else []
    for name in REPORTING:
        proc = _run(tmp_path, name, *extra)
        assert proc.returncode == code, (name, proc.stderr.decode())
    # Without its findings, a load has nothing to fail on.
    proc = _run(tmp_path, "load", "--no-findings", "--fail-on", "info")
    assert proc.returncode == exits.OK, proc.stderr.decode()


def test_a_json_lines_file_with_a_line_that_is_not_json_is_the_same_unreadable_input(tmp_path):
    """Its other lines are read (and loaded), but every command reports the line as validate
    does, counts the file unreadable and exits 3; a baseline holding the finding absorbs it."""
    dump = tmp_path / "dump"
    dump.mkdir()
    shutil.copy(SAMPLES / "game.json", dump / "game.json")
    shutil.copy(INVALID / "banners-broken-line.jsonl", dump / "banners.jsonl")
    written = run_script("validate", "dump", "--write-baseline", "base.json", cwd=tmp_path)
    assert written.returncode == exits.INPUT, written.stderr.decode()
    seen = {}
    for name in COMMANDS:
        proc = _run(tmp_path, name)
        text = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode == exits.INPUT, (name, text)
        seen[name] = (FINDING.findall(text), FILES.findall(text))
        absorbed = _run(tmp_path, name, "--baseline", "base.json")
        assert absorbed.returncode == exits.OK, (name, absorbed.stderr.decode())
    validate = seen.pop("validate")
    assert [where for where, _ in validate[0]] == ["dump/banners.jsonl:2:127"]
    assert validate[1] == [("2", "1", "4")]
    for name, got in seen.items():
        assert got == validate, name
