"""Signals: how a run ends when it is told to stop, and how its workers follow.

- Ctrl-C (SIGINT) and SIGTERM raise ``KeyboardInterrupt`` in the main process
  (:class:`StopSignals`), a ``BaseException``, so every ``finally`` and every output's
  clean-up runs: temporary files are removed, a DuckDB transaction is
  rolled back. The command line then prints one line and exits 130 or 143, as a shell does
  for a process killed by those signals.
- Worker processes (:func:`worker_started`, a pool ``initializer``) ignore SIGINT (the
  terminal sends it to the whole process group; the parent decides), die at once on SIGTERM,
  and die with their parent even when it is killed outright (SIGKILL): on Linux the kernel
  sends them SIGKILL (``PR_SET_PDEATHSIG``); elsewhere a watchdog thread notices that the
  parent is gone within a second.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from types import FrameType

from quizkit.catalog import exits

#: Exit codes of a run stopped by SIGINT and SIGTERM (128 + the signal number).
EXIT_SIGINT = exits.SIGINT
EXIT_SIGTERM = exits.SIGTERM

_PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent, where the kernel cannot watch it for us.
WATCH_INTERVAL = 0.5


class Terminated(BaseException):
    """SIGTERM arrived, where it cannot be waited for in a thread (no ``sigwait``)."""


class StopSignals:
    """Turns SIGINT and SIGTERM into an exception for one run, and remembers which came.

    DuckDB notices only SIGINT while a statement runs (it then stops the statement), and no
    Python signal handler runs before that statement returns. So SIGTERM is held back in
    every thread and taken by a thread of its own (``sigwait``), which records it and
    interrupts the main thread as Ctrl-C does: a long query stops at once either way.
    Libraries may turn the ``KeyboardInterrupt`` into their own exception (DuckDB:
    ``RuntimeError('Query interrupted')``), so the exit code comes from :attr:`signum`.
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    def install(self) -> None:
        """Handle SIGINT and SIGTERM from now on (main thread only; elsewhere a no-op)."""
        if threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGINT, self._handle)
        if hasattr(signal, "sigwait"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            threading.Thread(target=self._wait_for_sigterm, daemon=True,
                             name="quizkit-sigterm").start()
        else:
            signal.signal(signal.SIGTERM, self._handle)

    def _record(self, signum: int) -> None:
        if self.signum is None:  # the first one counts
            self.signum = signum

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._record(signum)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated

    def _wait_for_sigterm(self) -> None:
        signal.sigwait({signal.SIGTERM})
        self._record(signal.SIGTERM)
        # A real SIGINT to the main thread: DuckDB watches for the signal itself.
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    def ignore_more(self) -> None:
        """From now on (the run is ending) further stop signals are ignored."""
        if threading.current_thread() is threading.main_thread():
            for signum in STOPPING:
                signal.signal(signum, signal.SIG_IGN)

    @property
    def exit_code(self) -> int | None:
        """128 + the signal number, as a shell reports it; None when no signal came."""
        if self.signum is None:
            return None
        return EXIT_SIGINT if self.signum == signal.SIGINT else EXIT_SIGTERM


#: The signals that stop a run.
STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back for the block; one that came is handled right after.

    For starting worker processes: Python runs its after-fork hooks in the parent, and an
    exception raised by a signal handler inside one of them is printed and dropped
    ("Exception ignored in ..."), so the run would go on as if no signal had come.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def stop_workers(pool: Executor) -> None:
    """End a process pool's workers now (a run was stopped): no waiting for their chunks.

    Shutting down without waiting leaves the workers to finish what they hold, and Python
    joins them at exit, so a stopped run would linger; terminated, they exit at once.
    """
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError):
            process.terminate()


def worker_started() -> None:
    """Pool initializer: ignore SIGINT, die on SIGTERM, die with the parent process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # forked from a parent that holds them back
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
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
