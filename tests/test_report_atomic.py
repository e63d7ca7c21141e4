"""Report files are written atomically: never half-written, never lost on Ctrl-C."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_report_data import drive, sample_report

from quizkit.catalog.findings import Report
from quizkit.outputs.writer import AtomicFile, atomic_write
from quizkit.reporters import open_reporters

REPO = Path(__file__).parent.parent


def test_atomic_write_replaces_on_success(tmp_path: Path) -> None:
    target = tmp_path / "r.txt"
    target.write_text("old")
    with atomic_write(target) as f:
        f.write("new")
        assert target.read_text() == "old"  # not visible before the end
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["r.txt"]


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_atomic_write_keeps_the_old_file_on_exception(tmp_path: Path, exc: type) -> None:
    target = tmp_path / "r.txt"
    target.write_text("old")
    with pytest.raises(exc), atomic_write(target) as f:
        f.write("half")
        raise exc()
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["r.txt"]


def test_no_file_appears_when_interrupted(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt), atomic_write(tmp_path / "r.txt") as f:
        f.write("half")
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_mode_follows_the_old_file_or_the_umask(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text("x")
    old.chmod(0o640)
    with atomic_write(old) as f:
        f.write("y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    umask = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "new.txt") as f:
            f.write("z")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_commit_then_discard_is_harmless(tmp_path: Path) -> None:
    out = AtomicFile(tmp_path / "r.txt")
    out.stream.write("done")
    out.commit()
    out.discard()
    assert (tmp_path / "r.txt").read_text() == "done"


def _previous(tmp_path: Path) -> dict[str, str]:
    files = {"out.sarif": "previous sarif", "out.xml": "previous junit",
             "out.jsonl": "previous jsonl"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return files


def _specs(tmp_path: Path) -> list[str]:
    return [f"sarif:{tmp_path / 'out.sarif'}", f"junit:{tmp_path / 'out.xml'}",
            f"jsonl:{tmp_path / 'out.jsonl'}"]


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_interrupted_run_leaves_previous_reports(tmp_path: Path, exc: type) -> None:
    previous = _previous(tmp_path)
    report = sample_report()
    with pytest.raises(exc), open_reporters("text", None, _specs(tmp_path),
                                            stdout=io.StringIO()) as rset:
        rset.start()
        for f in report.findings[:3]:
            rset.finding(f)
        raise exc()
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == previous


def test_exception_after_finish_keeps_the_complete_reports(tmp_path: Path) -> None:
    """E.g. the CLI raising SystemExit(1) for findings inside the block."""
    _previous(tmp_path)
    with pytest.raises(SystemExit), open_reporters("text", None, _specs(tmp_path),
                                                   stdout=io.StringIO()) as rset:
        drive(rset, sample_report())
        raise SystemExit(1)
    assert (tmp_path / "out.sarif").read_text().startswith("{")
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "out.sarif", "out.xml"]


CHILD = textwrap.dedent("""
    import sys, time
    from quizkit.catalog.findings import Finding, Report, Severity
    from quizkit.reporters import open_reporters

    def run(specs):
        findings = []
        with open_reporters("text", None, specs) as rset:
            rset.start()
            for i in range(100_000):
                f = Finding(f"f{i}.json", "/a", "S001", Severity.ERROR, "m", line=1, column=1)
                findings.append(f)
                rset.finding(f)
                rset.file_done(f.path)
                if i == 50:
                    print("running", file=sys.stderr, flush=True)
                time.sleep(0.001)
            rset.finish(make_report(findings=findings))

    try:
        run(sys.argv[1:])
    except KeyboardInterrupt:
        sys.exit(130)
""")


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child process")
def test_sigint_mid_run_in_a_real_process(tmp_path: Path) -> None:
    previous = _previous(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *_specs(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        line = proc.stderr.readline()
        assert line == b"running\n", line + proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert stdout.startswith(b"f0.json\n  1:1      error    S001")  # the run really was writing
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == previous


def test_a_finished_report_replaces_the_previous_one(tmp_path: Path) -> None:
    _previous(tmp_path)
    with open_reporters(None, None, _specs(tmp_path)) as rset:
        drive(rset, Report())
    assert (tmp_path / "out.jsonl").read_text() == ""
    assert "<testsuites" in (tmp_path / "out.xml").read_text()
