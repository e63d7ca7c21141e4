"""Work run in a process forked beside the run: ``check`` loads the exports into DuckDB and
runs the team's checks there while the document pass validates the same files, so that on
two cores the run takes about as long as the longer of the two, not their sum.

A process, not a thread: the pass forks its worker processes, and a process forked while
DuckDB's threads run gets only the forking thread, with whatever lock another thread held
left held for good; a thread would also compete with the pass for the interpreter. So the
process is forked before the pass starts its workers and before the parent opens a DuckDB
connection (DuckDB joins its threads when the last connection of a database is closed, as
after :func:`~quizkit.analysis.team_sql.preflight`), and DuckDB runs only in it.

It follows the rules of a worker (:func:`quizkit.outputs.interrupts.worker_started`): Ctrl-C
is the parent's, SIGTERM ends it at once, and it dies with the parent. Its answer, the work's
result or the exception the work raised, comes back pickled through a pipe, and the parent
raises that exception as its own. However the parent's run ends (done, an error, a stop),
:meth:`Beside.__exit__` ends the process and waits for it: none is left behind. Where the
platform cannot fork, or when asked to, the work runs in the parent, at once.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

from quizkit.checks.engine import WorkersError
from quizkit.outputs.interrupts import signals_deferred, stop_came, worker_started

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

T = TypeVar("T")

#: Seconds a process that answered is given to exit before it is ended.
EXIT_SECONDS = 5.0
#: Seconds the parent waits for its own stop to be recorded when the process died of a stop
#: signal (sent to the whole process group, it reaches both at once).
STOP_GRACE_SECONDS = 1.0


class BesideError(WorkersError):
    """The process beside the run could not be started, or ended without an answer (one
    line; exit 2, as for the workers of the pass)."""


@dataclass(frozen=True)
class _Raised:
    """What is sent of an exception the work raised that cannot be pickled: its type (sent
    by reference, when pickle can name it), the type's name and the message."""

    kind: type[BaseException] | None
    name: str
    message: str

    @classmethod
    def of(cls, exc: BaseException) -> _Raised:
        return cls(type(exc), type(exc).__qualname__, str(exc))

    def rebuilt(self, what: str) -> BaseException:
        """An exception of the same type and message, where the type is made from a message
        alone; else a :class:`BesideError` naming it."""
        if self.kind is not None:
            with contextlib.suppress(Exception):
                exc = self.kind(self.message)
                if str(exc) == self.message:
                    return exc
        return BesideError(f"{what} failed: {self.name}: {self.message}")


def _portable(exc: BaseException) -> BaseException | _Raised:
    """``exc`` if it survives pickling (type, arguments and attributes; not its traceback),
    else what :class:`_Raised` keeps of it."""
    with contextlib.suppress(Exception):
        if str(pickle.loads(pickle.dumps(exc))) == str(exc):
            return exc
    return _Raised.of(exc)


def _answer(work: Callable[[], Any], send: Connection) -> None:
    """The forked process: do ``work`` and send what came of it."""
    worker_started()
    try:
        answer: tuple[bool, Any] = (True, work())
    except BaseException as exc:  # every failure is the parent's to raise
        answer = (False, _portable(exc))
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a result, or an exception's type, that cannot be sent
        value = answer[1]
        raised = _Raised(None, value.name, value.message) if isinstance(value, _Raised) \
            else _Raised(None, type(exc).__qualname__, f"cannot send the result: {exc}")
        data = pickle.dumps((False, raised))
    send.send_bytes(data)
    send.close()


class Beside(Generic[T]):
    """``work`` run in a forked process from the moment the block starts; :meth:`result`
    waits for its answer. ``what`` names the process in errors ("the process loading the
    tables"). ``apart=False``, or a platform without fork: ``work`` runs as the block
    starts, in this process, and its exception is raised there."""

    def __init__(self, work: Callable[[], T], what: str, *, apart: bool = True) -> None:
        import multiprocessing  # only a run that forks pays for it

        self._work = work
        self._what = what
        self._apart = apart and "fork" in multiprocessing.get_all_start_methods()
        self._process: BaseProcess | None = None
        self._receive: Connection | None = None
        self._answer: tuple[bool, Any] | None = None

    @property
    def apart(self) -> bool:
        """Whether the work runs in a process of its own."""
        return self._apart

    def __enter__(self) -> Beside[T]:
        if not self._apart:
            self._answer = (True, self._work())
            return self
        import multiprocessing

        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=False)
        self._receive = receive
        # Not a daemon: the work may start processes of its own (a load that validates).
        process = context.Process(target=_answer, args=(self._work, send),
                                  name="quizkit-beside")
        try:
            # A stop while forking would go astray in the after-fork hooks; the child
            # starts with the signals held back, as the workers do.
            with signals_deferred():
                try:
                    process.start()
                except OSError as exc:  # past the process limit (EAGAIN), out of memory
                    raise BesideError(f"cannot start {self._what}: "
                                      f"{exc.strerror or exc}") from None
                self._process = process
        except BaseException:
            send.close()
            self.stop()
            raise
        send.close()  # the child's end: its death is then the end of the pipe here
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def result(self) -> T:
        """The work's result, waiting for it; the exception it raised is raised here."""
        if self._answer is None:
            self._answer = self._received()
        done, value = self._answer
        if done:
            return value  # type: ignore[no-any-return]
        raise value.rebuilt(self._what) if isinstance(value, _Raised) else value

    def _received(self) -> tuple[bool, Any]:
        from multiprocessing.connection import wait

        assert self._process is not None and self._receive is not None
        # Both: an answer arrives on the pipe, a death without one on the sentinel.
        wait([self._receive, self._process.sentinel])
        try:
            data = self._receive.recv_bytes()
        except (EOFError, OSError):  # the process died before its answer was whole
            self._died()
        try:
            answer: tuple[bool, Any] = pickle.loads(data)
        except Exception as exc:
            raise BesideError(f"{self._what} sent an answer that cannot be read: "
                              f"{exc}") from None
        return answer

    def _died(self) -> NoReturn:
        """Raise what a process that died without an answer means: the run's own stop when
        a stop signal came (a Ctrl-C or SIGTERM to the whole process group reaches it too),
        else a :class:`BesideError`."""
        assert self._process is not None
        self._process.join()
        code = self._process.exitcode or 0
        if -code in (signal.SIGINT, signal.SIGTERM):
            deadline = time.monotonic() + STOP_GRACE_SECONDS
            while not stop_came() and time.monotonic() < deadline:
                time.sleep(0.01)  # the stop's own exception comes here, if it came
        if stop_came():
            raise KeyboardInterrupt
        if code < 0:
            name = signal.Signals(-code).name
            hint = " (out of memory?)" if -code == signal.SIGKILL else ""
            raise BesideError(f"{self._what} was killed by {name}{hint} before it answered")
        raise BesideError(f"{self._what} ended (exit {code}) before it answered")

    def stop(self) -> None:
        """End the process (at once, unless it answered) and wait for it."""
        process, self._process = self._process, None
        with signals_deferred():  # a second stop cannot cut the clean-up short
            if process is not None:
                if self._answer is None:
                    process.terminate()  # SIGTERM: it dies at once (worker_started)
                process.join(EXIT_SECONDS)
                if process.exitcode is None:
                    process.kill()
                    process.join()
            if self._receive is not None:
                self._receive.close()
                self._receive = None
