"""A progress line on stderr for long runs, and ``--verbose`` file listing.

The engine calls :meth:`ProgressLine.advance` once per file checked. The line
(``1234/5000 files  25%|███▌       | 48.2 MB/s  ETA 00:12``) is drawn by tqdm
(:mod:`quizkit.outputs.progress_bar`). It appears, by default, only when stderr is a
terminal, the run has lasted more than ``delay`` seconds, ``CI`` is not set, ``TERM`` is not
``dumb`` and ``--quiet`` was not given; so pipelines and short runs see nothing (and do not
import tqdm). ``--progress`` forces the line from the start, on any stream (a log, a
CI console), and ``--no-progress`` turns it off. On a stream that is not a terminal the line
is written as plain lines, one every few seconds and one when the run ends, without the
carriage returns that redraw it. ``--verbose`` lists every file checked, one per line on
stderr, terminal or not (but not under ``--quiet``).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TextIO

from quizkit.catalog.findings import FileResult
from quizkit.outputs.interrupts import held_back, pause_at

if TYPE_CHECKING:
    from quizkit.outputs.progress_bar import FilesBar


def in_ci(env: Mapping[str, str]) -> bool:
    """True under a CI service: ``CI`` set to anything but an empty, ``0`` or ``false``."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def should_show(stream: TextIO, *, quiet: bool = False,
                env: Mapping[str, str] | None = None, force: bool | None = None) -> bool:
    """Whether a progress line may be drawn on ``stream``: ``force`` (``--progress`` or
    ``--no-progress``) decides when given, else the rules above."""
    if force is not None:
        return force
    env = os.environ if env is None else env
    if quiet or in_ci(env) or env.get("TERM") == "dumb":
        return False
    return _is_terminal(stream)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressLine:
    """Counts files and bytes checked; draws a progress line when allowed.

    Totals may be unknown (``None``: input from stdin or a generator); then the line shows
    what was done and the rate, without a percentage or ETA. Safe to call from several
    threads (e.g. a ``concurrent.futures`` done-callback).
    """

    def __init__(self, total_files: int | None = None, total_bytes: int | None = None, *,
                 stream: TextIO | None = None, show: bool = False, verbose: bool = False,
                 delay: float = 1.0) -> None:
        self.total_files = total_files
        self.total_bytes = total_bytes
        self.stream = stream if stream is not None else sys.stderr
        self.show = show
        self.verbose = verbose
        self.delay = delay
        self.files = 0
        self.bytes = 0
        #: Not a terminal: plain lines, no redrawing (no ``\r`` in a log).
        self.plain = not _is_terminal(self.stream)
        self._lock = threading.Lock()
        self._visible = False
        self._bar: FilesBar | None = None

    def _start(self) -> None:
        """Draw from now on, if shown: the bar is made (forced, it is drawn at once)."""
        if not self.show or self._bar is not None:
            return
        from quizkit.outputs.progress_bar import FilesBar, LogLines

        kind = LogLines if self.plain else FilesBar
        self._bar = kind(self.stream, total_files=self.total_files,
                         total_bytes=self.total_bytes, delay=self.delay)
        self._visible = not self.plain and self.delay <= 0  # tqdm drew it at once

    @classmethod
    def for_run(cls, total_files: int | None = None, total_bytes: int | None = None, *,
                quiet: bool = False, verbose: bool = False, stream: TextIO | None = None,
                env: Mapping[str, str] | None = None,
                force: bool | None = None) -> ProgressLine:
        """The progress of a CLI run, shown or not by the rules above; forced on
        (``force=True``), it is drawn from the start of the run, without the delay."""
        stream = stream if stream is not None else sys.stderr
        return cls(total_files, total_bytes, stream=stream,
                   show=should_show(stream, quiet=quiet, env=env, force=force),
                   verbose=verbose and not quiet, delay=0.0 if force else 1.0)

    def set_totals(self, total_files: int | None, total_bytes: int | None = None) -> None:
        """Totals learnt after the run started (e.g. once a directory walk ends)."""
        with self._lock:
            self.total_files, self.total_bytes = total_files, total_bytes
            if self._bar is not None:
                self._bar.total = total_files
                self._bar.bytes_total = total_bytes

    def advance(self, path: str, nbytes: int = 0) -> None:
        """One more file checked, of ``nbytes`` bytes (as read, before decompression)."""
        self.advance_many([(path, nbytes)])

    def advance_many(self, done: Iterable[tuple[str, int]]) -> None:
        """Several files done at once (a batch of a load), ``(path, bytes)`` each: counted,
        then the line drawn once (when tqdm's interval has passed)."""
        with self._lock:
            files = 0
            for path, nbytes in done:
                files += 1
                self.bytes += nbytes
                if self.verbose:
                    self._erase()
                    self.stream.write(f"checked {path}\n")
            self.files += files
            if self.verbose:
                self.stream.flush()
            self._start()  # used without ``with``: the line starts with the first file
            bar = self._bar
            if bar is not None and files:
                bar.bytes_done = self.bytes
                # Not held back from a stop (that costs more than the rest of the call): on a
                # terminal every line is as wide as the terminal, so an erase after a draw
                # cut short still covers it.
                if bar.update(files) and not self.plain:
                    self._visible = True

    def on_file(self, result: FileResult) -> None:
        """``engine.run(..., on_file=progress.on_file)``: one file done, its bytes as read."""
        self.advance(result.path, result.size)

    def _erase(self) -> None:
        if self._visible and self._bar is not None:
            with held_back():
                self._bar.clear()
            self._visible = False

    def clear(self) -> None:
        """Erase the line (before something else is written to the terminal); it is drawn
        again by a later ``advance``."""
        with self._lock:
            self._erase()

    def close(self) -> None:
        """End the line for good at the end of a run (or when it is interrupted): erased from
        a terminal; in a log, the last count written as a line of its own."""
        with self._lock:
            bar, self._bar = self._bar, None
            self.show = False
            if bar is None:
                return
            with held_back():  # erased whole, even if a second stop comes now
                if self.plain and bar.n != bar.last_print_n:  # the count not yet in the log
                    bar.bytes_done = self.bytes
                    bar.refresh()
                bar.close()
            self._visible = False

    def __enter__(self) -> ProgressLine:
        """The line starts (a forced one is drawn now); a stop that comes while it is first
        drawn is taken once the line can be erased."""
        try:
            with held_back(), self._lock:
                self._start()
        except BaseException:
            self.close()
            raise
        pause_at("drawn")  # the test hook: a stop as the line is drawn and its exit not yet due
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
