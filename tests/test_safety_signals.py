"""Ctrl-C and SIGTERM end any command with 130/143, one line, no partial
output; an interrupted load leaves the database as it was or fully loaded; workers die with
their parent, even when it is SIGKILLed."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest import requires
from safety_cli import SAMPLES, quizkit

STOPS = [(signal.SIGINT, 130, "quizkit: interrupted"),
         (signal.SIGTERM, 143, "quizkit: terminated")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("signals") / "corpus"
    done = quizkit("samples", "generate", "--packages", "300", "--seed", "5", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def _start(*args: str | os.PathLike[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "quizkit", *map(os.fspath, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)


def _wait_for(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _gone(pid: int) -> bool:
    """Exited: no such process, or a zombie waiting for a reaper."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] in ("Z", "X")


def _kill_orphans(workers: list[int]) -> None:
    """Workers that outlived a failed run (a stopped run must leave none running)."""
    for w in workers:
        with contextlib.suppress(OSError):
            os.kill(w, signal.SIGKILL)


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="signals to real processes, /proc")


@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_validate_stopped_leaves_the_previous_reports(tmp_path: Path, corpus: Path,
                                                      signum: int, code: int,
                                                      line: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    previous = {"report.json": "previous json", "r.sarif": "previous sarif"}
    for name, text in previous.items():
        (out / name).write_text(text)
    proc = _start("validate", corpus, "-j", "2", "--format", "json", "-o", out / "report.json",
                  "--report", f"sarif:{out / 'r.sarif'}")
    workers: list[int] = []
    try:
        _wait_for(lambda: len(list(out.iterdir())) > 2, "the reports' temporary files")
        _wait_for(lambda: len(_children(proc.pid)) >= 2, "the workers")
        workers = _children(proc.pid)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        _kill_orphans(workers)
    assert proc.returncode == code, stderr
    assert stderr == line + "\n"
    assert {p.name: p.read_text() for p in out.iterdir()} == previous
    _wait_for(lambda: all(_gone(w) for w in workers), "the workers to exit", timeout=5)


def test_workers_die_when_the_parent_is_killed(tmp_path: Path, corpus: Path) -> None:
    proc = _start("validate", corpus, corpus, "-j", "2", "-o", tmp_path / "r.txt")
    workers: list[int] = []
    try:
        _wait_for(lambda: len(_children(proc.pid)) >= 2, "the workers")
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        _wait_for(lambda: all(_gone(w) for w in workers), "the workers to exit", timeout=5)
    finally:
        proc.kill()
        _kill_orphans(workers)


def _files(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM files").fetchall()[0][0]
    finally:
        con.close()


@pytest.fixture(scope="module")
def fully_loaded(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> int:
    """Files of a database holding samples/game.json and then the whole corpus."""
    db = tmp_path_factory.mktemp("reference") / "full.duckdb"
    for path in (SAMPLES / "game.json", corpus):
        done = quizkit("load", path, "--db", db, "--no-findings")
        assert done.returncode == 0, done.stderr
    return _files(db)


def _stop_at(stage: str, marker: Path, signum: int, *args: str | os.PathLike[str]
             ) -> tuple[subprocess.Popen[str], str, str]:
    """Run ``quizkit ARGS`` until it reaches ``stage`` (the documented test hook
    ``QUIZKIT_PAUSE_AT``: it creates ``marker`` there and waits), then send ``signum``."""
    env = {**os.environ, "QUIZKIT_PAUSE_AT": f"{stage}:{marker}"}
    proc = subprocess.Popen([sys.executable, "-m", "quizkit", *map(os.fspath, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, env=env)
    try:
        _wait_for(lambda: marker.exists() or proc.poll() is not None, f"stage {stage}",
                  timeout=120)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc, stdout, stderr


@pytest.mark.parametrize(("stage", "left", "outcome"), [
    ("replace", "before", ": nothing loaded"),
    ("committed", "after", " after the load was committed"),
])
@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_interrupted_load_leaves_the_database_before_or_after(
        tmp_path: Path, corpus: Path, fully_loaded: int, stage: str, left: str, outcome: str,
        signum: int, code: int, line: str) -> None:
    """A stop inside the load's transaction leaves the database as it was, one after its
    commit leaves it loaded; the line says which, and the exit is the signal's."""
    db = tmp_path / "a.duckdb"
    done = quizkit("load", SAMPLES / "game.json", "--db", db, "--no-findings")
    assert done.returncode == 0, done.stderr
    marker = tmp_path.parent / f"{tmp_path.name}.marker"
    proc, stdout, stderr = _stop_at(stage, marker, signum, "load", corpus, "--db", db,
                                    "--no-findings")
    assert proc.returncode == code, stderr
    assert stderr == line + outcome + "\n"
    assert stdout == ""
    assert _files(db) == (1 if left == "before" else fully_loaded)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.duckdb"]


def test_interrupted_first_load_leaves_no_database(tmp_path: Path, corpus: Path) -> None:
    db = tmp_path / "new.duckdb"
    proc = _start("load", corpus, "--db", db, "--no-findings")
    _, stderr = _stop_once_duckdb_runs(proc, signal.SIGTERM)
    assert proc.returncode == 143, stderr
    assert stderr == "quizkit: terminated: nothing loaded\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_a_long_query_is_stopped_in_one_line(tmp_path: Path, signum: int, code: int,
                                             line: str) -> None:
    db = tmp_path / "a.duckdb"
    assert quizkit("load", SAMPLES / "game.json", "--db", db).returncode == 0
    proc = _start("query", "SELECT count(*) FROM range(100000000000)", "--db", db)
    try:
        time.sleep(1.0)
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code, stderr
    assert stderr == line + "\n"
    assert stdout == ""


def _threads(pid: int) -> int:
    try:
        return len(list(Path(f"/proc/{pid}/task").iterdir()))
    except OSError:
        return 0


def _stop_once_duckdb_runs(proc: subprocess.Popen[str], signum: int, *, delay: float = 0.0,
                           running: bool = False) -> tuple[str, str]:
    """Send ``signum`` once DuckDB's threads are up (and ``delay`` seconds more): from then on
    quizkit's own code runs; before, the interpreter itself is still starting and a signal
    ends it as the signal's default action does (slow when loaded). ``running``: the process
    must still be running then. Its (stdout, stderr)."""
    try:
        _wait_for(lambda: _threads(proc.pid) > 3, "DuckDB to start")
        if running:
            assert proc.poll() is None
        time.sleep(delay)
        proc.send_signal(signum)
        return proc.communicate(timeout=60)
    finally:
        proc.kill()


@pytest.fixture(scope="module")
def large_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Big enough that reading it takes seconds: a signal comes in the middle."""
    out = tmp_path_factory.mktemp("signals-large") / "corpus"
    done = quizkit("samples", "generate", "--packages", "1500", "--seed", "6", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_a_summary_stopped_leaves_the_previous_output(tmp_path: Path, large_corpus: Path,
                                                      signum: int, code: int,
                                                      line: str) -> None:
    out = tmp_path / "summary.txt"
    out.write_text("previous summary")
    proc = _start("summary", "all", large_corpus, "-o", out)
    # DuckDB's threads are up: the files are being read.
    stdout, stderr = _stop_once_duckdb_runs(proc, signum, running=True)
    assert proc.returncode == code, stderr
    assert stderr == line + "\n"
    assert stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == ["summary.txt"]
    assert out.read_text() == "previous summary"


@pytest.fixture(scope="module")
def large_db(large_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("signals-db") / "large.duckdb"
    done = quizkit("load", large_corpus, "--db", db, "--no-findings", "-q")
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_an_export_stopped_leaves_the_directory_as_it_was(tmp_path: Path, large_db: Path,
                                                          signum: int, code: int,
                                                          line: str) -> None:
    out = tmp_path / "parquet"
    out.mkdir()
    (out / "files.parquet").write_text("previous export")
    proc = _start("export", "--db", large_db, "--parquet", out)
    try:
        # The first table's temporary file: the export is under way.
        _wait_for(lambda: len(list(out.iterdir())) > 1, "the export to start")
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code, stderr
    assert stderr == line + "\n"
    names = sorted(p.name for p in out.iterdir())
    # Stopped before the end: nothing new; a signal during the final renames is held back
    # until they are done: everything new. Never some tables old and others new.
    if names == ["files.parquet"]:
        assert (out / "files.parquet").read_text() == "previous export"
    else:
        assert not [n for n in names if n.startswith((".", "tmp_"))], names
        assert "steps.parquet" in names and stdout == ""


_STOPPED_IN_A_FINALISER = """
import os, signal, sys
from quizkit.outputs.interrupts import StopSignals

class Finalised:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(100_000))  # the handler runs in here, inside the finaliser

stop = StopSignals()
stop.install()
try:
    Finalised()  # dropped at once: its finaliser gets the signal
    for _ in range(3_000):  # the run goes on: a bounded stand-in for a long query
        sum(range(10_000))
except KeyboardInterrupt:
    sys.exit(stop.exit_code)
sys.exit(0)
"""


def test_a_stop_that_comes_inside_a_finaliser_still_stops_the_run() -> None:
    # an exception raised inside a finaliser (or the import system's callbacks) is printed
    # and dropped by Python: the stop must be delivered again, not lost
    done = subprocess.run([sys.executable, "-c", _STOPPED_IN_A_FINALISER],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert "Exception ignored" not in done.stderr


def test_a_query_stopped_at_any_moment_of_its_start_ends_in_one_line(tmp_path: Path) -> None:
    # a stop that comes while DuckDB prepares the statement: DuckDB swallowed the exception
    # and ran the endless statement on; it must end the run all the same
    db = tmp_path / "a.duckdb"
    assert quizkit("load", SAMPLES / "game.json", "--db", db).returncode == 0
    for step in range(16):
        proc = _start("query", "SELECT count(*) FROM range(100000000000)", "--db", db)
        try:
            time.sleep(0.2 + 0.07 * step)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)  # the timeout: a hang
        finally:
            proc.kill()
        assert (proc.returncode, stderr, stdout) == (130, "quizkit: interrupted\n", ""), step


def _main_thread(pid: int) -> tuple[str, int]:
    """The main thread's state (``R``, ``S``...) and the CPU ticks it has used."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return "X", 0
    return fields[0], int(fields[11]) + int(fields[12])


def _other_threads(pid: int) -> list[int]:
    try:
        return [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir() if t.name != str(pid)]
    except OSError:
        return []


def _blocked_with_another_thread(proc: subprocess.Popen[bytes]) -> list[int]:
    """Wait (by count) until ``proc``'s main thread has slept, using no CPU, for several looks
    in a row, while another thread runs beside it; that thread's id (and any others)."""
    asleep, before = 0, None
    for _ in range(6000):
        assert proc.poll() is None, proc.communicate()
        state, ticks = _main_thread(proc.pid)
        others = _other_threads(proc.pid)
        asleep = asleep + 1 if state == "S" and ticks == before and others else 0
        if asleep == 10:
            return others
        before = ticks
        time.sleep(0.02)
    raise AssertionError("the main thread never waited")


def test_a_stop_caught_by_another_thread_ends_a_wait_for_stdin() -> None:
    # Python runs a signal's handler in the main thread between two steps of Python code: a
    # SIGINT caught by another thread (the kernel may hand a process's signal to any thread
    # that does not block it), or by the main thread just before it blocks in read(), must
    # still end a run that waits for stdin left open (a read alone would wait for ever).
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "tgkill"):
        requires("tgkill (glibc 2.30 or later, musl)", found=False)
    with subprocess.Popen([sys.executable, "-m", "quizkit", "validate", "--no-cache", "-"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as proc:
        try:
            others = _blocked_with_another_thread(proc)
            assert libc.tgkill(proc.pid, others[0], int(signal.SIGINT)) == 0, ctypes.get_errno()
            code = proc.wait(timeout=120)  # the timeout: a hang (stdin stays open)
        finally:
            proc.kill()
        assert proc.stdout is not None and proc.stderr is not None
        stdout, stderr = proc.stdout.read(), proc.stderr.read()
    assert (code, stderr, stdout) == (130, b"quizkit: interrupted\n", b"")


@pytest.mark.parametrize(("signum", "code", "line"), STOPS)
def test_a_stop_while_the_handlers_are_installed_is_one_line(tmp_path: Path, signum: int,
                                                             code: int, line: str) -> None:
    """A stop that comes while the program's handlers take over from the early ones (stage
    ``install``) ends in the line and code of any stop, not in a traceback."""
    marker = tmp_path / "marker"
    proc, stdout, stderr = _stop_at("install", marker, signum, "validate",
                                    SAMPLES / "game.json")
    assert (proc.returncode, stderr, stdout) == (code, line + "\n", "")
