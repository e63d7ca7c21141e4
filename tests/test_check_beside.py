"""``quizkit check`` loads the files and runs the team's checks in a process forked beside the
document pass: through the real CLI, that process is a child of the run, the parent runs no
DuckDB meanwhile, its errors reach the user as before, and however the run ends (done, a
failing check, Ctrl-C, SIGTERM, the child killed) no process is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import SAMPLES

from quizkit.analysis.beside import Beside, BesideError
from quizkit.settings.config import ConfigError

#: A check whose SQL is fine on the empty tables and fails on the rows (a game's name is
#: no number).
FAILS_ON_ROWS = """
[[checks]]
code = "X001"
name = "numeric-name"
sql = "select id, file from games where cast(name as integer) > 0"
"""

VIDEO = """
[[checks]]
code = "X002"
name = "video-over-limit"
message = "package {id} has {size_video} bytes of video"
sql = "select id, size_video, file from packages where size_video > 1e7"
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads processes from /proc")

#: The variable each run here carries, to find every process it left (they inherit it).
TAG = "QUIZKIT_TEST_RUN"


def _workdir(tmp_path: Path, checks: str) -> Path:
    exports = tmp_path / "exports"
    exports.mkdir()
    for name in ("package-full.json", "games.jsonl", "banners.jsonl", "game.json"):
        (exports / name).write_bytes((SAMPLES / name).read_bytes())
    (tmp_path / "quizkit.toml").write_text(checks)
    return exports


