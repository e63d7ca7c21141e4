"""The per-file work of a load on a Dask cluster (see :mod:`quizkit.cluster`).

Each task stages one batch of files on a worker, in a DuckDB connection of its own, and sends
back the batch's candidate rows (flat rows, never documents); the client picks the winners
among all of them, as a local load does, and writes the Parquet dataset.

With findings, the staging starts as soon as the validation's last task is submitted, at a
lower priority than the validation's tasks: the workers stage batches while the validation's
last tasks leave them idle and while the client runs the cross-file checks, and the client
then finds the first batches done. (Started earlier, a staging task that a worker picks up
in a moment without checks to run holds the checks back for its whole length.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from quizkit.analysis.load import Candidates, Input, batches, candidates_of, offset_of
from quizkit.cluster import check_many, ordered, threads_of, tune_worker_allocator
from quizkit.engine import CheckMany
from quizkit.findings import Report

#: Bytes of input in one task of a cluster load, at most (the batch of a local load: larger
#: batches cost less per byte to stage).
TASK_BYTES = 128 << 20
#: Bytes of input in one task, at least: a task costs ~0.1 CPU s whatever its size (a DuckDB
#: connection, its candidate tables and ~20 statements per batch), as much as staging ~6 MB.
MIN_TASK_BYTES = 4 << 20
#: A task stages at most 1/TASKS_PER_THREAD of the bytes left per worker thread (guided
#: self-scheduling): tasks halve towards the end of the load, so that the workers finish
#: close together and the client has little left to add once the last one is done, in a
#: few tasks, each with its fixed cost.
TASKS_PER_THREAD = 1
#: Priority of the staging tasks against the validation's (0).
STAGING_PRIORITY = -1


def _candidates_task(task: tuple[int, list[Input]]) -> tuple[int, Candidates]:
    """On a worker: the candidate rows of one batch of a load."""
    tune_worker_allocator()
    batch_no, batch = task
    return batch_no, candidates_of(batch, offset_of(batch_no), threads=1)


class _Staging:
    """The staged batches, in order; the tasks start at :meth:`start` or when first asked."""

    def __init__(self, client: Any, batches: list[list[Input]]) -> None:
        self.client = client
        self.batches = batches
        self.results: Iterator[tuple[int, Candidates]] | None = None

    def start(self) -> None:
        if self.results is None:
            self.results = ordered(self.client, _candidates_task, enumerate(self.batches),
                                   priority=STAGING_PRIORITY)

    def __iter__(self) -> Iterator[tuple[int, Candidates]]:
        return self

    def __next__(self) -> tuple[int, Candidates]:
        self.start()
        assert self.results is not None
        return next(self.results)


class ClusterRunner:
    """The per-file work of a load (``quizkit.analysis.load.Runner``) on a cluster.

    ``validate(paths, check_many)`` runs the validation with ``check_many``
    (:func:`quizkit.runner.run`).
    """

    def __init__(self, client: Any,
                 validate: Callable[[list[str], CheckMany], Report]) -> None:
        self.client = client
        self.validate = validate
        self.staging: _Staging | None = None

    def report(self, paths: list[str]) -> Report:
        then = self.staging.start if self.staging is not None else None
        return self.validate(paths, check_many(self.client, submitted=then))

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        """One batch per task, shrinking towards the end of the load."""
        return batches(inputs, min(most, TASK_BYTES), min_bytes=MIN_TASK_BYTES,
                       parts=threads_of(self.client) * TASKS_PER_THREAD)

    def candidates(self, batches: list[list[Input]]) -> Iterator[tuple[int, Candidates]]:
        self.staging = _Staging(self.client, batches)
        return self.staging
