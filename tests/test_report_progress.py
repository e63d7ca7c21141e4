"""The progress line: shown on a terminal for long runs only, off in pipes and CI, forced by
--progress on any stream (as plain lines in a log); erased before findings, the summary and
a stop; --verbose lists files.

What a person sees is checked on a real pseudo-terminal (:func:`conftest.screen` replays the
bytes as a terminal shows them), not against the drawing library's bytes.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

from conftest import INVALID, SAMPLES, console_script, on_a_terminal, screen

from quizkit.outputs.progress import ProgressLine, in_ci, should_show

#: A count of files (``N/M files``) and a rate, as the line shows them.
LINE = re.compile(rb"\d+/\d+ files.*\d+\.\d MB/s")
#: A clean run: the valid samples (the invalid ones are findings, exit 1).
CLEAN = ("--exclude", "invalid/", "--no-cache", "--jobs", "1", str(SAMPLES))
#: One line of the log a forced progress writes on a stream that is not a terminal.
#: One document on stdin, the run told to say when it starts (``config: ...``).
DOC = (SAMPLES / "banner-create.json").read_bytes()
HELD = ("validate", "--no-cache", "--verbose", "-")
LOG_LINE = re.compile(r"\d+/\d+ files  \d+%  \d+\.\d MB/s  ETA \d+:\d\d(:\d\d)?")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_when_to_show() -> None:
    tty, pipe = Terminal(), io.StringIO()
    assert should_show(tty, env={})
    assert not should_show(pipe, env={})
    assert not should_show(tty, env={"CI": "true"})
    assert should_show(tty, env={"CI": "false"})
    assert not should_show(tty, quiet=True, env={})
    assert not should_show(tty, env={"TERM": "dumb"})
    assert should_show(pipe, env={"CI": "true"}, force=True)
    assert not should_show(tty, env={}, force=False)
    assert in_ci({"CI": "1"}) and in_ci({"CI": "yes"}) and not in_ci({"CI": ""})


def test_forced_on_a_terminal_counts_files_and_rate_then_is_erased() -> None:
    """--progress on a terminal: the line (count and rate) is drawn from the start, and it
    is gone from the screen when the summary is printed."""
    code, out = on_a_terminal("validate", "--progress", *CLEAN)
    assert code == 0, out
    assert LINE.search(out), out
    shown = screen(out)
    assert not any("MB/s" in line for line in shown), shown
    assert re.fullmatch(r"\d+ files, \d+ documents: .*", [ln for ln in shown if ln][-1]), shown


def test_a_run_longer_than_a_second_shows_the_line_on_a_terminal_only_outside_ci() -> None:
    """The automatic rule end to end: stdin is held open for 2 s once the run has started
    (its first --verbose note), so the run outlasts the one-second delay on any machine; on
    a terminal the line appears, under CI it does not."""
    code, out = on_a_terminal(*HELD, stdin=DOC, hold=2, after=b"config:")
    assert code == 0, out
    assert LINE.search(out), out
    assert not any("MB/s" in line for line in screen(out))
    code, in_ci_run = on_a_terminal(*HELD, stdin=DOC, hold=2, after=b"config:",
                                    env={"CI": "true"})
    assert code == 0 and b"MB/s" not in in_ci_run, in_ci_run


def test_nothing_drawn_when_off() -> None:
    """Runs that outlast the one-second delay (stdin held open as above) on a terminal:
    under CI, TERM=dumb, -q and --no-progress the output is exactly that of a run without a
    progress line; --progress draws it even under CI."""
    held = {"stdin": DOC, "hold": 2, "after": b"config:"}
    code, plain = on_a_terminal(*HELD, "--no-progress", **held)
    assert code == 0 and b"1 file, 1 document" in plain and b"MB/s" not in plain
    for env in ({"CI": "true"}, {"CI": "1"}, {"TERM": "dumb"}):
        assert on_a_terminal(*HELD, env=env, **held) == (0, plain), env
    code, quiet = on_a_terminal(*HELD, "-q", **held)
    assert code == 0 and b"MB/s" not in quiet
    code, forced = on_a_terminal(*HELD, "--progress", stdin=DOC, env={"CI": "true"})
    assert code == 0 and LINE.search(forced), forced


def test_findings_never_share_a_line_with_the_progress() -> None:
    """Findings printed while the line is drawn: on the screen, each finding is whole and no
    trace of the line is left anywhere."""
    code, out = on_a_terminal("validate", "--progress", "--no-cache", "--jobs", "1",
                              "--color", "never", str(INVALID))
    assert code == 3, out  # findings, and files that cannot be read
    assert LINE.search(out), out
    shown = screen(out)
    assert not any("MB/s" in line or "files  " in line for line in shown), shown
    findings = [ln for ln in shown if re.match(r"  \d+:\d+ +(error|warning|info) ", ln)]
    assert len(findings) > 5
    _, quiet = on_a_terminal("validate", "--no-progress", "--no-cache", "--jobs", "1",
                             "--color", "never", str(INVALID))
    assert shown == screen(quiet)  # the same screen as a run without the line


def test_a_warning_during_the_run_never_shares_a_line_with_the_progress(tmp_path) -> None:
    """A warning that comes while the line is drawn (the result cache cannot be written: its
    directory is a file) is on a line of its own on the screen, with no trace of the line."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file")
    code, out = on_a_terminal("validate", "--progress", "--cache-dir", str(blocker),
                              "--jobs", "1", "--color", "never", *CLEAN[:2], str(SAMPLES))
    assert code == 0 and LINE.search(out), out
    shown = screen(out)
    warnings = [ln for ln in shown if "cannot write the result cache" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("quizkit: warning:"), shown
    assert not any("MB/s" in line or "files  " in line for line in shown), shown


def test_ctrl_c_leaves_the_terminal_clean() -> None:
    """A stop while the line is drawn (validate waiting for stdin): exit 130, the line
    erased, the stop said on a line of its own."""
    code, out = on_a_terminal("validate", "--progress", "--no-cache", "-",
                              stop_when=b"files")
    assert code == 130, out
    assert LINE.search(out), out
    shown = [ln for ln in screen(out) if ln]
    assert not any("MB/s" in line for line in shown), shown
    assert shown and "interrupted" in shown[-1] and "files" not in shown[-1], shown


def test_a_ctrl_c_just_after_the_line_is_drawn_leaves_the_terminal_clean(tmp_path) -> None:
    """The stop comes once the line is drawn and before the run has made the line's erasing
    due (the test hook's stage ``drawn``): the line is erased all the same."""
    marker = tmp_path / "drawn"
    code, out = on_a_terminal("validate", "--progress", "--no-cache", "-",
                              env={"QUIZKIT_PAUSE_AT": f"drawn:{marker}"},
                              stop_when=b"files", stop_at=marker)
    assert code == 130, out
    shown = [ln for ln in screen(out) if ln]
    assert shown and "interrupted" in shown[-1] and "files" not in shown[-1], shown


def test_off_a_terminal_nothing_is_written_by_default() -> None:
    """stderr a pipe, CI unset: a clean run writes nothing at all on stderr."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    done = subprocess.run([sys.executable, "-m", "quizkit", "validate", *CLEAN],
                          capture_output=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    forced = subprocess.run([sys.executable, "-m", "quizkit", "validate", "--progress",
                             *CLEAN], capture_output=True, env=env, timeout=300, check=False)
    assert forced.returncode == 0 and LINE.search(forced.stderr), forced.stderr


def test_forced_progress_into_a_log_is_plain_lines(tmp_path) -> None:
    """``--progress`` with stderr in a file: whole lines a log can hold (no carriage return,
    no terminal control), the last one the final count."""
    log = tmp_path / "progress.log"
    with log.open("wb") as err:
        proc = subprocess.run([console_script(), "validate", "--progress", *CLEAN],
                              stdout=subprocess.DEVNULL, stderr=err, timeout=120)
    assert proc.returncode == 0
    text = log.read_text()
    assert "\x1b" not in text and "\r" not in text
    lines = text.splitlines()
    assert lines and all(LOG_LINE.fullmatch(ln) for ln in lines), text
    files = sum(1 for p in SAMPLES.iterdir() if p.is_file() and p.suffix in (".json", ".jsonl"))
    assert lines[-1].startswith(f"{files}/{files} files  100%  "), text


def test_a_log_line_follows_the_bytes_or_the_files() -> None:
    """In a log: with the bytes' total known, the percentage is of the bytes; without
    totals, the count and rate only (no percentage, no ETA)."""
    log = io.StringIO()
    with ProgressLine(4, 100, stream=log, show=True, delay=0) as p:
        p.advance("big.json", 75)
    assert re.fullmatch(r"1/4 files  75%  \d+\.\d MB/s  ETA \d+:\d\d\n", log.getvalue())
    log = io.StringIO()
    with ProgressLine(stream=log, show=True, delay=0) as p:
        p.advance_many([("a", 1), ("b", 1), ("c", 1)])
    assert re.fullmatch(r"3 files  \d+\.\d MB/s\n", log.getvalue())


def test_on_file_is_the_engines_hook(tmp_path) -> None:
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
    pipe = io.StringIO()
    with ProgressLine.for_run(10, stream=pipe, env={}) as p:
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


def test_verbose_and_forced_progress_in_a_log_keep_whole_lines() -> None:
    log = io.StringIO()
    with ProgressLine.for_run(2, stream=log, verbose=True, force=True, env={}) as p:
        p.advance("a.json", 1)
        p.advance("b.json", 1)
    lines = log.getvalue().split("\n")
    assert lines[:2] == ["checked a.json", "checked b.json"] and lines[-1] == ""
    assert re.fullmatch(r"2/2 files  100%  .*", lines[2]) and len(lines) == 4
