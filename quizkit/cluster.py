"""``validate`` and ``load`` on a Dask distributed cluster (``--scheduler tcp://host:8786``).

The client (the ``quizkit`` command) lists the inputs and groups them into tasks; Dask runs
the tasks on its workers, which read the inputs themselves (a shared file system, or object
storage through :mod:`quizkit.remote`) and send back what the client needs and nothing more:

* ``validate``: per file, the findings and the cross-file facts
  (:func:`quizkit.engine.check_source`). The client runs the cross-file checks on the
  gathered facts, as a local run does, so reports and exit codes are the same.
* ``load``: per batch of files, the flat candidate rows of every table
  (:mod:`quizkit.analysis.cluster_load`); the client picks the winners and writes the
  Parquet dataset.

Tasks are gathered in input order, a bounded window of them in flight. When a worker dies,
Dask runs its tasks again elsewhere: results do not change. Dask itself comes with
``pip install 'quizkit[cluster]'``.
"""

from __future__ import annotations

import ctypes
import importlib
import itertools
import socket
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

from quizkit import engine
from quizkit.schemas import SchemaBook
from quizkit.sources import Source

#: Seconds to wait for the scheduler before giving up (exit 2).
CONNECT_TIMEOUT = 5
#: Tasks in flight per worker thread.
WINDOW_PER_THREAD = 4
#: Most files in one validation task.
MAX_FILES_PER_TASK = 64

#: glibc's ``mallopt`` parameters, and the values a worker task sets (see
#: :func:`tune_worker_allocator`).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 64 << 20
MMAP_THRESHOLD = 32 << 20

T = TypeVar("T")
R = TypeVar("R")


class ClusterError(Exception):
    """The cluster could not be reached or failed the run (one-line message)."""


@contextmanager
def connect(address: str) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address``, closed at the end."""
    # Dask is an optional extra, imported only when a cluster is used: a local run neither
    # needs it nor pays for importing it.
    try:
        distributed = importlib.import_module("distributed")
    except ImportError:
        raise ClusterError("--scheduler needs Dask: pip install 'quizkit[cluster]'") from None
    _probe(address)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except Exception as exc:  # e.g. MemoryError from a peer that does not speak Dask
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                           f"{_one_line(exc)}") from None
    try:
        yield client
    finally:
        client.close()


def _probe(address: str) -> None:
    """Fail at once when nothing answers at ``address``'s host and port.

    A ``Client`` that cannot connect gives up after ``CONNECT_TIMEOUT``, but leaves Dask's IO
    loop to be torn down when the process exits, which took another 4-5 s: a plain TCP
    connection first keeps "unreachable" well under 10 s. Addresses without a host and port
    (e.g. ``inproc://``) are left to Dask.
    """
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # not a port number: Dask says what is wrong with it
        return
    if not host or port is None:
        return
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                           f"{exc.strerror or _one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _threads(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


def ordered(client: Any, fn: Callable[..., R], tasks: Iterable[T], **kwargs: Any
             ) -> Iterator[R]:
    """``fn(task, **kwargs)`` on the cluster for every task, results in task order, with a
    bounded window of tasks in flight."""
    window = _threads(client) * WINDOW_PER_THREAD
    it = iter(tasks)
    pending: deque[Any] = deque(client.submit(fn, t, pure=False, **kwargs)
                                for t in itertools.islice(it, window))
    try:
        while pending:
            future = pending.popleft()
            try:
                result = future.result()
            except Exception as exc:  # a task that failed for good (workers killed 3 times)
                raise ClusterError(f"the cluster failed a task: {_one_line(exc)}") from None
            nxt = next(it, None)
            if nxt is not None:
                pending.append(client.submit(fn, nxt, pure=False, **kwargs))
            yield result
    finally:
        for future in pending:
            future.cancel()


def tune_worker_allocator() -> None:
    """On a worker: give back glibc's usual allocator thresholds.

    A Dask nanny starts its worker with ``MALLOC_TRIM_THRESHOLD_=65536``, so that freed
    memory goes back to the system at once. That also fixes the mmap threshold at 128 KiB, and
    parsing documents, which allocates and frees large blocks all the time, then pays for the
    system calls and page faults: the checks of a 189 MB corpus took 1.62 CPU s under that
    setting against 1.29 s without it (``docs/performance.md``). A task is bounded (at most
    64 files or 32 MB), so keeping up to 64 MB of freed heap costs little. Elsewhere than glibc
    this does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def _check_task(sources: list[Source], options: engine.Options) -> list[engine.FileOutcome]:
    """On a worker: check the sources (reading them there), with the schemas the worker keeps
    for all its tasks (compiled by its first task)."""
    tune_worker_allocator()
    schemas = SchemaBook.kept_by(importlib.import_module("distributed").get_worker(),
                                 options.profile)
    return [engine.check_source(s, options, schemas) for s in sources]


def _groups(items: list[T], size: int) -> list[list[T]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def check_many(client: Any) -> engine.CheckMany:
    """An ``engine.run(check_many=...)`` that checks the files on the cluster."""
    def run(sources: list[Source], options: engine.Options) -> Iterator[engine.FileOutcome]:
        size = max(1, min(MAX_FILES_PER_TASK, len(sources) // (_threads(client) * 8)))
        for outcomes in ordered(client, _check_task, _groups(sources, size),
                                 options=options):
            yield from outcomes
    return run
