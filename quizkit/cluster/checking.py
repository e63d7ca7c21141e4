"""``validate`` and ``load`` on a Dask distributed cluster (``--scheduler tcp://host:8786``).

The client (the ``quizkit`` command) lists the inputs and groups them into tasks; Dask runs
the tasks on its workers, which read the inputs themselves (a shared file system, or object
storage through :mod:`quizkit.inputs.remote`) and send back what the client needs and nothing more:

* ``validate``: per file, the findings and the cross-file facts
  (:func:`quizkit.checks.engine.check_source`). The client runs the cross-file checks on the
  gathered facts, as a local run does, so reports and exit codes are the same.
* ``load``: per batch of files, the flat candidate rows of the records; the candidates of
  the versions and their entities stay on the workers, which pick their winners and write
  them as Parquet parts (:mod:`quizkit.cluster.loading`). The client picks the rest
  and writes the dataset.

Paths are resolved on the client: a worker is sent absolute paths (the reports keep the
paths as given), so a relative path means what it means locally, whatever the worker's
working directory. Before any task, one worker is asked whether it sees the first local
file; a cluster that cannot is a :class:`ClusterError` (exit 2), not a run of unreadable
inputs.

Validation tasks are gathered in input order, a bounded window of them in flight; a load
submits all its tasks at once, since their results stay on the workers. When a worker dies,
Dask runs its tasks again elsewhere: results do not change. Dask itself comes with
``pip install 'quizkit[cluster]'``.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import pickle
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeVar

from quizkit.catalog.display import printable
from quizkit.checks import engine
from quizkit.cluster import scheduler_probe
from quizkit.inputs import remote, waits
from quizkit.inputs.batching import consecutive_runs
from quizkit.inputs.sources import Source
from quizkit.model.schemas import SchemaBook

#: Tasks in flight per worker thread.
WINDOW_PER_THREAD = 4
#: Bytes of input in one validation task, at most: every task costs the client, the scheduler
#: and the worker a round trip of a few milliseconds of CPU each, so tasks are as large as
#: they can be while every worker still has work until the end of the run.
MAX_TASK_BYTES = 64 << 20
#: Bytes of input in one validation task, at least (the last tasks of a run, or all of a
#: small one).
MIN_TASK_BYTES = 1 << 20
#: A task takes at most 1/TASKS_PER_THREAD of the bytes left per worker thread: tasks shrink
#: towards the end of a run, so that the workers finish close together.
TASKS_PER_THREAD = 2
#: What a file counts for in a task's bytes besides its size (opening and stating it, its
#: outcome); also what a file of unknown size (object storage) counts for.
FILE_BYTES = 16 << 10
#: Most files in one validation task.
MAX_FILES_PER_TASK = 4096

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
    """A Dask client of the scheduler at ``address``, closed at the end, once at least one
    worker has joined; :class:`ClusterError` when that takes more than the run's
    :func:`quizkit.inputs.waits.seconds`.

    The peer is checked first by :mod:`quizkit.cluster.scheduler_probe`, which deserialises nothing
    it sends; only a peer that answers as a scheduler gets a Dask ``Client``.
    """
    # Dask is an optional extra, imported only when a cluster is used: a local run neither
    # needs it nor pays for importing it.
    try:
        distributed = importlib.import_module("distributed")
    except ImportError:
        raise ClusterError("--scheduler needs Dask: pip install 'quizkit[cluster]'") from None
    try:
        wait = waits.seconds()
    except ValueError as exc:
        raise ClusterError(str(exc)) from None
    security = distributed.Security()
    try:
        scheduler_probe.check(address, wait,
                              security.get_connection_args("client").get("ssl_context"))
    except (scheduler_probe.PeerError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {printable(address)}: "
                           f"{exc}") from None
    try:
        client = distributed.Client(address, timeout=wait, security=security,
                                    set_as_default=False)
    except Exception as exc:  # e.g. MemoryError from a peer that does not speak Dask
        raise ClusterError(f"cannot reach the Dask scheduler at {printable(address)}: "
                           f"{_one_line(exc)}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait)
        except (TimeoutError, OSError):
            raise ClusterError(f"no worker joined the Dask scheduler at {printable(address)} "
                               f"within {wait:g} s (--wait-timeout)") from None
        yield client
    finally:
        client.close()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def threads_of(client: Any) -> int:
    """Worker threads of the cluster (at least 1)."""
    return max(1, sum(client.nthreads().values()))


def ordered(client: Any, fn: Callable[..., R], tasks: Iterable[T], *, priority: int = 0,
            submitted: Callable[[], None] | None = None, **kwargs: Any) -> Iterator[R]:
    """``fn(task, **kwargs)`` on the cluster for every task, results in task order, with a
    bounded window of tasks in flight.

    The first window is submitted at once (not when the results are first asked for), so
    that work started early runs while the client does something else. Among queued tasks
    the scheduler runs those of the higher ``priority`` first: a lower one fills the
    workers' idle moments. ``submitted()`` is called once the last task is submitted.
    """
    window = threads_of(client) * WINDOW_PER_THREAD
    it = iter(tasks)

    def submit(task: T) -> Any:
        return client.submit(fn, task, pure=False, priority=priority, **kwargs)

    pending: deque[Any] = deque()
    left = True  # tasks may be left to submit

    def submit_next() -> None:
        nonlocal left
        if not left:
            return
        nxt = next(it, None)
        if nxt is not None:
            pending.append(submit(nxt))
            return
        left = False
        if submitted is not None:
            submitted()

    for _ in range(window):
        submit_next()

    def results() -> Iterator[R]:
        try:
            while pending:
                future = pending.popleft()
                result = result_of(future)
                future.release()
                submit_next()
                yield result
        finally:
            for future in pending:
                future.cancel()
    return results()


def result_of(future: Any) -> Any:
    """The result of a task; :class:`ClusterError` if it failed for good (e.g. the workers
    running it were killed three times)."""
    try:
        return future.result()
    except Exception as exc:
        raise ClusterError(f"the cluster failed a task: {_one_line(exc)}") from None


def tune_worker_allocator() -> None:
    """On a worker: give back glibc's usual allocator thresholds.

    A Dask nanny starts its worker with ``MALLOC_TRIM_THRESHOLD_=65536``, so that freed
    memory goes back to the system at once. That also fixes the mmap threshold at 128 KiB, and
    parsing documents, which allocates and frees large blocks all the time, then pays for the
    system calls and page faults: the checks of a 189 MB corpus took 1.62 CPU s under that
    setting against 1.29 s without it (``docs/performance.md``). A task is bounded (at most
    64 MB of input to check, or 128 MB to stage), so keeping up to 64 MB of freed heap costs
    little. Elsewhere than glibc this does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def _sees(path: str) -> bool:
    """On a worker: whether ``path`` is there."""
    return os.path.lexists(path)


