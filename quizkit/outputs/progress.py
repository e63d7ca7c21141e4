"""A progress line on stderr for long runs, and ``--verbose`` file listing.

The engine calls :meth:`ProgressLine.advance` once per file checked. The line
(``1234/5000 files  25%  48.2 MB/s  ETA 0:12``) appears, by default, only when stderr is a
terminal, the run has lasted more than ``delay`` seconds, ``CI`` is not set and ``--quiet``
was not given; so pipelines and short runs see nothing. ``--progress`` forces the line from
the first file on, on any stream (a log, a CI console), and ``--no-progress`` turns it off.
On a stream that is not a terminal the line is written as plain lines, one every
:data:`PLAIN_INTERVAL` seconds, without the control characters that redraw it.
``--verbose`` lists every file checked, one per line on stderr, terminal or not (but not
under ``--quiet``).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TextIO

from quizkit.catalog.findings import FileResult

MB = 1_000_000
#: Seconds between the plain lines written to a stream that is not a terminal (a log).
PLAIN_INTERVAL = 5.0


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


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressLine:
    """Counts files and bytes checked; draws a progress line when allowed.

    Totals may be unknown (``None``: input from stdin or a generator); then the line shows
    what was done and the rate, without a percentage or ETA. Safe to call from several
    threads (e.g. a ``concurrent.futures`` done-callback).
    """

    def __init__(self, total_files: int | None = None, total_bytes: int | None = None, *,
                 stream: TextIO | None = None, show: bool = False, verbose: bool = False,
                 delay: float = 1.0, interval: float = 0.2,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total_files = total_files
        self.total_bytes = total_bytes
        self.stream = stream if stream is not None else sys.stderr
        self.show = show
        self.verbose = verbose
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.files = 0
        self.bytes = 0
        self.started = clock()
        self._drawn_at: float | None = None
        self._visible = False
        #: Not a terminal: plain lines, no redrawing (no ``\r``, no ``\x1b[K`` in a log).
        self.plain = not _is_terminal(self.stream)
        if self.plain:
            self.interval = max(interval, PLAIN_INTERVAL)
        self._lock = threading.Lock()

    @classmethod
    def for_run(cls, total_files: int | None = None, total_bytes: int | None = None, *,
                quiet: bool = False, verbose: bool = False, stream: TextIO | None = None,
                env: Mapping[str, str] | None = None,
                force: bool | None = None) -> ProgressLine:
        """The progress of a CLI run, shown or not by the rules above; forced on
        (``force=True``), it is drawn from the first file, without the delay."""
        stream = stream if stream is not None else sys.stderr
        return cls(total_files, total_bytes, stream=stream,
                   show=should_show(stream, quiet=quiet, env=env, force=force),
                   verbose=verbose and not quiet, delay=0.0 if force else 1.0)

    def set_totals(self, total_files: int | None, total_bytes: int | None = None) -> None:
        """Totals learnt after the run started (e.g. once a directory walk ends)."""
        with self._lock:
            self.total_files, self.total_bytes = total_files, total_bytes

    def advance(self, path: str, nbytes: int = 0) -> None:
        """One more file checked, of ``nbytes`` bytes (as read, before decompression)."""
        self.advance_many([(path, nbytes)])

    def advance_many(self, done: Iterable[tuple[str, int]]) -> None:
        """Several files done at once (a batch of a load), ``(path, bytes)`` each: counted,
        then the line drawn once."""
        with self._lock:
            for path, nbytes in done:
                self.files += 1
                self.bytes += nbytes
                if self.verbose:
                    self._erase()
                    self.stream.write(f"checked {path}\n")
            now = self.clock()
            if not self.show or now - self.started < self.delay:
                if self.verbose:
                    self.stream.flush()
                return
            if self._drawn_at is None or now - self._drawn_at >= self.interval or self.verbose:
                self._draw(now)

    def on_file(self, result: FileResult) -> None:
        """``engine.run(..., on_file=progress.on_file)``: one file done, its bytes as read."""
        self.advance(result.path, result.size)

    def line(self, now: float | None = None) -> str:
        """The progress line's text (without control characters)."""
        now = self.clock() if now is None else now
        elapsed = max(now - self.started, 1e-9)
        rate = self.bytes / elapsed
        parts = [f"{self.files}/{self.total_files} files" if self.total_files
                 else f"{self.files} files"]
        fraction = None
        if self.total_bytes:
            fraction = min(self.bytes / self.total_bytes, 1.0)
        elif self.total_files:
            fraction = min(self.files / self.total_files, 1.0)
        if fraction is not None:
            parts.append(f"{fraction:.0%}")
        parts.append(f"{rate / MB:.1f} MB/s")
        if fraction:
            parts.append(f"ETA {_duration(elapsed * (1 - fraction) / fraction)}")
        return "  ".join(parts)

    def _draw(self, now: float) -> None:
        if self.plain:
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()
            self._drawn_at = now
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        self.stream.write("\r" + self.line(now)[:width] + "\x1b[K")
        self.stream.flush()
        self._drawn_at = now
        self._visible = True

    def _erase(self) -> None:
        if self._visible:
            self.stream.write("\r\x1b[K")
            self._visible = False

    def clear(self) -> None:
        """Erase the line (before something else is written to the terminal); the next
        ``advance`` draws it again."""
        with self._lock:
            if self._visible:
                self._erase()
                self.stream.flush()
                self._drawn_at = None

    def close(self) -> None:
        """Erase the line for good at the end of a run (or when it is interrupted)."""
        self.clear()
        self.show = False

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
