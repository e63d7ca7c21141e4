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
- A command may say what a stop leaves behind (:attr:`StopSignals.outcome`): ``load`` ends
  in "interrupted: nothing loaded" or "interrupted after the load was committed". Its commit
  and the note that it happened run with stop signals held (:func:`held_back`), so the line
  is never wrong.
- A wait for input that may never come (stdin left open) waits with :func:`wait_readable`:
  a stop ends it even when Python would not run its handler before the wait returns (the
  signal caught by another thread, or by the main thread just before it blocked).
- :func:`pause_at` is a documented test hook: with ``QUIZKIT_PAUSE_AT=STAGE:FILE`` in the
  environment, a run that reaches ``STAGE`` creates ``FILE`` and waits (up to
  :data:`PAUSE_SECONDS`) for a signal, so that a test stops it at a known point.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from quizkit.catalog import exits

if TYPE_CHECKING:  # a run of one job never imports the pool's machinery
    from concurrent.futures import Executor

#: Exit codes of a run stopped by SIGINT and SIGTERM (128 + the signal number).
EXIT_SIGINT = exits.SIGINT
EXIT_SIGTERM = exits.SIGTERM

#: The test hook's environment variable (:func:`pause_at`), and its longest wait.
PAUSE_VARIABLE = "QUIZKIT_PAUSE_AT"
PAUSE_SECONDS = 60

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
        #: What the stop left behind, appended to the one line ("interrupted" + it); set by
        #: a command whose stop can leave different things (``load``).
        self.outcome: Callable[[], str] | None = None

        self.installed = False
        #: What stops the work under way besides the exception (:func:`interrupting`).
        self.interrupters: list[Callable[[], None]] = []
        #: The read end of the pipe Python's own signal handler writes a byte into for each
        #: signal it catches (:func:`wait_readable`); None until installed, or where it
        #: cannot be.
        self.wakeup: int | None = None
        self._previous_hook: Callable[[Any], None] = sys.unraisablehook

    def line(self, code: int) -> str:
        """The one line a run stopped with exit ``code`` ends with (without ``quizkit: ``)."""
        word = "interrupted" if code == EXIT_SIGINT else "terminated"
        return word + (self.outcome() if self.outcome is not None else "")

    def install(self) -> None:
        """Handle SIGINT and SIGTERM from now on (main thread only; elsewhere a no-op)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.installed = True
        self._previous_hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        self.wakeup = _wakeup_pipe()
        signal.signal(signal.SIGINT, self._handle)
        pause_at("install")  # the test hook: a stop while the handlers change hands
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
        if _unsafe_to_raise(frame):
            # Raised inside an import, the exception could stop an extension module
            # half-way through its initialisation (the interpreter aborts) or be dropped by
            # the import system's callbacks. Ask again in a moment.
            _later(RETRY_SECONDS, self._again)
            return
        if frame is not None:
            # A library may swallow the exception (DuckDB does, when the signal comes while
            # it prepares a statement) and run on: if the main thread is still at the same
            # line of the same frame a moment later, deliver the stop again.
            _later(STUCK_SECONDS, self._unstick, frame, frame.f_lineno)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated

    def _unstick(self, frame: FrameType, line: int) -> None:
        main = threading.main_thread().ident
        current = sys._current_frames().get(main) if main is not None else None
        if current is not frame or current.f_lineno != line:
            return
        if self.interrupters:  # stop the work itself: a second exception could go astray
            for interrupt in list(self.interrupters):
                with contextlib.suppress(Exception):
                    interrupt()
        else:
            self._again()

    def _unraisable(self, unraisable: Any) -> None:
        """Python dropped an exception it could not raise ("Exception ignored in ...": a
        finaliser, a weak reference's callback): if it was the stop's, deliver the stop
        again in a moment instead of losing it; anything else goes to the hook before."""
        if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)) \
                and self.signum is not None:
            _later(RETRY_SECONDS, self._again)
            return
        self._previous_hook(unraisable)

    def _again(self) -> None:
        """Deliver the stop once more to the main thread (ignored once the run is ending)."""
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

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


#: Seconds before a stop that came at a moment unsafe to raise in is delivered again.
RETRY_SECONDS = 0.02
#: Seconds after which a stop whose exception went nowhere is delivered again.
STUCK_SECONDS = 0.5


def _later(seconds: float, action: Callable[..., None], *args: object) -> None:
    """Run ``action(*args)`` on a thread of its own in ``seconds`` (it never holds up an
    exit)."""
    timer = threading.Timer(seconds, action, args)
    timer.daemon = True
    timer.start()


def _unsafe_to_raise(frame: FrameType | None) -> bool:
    """Is the main thread inside an import, where an exception raised by a signal handler
    breaks the import or is dropped?"""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _wakeup_pipe() -> int | None:
    """The read end of a pipe that Python's C-level signal handler writes a byte into for
    every signal it catches, in whichever thread (``signal.set_wakeup_fd``); None where a
    wait cannot watch it (no ``poll``) or it cannot be set."""
    if not hasattr(select, "poll"):
        return None
    read_end, write_end = os.pipe()
    for fd in (read_end, write_end):
        os.set_blocking(fd, False)
    try:
        signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):
        os.close(read_end)
        os.close(write_end)
        return None
    return read_end


def _wakeup() -> int | None:
    """The wakeup pipe's read end, where a wait hears stop signals: the run handles them (the
    command line) and this is the main thread, where their handler runs."""
    owner = _stop_signals()
    if owner is None or threading.current_thread() is not threading.main_thread():
        return None
    return owner.wakeup


def wakes_waits() -> bool:
    """Whether :func:`wait_readable` hears stop signals here."""
    return _wakeup() is not None


def wait_readable(fd: int) -> None:
    """Return once ``fd`` can be read without blocking (bytes, or its end); a stop signal that
    comes meanwhile raises here.

    Python runs a signal's handler in the main thread between two steps of Python code. A
    signal caught by another thread (the kernel hands a process's signal to any thread that
    does not block it), or by the main thread in the moment between its last such step and a
    read() that blocks, leaves the handler waiting for that read to return: from a pipe or a
    terminal left open, never. Each signal caught also writes a byte into the wakeup pipe
    (:func:`_wakeup_pipe`), which this wait watches beside ``fd``, so a stop is never
    missed. Where nothing hears stops (:func:`wakes_waits` is false) it returns at once:
    the read that follows waits on its own.
    """
    wakeup = _wakeup()
    if wakeup is None:
        return
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    poller.register(wakeup, select.POLLIN)
    while True:
        ready = {ready_fd for ready_fd, _events in poller.poll()}
        if wakeup in ready:
            _drain(wakeup)
            continue  # the handler runs before the next step: a stop raises here
        if fd in ready:
            return


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 512):
            pass


@contextlib.contextmanager
def interrupting(stop: Callable[[], None]) -> Iterator[None]:
    """While the block runs, a stop whose exception went nowhere also calls ``stop`` (a
    DuckDB connection's ``interrupt``: DuckDB swallows the exception when the signal comes
    while it prepares a statement, then runs the statement to its end). A stop that came
    before the block ends the run here."""
    owner = _stop_signals()
    if owner is None:  # run in-process (tests, the API): nothing to add
        yield
        return
    if owner.signum is not None:
        raise KeyboardInterrupt
    owner.interrupters.append(stop)
    try:
        yield
    finally:
        owner.interrupters.remove(stop)


def _stop_signals() -> StopSignals | None:
    """The run's :class:`StopSignals`, when they handle the signals (the command line)."""
    owner = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
    return owner if isinstance(owner, StopSignals) else None