def check_visible(client: Any, paths: Iterable[str]) -> None:
    """Refuse a run whose first local file (an absolute path) a worker cannot see."""
    first = next((p for p in paths if os.path.isabs(p) and os.path.lexists(p)), None)
    if first is None:
        return
    if not result_of(client.submit(_sees, first, pure=False)):
        raise ClusterError(f"the Dask workers cannot see {printable(first)}: a cluster reads "
                           "the inputs itself (a file system shared at the same path, or "
                           "s3:// URLs)")


def resolved(source: Source) -> Source:
    """``source`` as a worker must read it: a local file by its absolute path."""
    if source.is_stdin or remote.is_url(source.path) or os.path.isabs(source.path):
        return source
    return replace(source, path=os.path.abspath(source.path))


def _check_task(sources: list[tuple[Source, str]], options: engine.Options) -> bytes:
    """On a worker: check the sources (reading them there, by absolute path; reported by
    the name each comes with), as a local worker does, with the
    schemas the worker keeps for all its tasks (compiled by its first task); their outcomes
    pickled as one blob.

    Dask would serialize a list of outcomes item by item, one frame and one socket read per
    file on the client (1.7 s of the client's CPU for 13,000 files); a blob is one frame.
    """
    tune_worker_allocator()
    schemas = SchemaBook.kept_by(importlib.import_module("distributed").get_worker(),
                                 options.profile)
    with engine.fewer_collections():  # as in a local run's workers (engine.GC_THRESHOLD)
        outcomes = [engine.check_source(s, options, schemas, name=name)
                    for s, name in sources]
    return pickle.dumps(outcomes, protocol=pickle.HIGHEST_PROTOCOL)


def task_groups(sources: list[tuple[Source, Source]],
                threads: int) -> list[list[tuple[Source, Source]]]:
    """Consecutive runs of ``sources`` for the tasks of a run, in order: each of at most
    :data:`MAX_TASK_BYTES` (or one larger file) and :data:`MAX_FILES_PER_TASK` files, and of
    at most 1/:data:`TASKS_PER_THREAD` of the bytes left per worker thread, so that the
    tasks shrink towards the end (to :data:`MIN_TASK_BYTES`). Each source comes as
    (where it is read, as it was given)."""
    return consecutive_runs(sources, [s.size() + FILE_BYTES for s, _ in sources],
                            max_weight=MAX_TASK_BYTES, max_items=MAX_FILES_PER_TASK,
                            parts=max(1, threads) * TASKS_PER_THREAD,
                            min_weight=MIN_TASK_BYTES)


def check_many(client: Any, submitted: Callable[[], None] | None = None) -> engine.CheckMany:
    """An ``engine.run(check_many=...)`` that checks the files on the cluster;
    ``submitted()`` is called once every file is on its way (see :func:`ordered`)."""
    def run(sources: list[Source], options: engine.Options) -> Iterator[engine.FileOutcome]:
        located = [resolved(s) for s in sources]
        check_visible(client, (s.path for s in located if s.error is None))
        groups = [[(at, given.display) for at, given in group]
                  for group in task_groups(list(zip(located, sources, strict=True)),
                                           threads_of(client))]
        for blob in ordered(client, _check_task, groups, options=options,
                            submitted=submitted):
            yield from pickle.loads(blob)
    return run


@contextmanager
def checking(address: str) -> Iterator[engine.CheckMany]:
    """The ``check_many`` of the cluster at ``address``, connected for the ``with`` block."""
    with connect(address) as client:
        yield check_many(client)
