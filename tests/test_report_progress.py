"""The progress line: shown on a terminal for long runs only; --verbose lists files."""

from __future__ import annotations

import io

from test_report_data import sample_findings

from quizkit.outputs.progress import ProgressLine, in_ci, should_show
from quizkit.reporters import ReporterSet, ReportOptions
from quizkit.reporters.text import TextReporter


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_when_to_show() -> None:
    tty, pipe = Terminal(), io.StringIO()
    assert should_show(tty, env={})
    assert not should_show(pipe, env={})
    assert not should_show(tty, env={"CI": "true"})
    assert should_show(tty, env={"CI": "false"})
    assert not should_show(tty, quiet=True, env={})
    assert not should_show(tty, env={"TERM": "dumb"})
    assert in_ci({"CI": "1"}) and not in_ci({"CI": ""})


def test_nothing_before_the_delay_then_counts_rate_and_eta() -> None:
    clock, tty = Clock(), Terminal()
    p = ProgressLine(total_files=100, total_bytes=100_000_000, stream=tty, show=True,
                 clock=clock, delay=1.0)
    clock.now += 0.5
    p.advance("a.json", 10_000_000)
    assert tty.getvalue() == ""  # a short run shows nothing
    clock.now += 0.5  # 1 s in: 20 MB of 100 MB done
    p.advance("b.json", 10_000_000)
    out = tty.getvalue()
    assert out.startswith("\r2/100 files  20%  20.0 MB/s  ETA 0:04")
    assert out.endswith("\x1b[K")
    p.close()
    assert tty.getvalue().endswith("\r\x1b[K")
    clock.now += 5
    p.advance("c.json", 1)
    assert tty.getvalue().endswith("\r\x1b[K")  # closed: draws no more


def test_unknown_totals_show_no_eta() -> None:
    clock = Clock()
    p = ProgressLine(stream=Terminal(), show=True, clock=clock)
    for _ in range(3):
        p.advance("x", 2_000_000)
    clock.now += 2
    assert p.line() == "3 files  3.0 MB/s"


def test_on_file_is_the_engines_hook(tmp_path, monkeypatch) -> None:
    """Wired as the real engine calls it: once per file, with its FileResult."""
    from quizkit.checks import engine
    from quizkit.inputs.walk import expand

    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text('{"x": 1}')
    sources = list(expand([str(tmp_path)]))
    pipe = io.StringIO()
    p = ProgressLine.for_run(len(sources), stream=pipe, verbose=True, env={})
    engine.run(sources, on_file=p.on_file, jobs=1)
    assert pipe.getvalue() == f"checked {tmp_path / 'a.json'}\nchecked {tmp_path / 'b.json'}\n"
    assert (p.files, p.bytes) == (2, 10)


def test_silent_when_not_shown() -> None:
    clock, pipe = Clock(), io.StringIO()
    p = ProgressLine.for_run(10, stream=pipe, env={})
    p.clock = clock
    clock.now += 10
    for i in range(10):
        p.advance(f"{i}.json", 100)
    assert pipe.getvalue() == ""
    assert p.files == 10 and p.bytes == 1000


def test_verbose_lists_every_file_even_off_a_terminal() -> None:
    pipe = io.StringIO()
    p = ProgressLine.for_run(2, stream=pipe, verbose=True, env={"CI": "true"})
    p.advance("a.json", 1)
    p.advance("b.json", 1)
    assert pipe.getvalue() == "checked a.json\nchecked b.json\n"
    quiet = io.StringIO()
    p = ProgressLine.for_run(2, stream=quiet, verbose=True, quiet=True, env={})
    p.advance("a.json", 1)
    assert quiet.getvalue() == ""


def test_findings_on_the_terminal_clear_the_progress_line_first() -> None:
    clock, tty = Clock(), Terminal()
    p = ProgressLine(total_files=3, stream=tty, show=True, clock=clock, delay=0)
    rset = ReporterSet([TextReporter(tty, ReportOptions(color="never"))], progress=p)
    p.advance("a.json", 1)
    rset.finding(sample_findings()[0])
    text = tty.getvalue()
    progress_end = text.index("\x1b[K") + len("\x1b[K")
    # the line is erased ("\r\x1b[K") right before the finding is written
    assert text[progress_end:].startswith("\r\x1b[Kexports/pkg.json\n  3:17     error    S001")


def test_forced_progress_into_a_log_is_plain_lines(tmp_path) -> None:
    """``--progress`` with stderr in a file: lines a log can hold, no terminal controls."""
    import re
    import subprocess

    from conftest import SAMPLES, console_script

    log = tmp_path / "progress.log"
    with log.open("wb") as err:
        proc = subprocess.run([console_script(), "validate", "--progress", "--jobs", "1",
                               "--exclude", "invalid/", str(SAMPLES)],
                              stdout=subprocess.DEVNULL, stderr=err, timeout=120)
    assert proc.returncode == 0
    text = log.read_text()
    assert "\x1b" not in text and "\r" not in text
    lines = text.splitlines()
    assert lines and all(re.fullmatch(r"\d+/\d+ files  \d+%  .*", ln) for ln in lines), text
