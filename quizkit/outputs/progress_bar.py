"""The drawing of the progress line, by tqdm.

Imported only when a line may be shown (:class:`quizkit.outputs.progress.ProgressLine` with
``show``), so that a run in a pipeline or under CI does not pay for the import.

tqdm counts files (``n`` of ``total``); the line also shows the bytes read as ``MB/s``, and
when the total of bytes is known the percentage and ETA follow the bytes (a few big files
weigh more than many small ones). On a terminal tqdm redraws the line in place, fitted to the
terminal's width as it is now; in a log (:class:`LogLines`) each draw is a line of its own.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from tqdm import tqdm

MB = 1_000_000
#: The size assumed for a terminal that reports none (a pseudo-terminal never sized).
FALLBACK_COLUMNS, FALLBACK_ROWS = 80, 24
#: Seconds between two draws on a terminal, and between two lines of a log.
TERMINAL_INTERVAL = 0.2
LOG_INTERVAL = 5.0

TERMINAL_FORMATS = ("{files} files  {speed}",
                    "{files} files {percentage:3.0f}%|{bar}| {speed}  ETA {remaining}")
LOG_FORMATS = ("{files} files  {speed}",
               "{files} files  {percentage:.0f}%  {speed}  ETA {remaining}")


class FilesBar(tqdm):  # type: ignore[misc]
    """A progress line of files and bytes on a terminal; erased (not left) when closed."""

    #: No monitor thread: the line is drawn by the calls that count (a thread would also be
    #: running when the engine forks its workers).
    monitor_interval = 0
    formats = TERMINAL_FORMATS

    def __init__(self, stream: TextIO, *, total_files: int | None, total_bytes: int | None,
                 delay: float, interval: float = TERMINAL_INTERVAL) -> None:
        self.bytes_done = 0
        self.bytes_total = total_bytes
        # smoothing=0: the rate and ETA are the averages over the run; miniters=1: the time is
        # looked at on every call, so a slow stretch after a fast one still redraws. The
        # width is looked up at each draw (format_dict), as tqdm's dynamic_ncols would, but
        # with a fallback for a terminal of no size (tqdm would then draw nothing).
        super().__init__(total=total_files, file=stream, leave=False, delay=delay,
                         mininterval=interval, miniters=1, smoothing=0, position=0,
                         ncols=self.columns(stream), nrows=FALLBACK_ROWS, unit="files")

    def columns(self, stream: TextIO) -> int | None:
        """The width to fill: the terminal's, less the one column tqdm leaves free."""
        try:
            width = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            width = 0
        return (width or FALLBACK_COLUMNS) - 1

    @property
    def format_dict(self) -> dict[str, Any]:
        """tqdm's fields, plus ``files`` (``N/M``) and ``speed`` (``MB/s``); the fraction
        done by bytes when their total is known."""
        d = dict(super().format_dict)
        d["ncols"] = self.columns(self.fp)
        files, total = d.get("n", 0), d.get("total")
        elapsed = d.get("elapsed") or 0
        d["files"] = f"{files}/{total}" if total else f"{files}"
        d["speed"] = f"{self.bytes_done / elapsed / MB if elapsed > 0 else 0.0:.1f} MB/s"
        if total and self.bytes_total:
            d.update(n=self.bytes_done, total=self.bytes_total)
        d["bar_format"] = self.formats[bool(total)]
        return d


class LogLines(FilesBar):
    """The same line written to a stream that is not a terminal (a log, a CI console): one
    plain line per draw, every :data:`LOG_INTERVAL` seconds, never a carriage return nor a
    terminal control, nothing erased."""

    formats = LOG_FORMATS

    def __init__(self, stream: TextIO, *, total_files: int | None, total_bytes: int | None,
                 delay: float) -> None:
        super().__init__(stream, total_files=total_files, total_bytes=total_bytes, delay=delay,
                         interval=LOG_INTERVAL)

    def columns(self, stream: TextIO) -> int | None:
        """No width: a log's lines are not cut."""
        return None

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        """tqdm's one place of output (it says so): a line, or nothing when tqdm would erase
        (``msg=""``) or before the first file."""
        if msg == "" or not self.n:
            return False
        self.fp.write(str(self) + "\n")
        self.fp.flush()
        return True

    def clear(self, nolock: bool = False) -> None:
        """Lines in a log stay."""
