"""Awkward file-system entries: symlink loops, unreadable files, FIFOs, vanishing files, odd
names. A run never hangs, never crashes, and says what it could not read."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from quizkit.checks import engine
from quizkit.inputs.walk import expand
from tests.conftest import SAMPLES, cli, cli_json, run_script

BANNER = SAMPLES / "banner.json"


def test_symlink_loop_in_a_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(BANNER, tmp_path / "sub" / "a.json")
    (tmp_path / "sub" / "loop").symlink_to(tmp_path)
    (tmp_path / "self.json").symlink_to(tmp_path / "self.json")  # a link to itself
    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone.json")
    code, report = cli_json(str(tmp_path))
    # The loop is not followed (links to directories are not walked); the links that lead
    # nowhere readable are reported, not skipped silently.
    assert [f["path"] for f in report["files"]] == [
        str(tmp_path / name) for name in ("dangling.json", "self.json", "sub/a.json")]
    got = {f["path"]: f["message"] for f in report["findings"]}
    assert "broken symbolic link" in got[str(tmp_path / "dangling.json")]
    assert "symbolic links" in got[str(tmp_path / "self.json")]
    assert code == 3


def test_a_looping_link_named_explicitly_is_an_unreadable_input(tmp_path):
    link = tmp_path / "self.json"
    link.symlink_to(link)
    code, report = cli_json(str(link))
    [hit] = report["findings"]
    assert hit["rule"] == "unreadable-input" and "symbolic links" in hit["message"]
    assert code == 3


def test_fifo_in_a_directory_is_reported_and_a_named_fifo_is_refused(tmp_path):
    shutil.copy(BANNER, tmp_path / "a.json")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    # A real process with a timeout: a blocking open would hang here.
    walked = run_script("validate", "--format", "json", str(tmp_path), timeout=30)
    assert walked.returncode == 3
    walked_report = json.loads(walked.stdout)
    assert [f["path"] for f in walked_report["files"]] == [str(tmp_path / "a.json"), str(fifo)]
    [hit] = walked_report["findings"]
    assert hit["path"] == str(fifo) and "FIFO" in hit["message"]
    named = run_script("validate", "--format", "json", str(fifo), timeout=30)
    [hit] = json.loads(named.stdout)["findings"]
    assert hit["rule"] == "unreadable-input" and "FIFO" in hit["message"]
    assert named.returncode == 3 and b"Traceback" not in named.stderr


def test_device_named_explicitly_is_refused_without_reading():
    code, report = cli_json("/dev/zero")
    [hit] = report["findings"]
    assert hit["rule"] == "unreadable-input" and "device" in hit["message"] and code == 3


def test_a_file_that_vanishes_between_listing_and_reading(tmp_path):
    for name in ("a.json", "b.json"):
        shutil.copy(BANNER, tmp_path / name)
    sources = list(expand([str(tmp_path)]))
    (tmp_path / "a.json").unlink()
    report = engine.run(sources, jobs=1)
    [hit] = report.findings
    assert hit.rule == "unreadable-input" and hit.path == str(tmp_path / "a.json")
    assert "No such file" in hit.message
    assert report.exit_code() == 3 and len(report.files) == 2


def _as_nobody(args: list[str]) -> tuple[int, dict]:
    """Run the CLI in a forked child that dropped root: root reads files whatever the mode."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            # No cache: the test's cache directory is root's (its warning would join output).
            result = cli("validate", "--format", "json", "--no-cache", *args)
            os.write(write_end, json.dumps([result.exit_code, result.output]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    code, output = json.loads(data)
    return code, json.loads(output)


def test_unreadable_file_and_directory():
    # Not tmp_path: its parents are private to root, and the check must run as another user.
    root = Path(tempfile.mkdtemp(prefix="quizkit-perm-"))
    try:
        root.chmod(0o755)
        shutil.copy(BANNER, root / "ok.json")
        locked = root / "locked.json"
        shutil.copy(BANNER, locked)
        locked.chmod(0o000)
        closed = root / "closed"
        closed.mkdir()
        shutil.copy(BANNER, closed / "inner.json")
        closed.chmod(0o000)
        if os.geteuid() == 0:
            code, report = _as_nobody([str(root)])
        else:
            code, report = cli_json(str(root))
        got = {(f["path"], f["rule"]) for f in report["findings"]}
        assert got == {(str(closed), "unreadable-input"), (str(locked), "unreadable-input")}
        assert all("ermission denied" in f["message"] for f in report["findings"])
        assert len(report["files"]) == 3 and code == 3
    finally:
        (root / "closed").chmod(0o755)
        shutil.rmtree(root)


NAMES = ["with space.json", "new\nline.json", "tab\there.json", "ünïcödé.json"]


def test_odd_names_are_printed_escaped(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in NAMES:
        (bad / name).write_text('{"slot": 5}')
    raw = os.fsencode(bad) + b"/bytes\xff\xfe.json"
    with open(raw, "w") as fh:
        fh.write('{"slot": 5}')
    shown = {"bytes\\xff\\xfe.json", "new\\nline.json", "tab\\there.json", "with space.json",
             "ünïcödé.json"}
    proc = run_script("validate", "--format", "json", str(bad))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr.decode()
    report = json.loads(proc.stdout)
    assert {f["path"].rsplit("/", 1)[1] for f in report["findings"]} == shown
    proc = run_script("validate", "--format", "concise", str(bad))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr.decode()
    lines = proc.stdout.decode("utf-8").splitlines()
    # One line per finding and the summary: no name broke a line.
    assert len(lines) == 6
    assert {line.split(":1:10: ")[0].rsplit("/", 1)[1] for line in lines[:5]} == shown
    # The grouped text report: one header line per file, each name escaped on one line.
    proc = run_script("validate", str(bad))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr, proc.stderr.decode()
    headers = [line for line in proc.stdout.decode("utf-8").splitlines()
               if line.startswith(str(bad))]
    assert {line.rsplit("/", 1)[1] for line in headers} == shown


def test_odd_names_in_process_and_missing_odd_name(tmp_path):
    name = tmp_path / "new\nline.json"
    name.write_text('{"slot": 5}')
    result = cli("validate", "--format", "concise", str(name))
    assert result.exit_code == 1 and result.output.startswith(f"{tmp_path}/new\\nline.json:1:10")
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/gone\xff.json")
    result = cli("validate", missing)
    assert result.exit_code == 2 and "gone\\xff.json" in result.output


@pytest.mark.parametrize("name", ["nul\0byte.json"])
def test_impossible_name_is_a_finding(name):
    code, report = cli_json(name)
    assert report["findings"][0]["rule"] == "unreadable-input" and code == 3
