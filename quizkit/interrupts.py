"""Signals: how a run ends when it is told to stop, and how its workers follow.

- Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` and SIGTERM raises :class:`Terminated` in the
  main process (:class:`StopSignals`). Both are ``BaseException`` s, so every ``finally``
  and every output's clean-up runs: temporary files are removed, a DuckDB transaction is
  rolled back. The command line then prints one line and exits 130 or 143, as a shell does
  for a process killed by those signals.
- Worker processes (:func:`worker_started`, a pool ``initializer``) ignore SIGINT (the
  terminal sends it to the whole process group; the parent decides), die at once on SIGTERM,
  and die with their parent even when it is killed outright (SIGKILL): on Linux the kernel
  sends them SIGKILL (``PR_SET_PDEATHSIG``); elsewhere a watchdog thread notices that the
  parent is gone within a second.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from types import FrameType

#: Exit codes of a run stopped by SIGINT and SIGTERM (128 + the signal number).
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

_PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent, where the kernel cannot watch it for us.
WATCH_INTERVAL = 0.5


class Terminated(BaseException):
    """SIGTERM arrived; raised in the main thread like ``KeyboardInterrupt`` for SIGINT."""


class StopSignals:
    """Turns SIGINT and SIGTERM into exceptions for one run, and remembers which came.

    Libraries may catch the exception and raise their own (DuckDB stops its query and
    raises ``RuntimeError('Query interrupted')``), so the exit code is taken from
    :attr:`signum`, not from the exception that ends the run.
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    def install(self) -> None:
        """Handle SIGINT and SIGTERM from now on (main thread only; elsewhere a no-op)."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._handle)
            signal.signal(signal.SIGTERM, self._handle)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated

    @property
    def exit_code(self) -> int | None:
        """128 + the signal number, as a shell reports it; None when no signal came."""
        if self.signum is None:
            return None
        return EXIT_SIGINT if self.signum == signal.SIGINT else EXIT_SIGTERM


def worker_started() -> None:
    """Pool initializer: ignore SIGINT, die on SIGTERM, die with the parent process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parent = multiprocessing.parent_process()
    parent_pid = parent.pid if parent is not None else os.getppid()
    if not _kernel_watches_parent():
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                         name="quizkit-parent-watch").start()
    if os.getppid() != parent_pid:  # the parent died before we could ask to follow it
        os._exit(1)


def _kernel_watches_parent() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)