def stop_came() -> bool:
    """Whether a stop signal came during this run (always ``False`` where the run does not
    handle them: run in-process, or in a worker)."""
    owner = _stop_signals()
    return owner is not None and owner.signum is not None


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


@contextlib.contextmanager
def held_back() -> Iterator[None]:
    """Stop signals wait for the end of the block, then act (in the main thread).

    Unlike :func:`signals_deferred`, this holds back the Python handler itself: a SIGINT
    that the kernel hands to another thread (DuckDB's) still runs its handler in the main
    thread at the next bytecode, and a mask there would not stop that. For a step and the
    note that it happened (a commit), which must not be parted.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[tuple[int, FrameType | None]] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        came.append((signum, frame))

    before = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if came:
            if callable(before):
                before(*came[0])
            elif before == signal.SIG_DFL:
                raise KeyboardInterrupt


def pause_at(stage: str) -> None:
    """The test hook (see the module docstring): at ``stage`` of a run, if the environment
    asks for it, mark the moment and wait for a signal."""
    wanted, _, marker = os.environ.get(PAUSE_VARIABLE, "").partition(":")
    if wanted != stage or not marker:
        return
    Path(marker).write_text(f"{os.getpid()}\n")
    deadline = time.monotonic() + PAUSE_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.01)


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
    with contextlib.suppress(ValueError):  # the parent's wakeup pipe (StopSignals) is not ours
        signal.set_wakeup_fd(-1)
    if hasattr(signal, "pthread_sigmask"):  # forked from a parent that holds them back
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)
    import multiprocessing  # a worker of a pool: loaded already

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