def _start(tmp_path: Path, *args: str, pause: Path | None = None
           ) -> tuple[subprocess.Popen[str], str]:
    """``quizkit check ARGS`` in a process group of its own; the tag its processes carry."""
    tag = uuid.uuid4().hex
    env = {**os.environ, TAG: tag}
    if pause is not None:
        env["QUIZKIT_PAUSE_AT"] = f"check-tables:{pause}"
    proc = subprocess.Popen([sys.executable, "-m", "quizkit", "check", "--no-cache", *args],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    return proc, tag


def _tagged(tag: str) -> list[int]:
    """The live processes carrying ``tag`` (zombies are gone but for their reaper)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"{TAG}={tag}".encode() in environ.split(b"\0") and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def _none_left(tag: str) -> bool:
    """No process of the run is left (a killed child may take a moment to be reaped)."""
    deadline = time.monotonic() + 10
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _tagged(tag)


def _paused(proc: subprocess.Popen[str], marker: Path) -> int:
    """Wait for the run to reach the load (the test hook), and give the pid that did."""
    deadline = time.monotonic() + 120
    while not marker.exists() or not marker.read_text().endswith("\n"):
        assert proc.poll() is None, f"ended before the load was reached: {proc.communicate()}"
        assert time.monotonic() < deadline, "gave up waiting for the load"
        time.sleep(0.02)
    return int(marker.read_text())


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def test_a_check_failing_on_the_rows_is_exit_2_naming_it_and_leaves_no_process(tmp_path):
    _workdir(tmp_path, FAILS_ON_ROWS)
    proc, tag = _start(tmp_path, "exports", "--format", "json", "-o", "report.json")
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err
    assert err.startswith("Error: check X001 (numeric-name): Conversion Error: Could not "
                          "convert string"), err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "report.json").exists()
    assert _none_left(tag)


def test_the_load_runs_in_a_child_while_the_parent_runs_no_duckdb(tmp_path):
    _workdir(tmp_path, VIDEO)
    marker = tmp_path / "paused"
    proc, tag = _start(tmp_path, "--jobs", "1", "exports", pause=marker)
    try:
        loader = _paused(proc, marker)
        assert loader != proc.pid and _parent_of(loader) == proc.pid
        # The parent validates meanwhile, on its main thread and its SIGTERM waiter:
        # DuckDB's threads would be a dozen more.
        assert _threads(proc.pid) <= 3
        assert loader in _tagged(tag)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert _none_left(tag)


@pytest.mark.parametrize(("signum", "code", "line", "whom"), [
    (signal.SIGINT, 130, "quizkit: interrupted", "group"),
    (signal.SIGTERM, 143, "quizkit: terminated", "group"),
    (signal.SIGTERM, 143, "quizkit: terminated", "parent"),
])
def test_a_stop_during_the_load_ends_the_run_and_its_child(tmp_path, signum, code, line,
                                                            whom):
    """Ctrl-C reaches the whole process group (the child leaves it to the parent); SIGTERM
    may come to both or to the parent only, which then ends the child."""
    _workdir(tmp_path, VIDEO)
    marker = tmp_path / "paused"
    proc, tag = _start(tmp_path, "exports", "--format", "json", "-o", "report.json",
                       pause=marker)
    try:
        _paused(proc, marker)
        if whom == "group":
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert err == line + "\n" and out == ""
    assert not (tmp_path / "report.json").exists()
    assert _none_left(tag)


def test_a_child_killed_before_it_answered_is_one_line_and_exit_2(tmp_path):
    _workdir(tmp_path, VIDEO)
    marker = tmp_path / "paused"
    proc, tag = _start(tmp_path, "exports", pause=marker)
    try:
        os.kill(_paused(proc, marker), signal.SIGKILL)
        _out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2, err
    assert err == ("quizkit: error: the process loading the tables to check was killed by "
                   "SIGKILL (out of memory?) before it answered\n")
    assert _none_left(tag)


class _Holding(Exception):
    """Made from its message, but holding what cannot be pickled."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.lock = threading.Lock()


class _Odd(Exception):
    """Neither pickled nor made again from its arguments."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.lock = threading.Lock()


def _raise(exc: BaseException) -> None:
    raise exc


@pytest.mark.parametrize(("exc", "kind", "message"), [
    (ConfigError("check X001 (a): no such column"), ConfigError,
     "check X001 (a): no such column"),
    (_Holding("a lock"), _Holding, "a lock"),
    (_Odd(3, "odd"), BesideError, "the test's process failed: _Odd: odd"),
])
def test_the_exception_of_the_work_is_raised_in_the_parent(exc, kind, message):
    with Beside(lambda: _raise(exc), "the test's process") as job, \
            pytest.raises(kind) as raised:
        job.result()
    assert str(raised.value) == message and type(raised.value) is kind


def test_the_work_runs_in_a_child_and_its_result_comes_back():
    with Beside(lambda: (os.getpid(), os.getppid(), [1.5, "two"]), "the test's process") as job:
        pid, parent, value = job.result()
    assert pid != os.getpid() and parent == os.getpid() and value == [1.5, "two"]
    with Beside(os.getpid, "the test's process", apart=False) as job:
        assert job.result() == os.getpid()


def test_what_cannot_be_sent_is_one_error_naming_it():
    class Local(Exception):  # pickle cannot name its type
        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.lock = threading.Lock()

    with Beside(lambda: _raise(Local("here")), "the test's process") as job, \
            pytest.raises(BesideError, match=r"^the test's process failed: "
                                             r".*<locals>\.Local: here$"):
        job.result()
    with Beside(threading.Lock, "the test's process") as job, \
            pytest.raises(BesideError, match=r"^the test's process failed: TypeError: cannot "
                                             r"send the result: cannot pickle"):
        job.result()


#: A check over the findings table: the load validates the files too, with workers of its own.
OVER_FINDINGS = """
[[checks]]
code = "X003"
name = "findings-of-games"
message = "{code} in {file}"
sql = "select code, file, record, pointer from findings where file like '%games.jsonl'"
"""


def test_a_load_that_validates_starts_its_own_workers_beside(tmp_path):
    _workdir(tmp_path, OVER_FINDINGS)
    proc, tag = _start(tmp_path, "--jobs", "2", "exports", "--format", "json", "-o",
                       "report.json")
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 1), err
    assert "Traceback" not in err
    report = json.loads((tmp_path / "report.json").read_text())
    # The one finding of the sample games, and the same as a row of the findings table.
    assert sorted(f["code"] for f in report["findings"]) == ["B002", "X003"], report
    (row,) = (f for f in report["findings"] if f["code"] == "X003")
    assert row["message"].startswith("B002 in ") and row["path"].endswith("games.jsonl")
    assert _none_left(tag)
