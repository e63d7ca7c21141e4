"""The per-file work of a load on a Dask cluster (see :mod:`quizkit.cluster`).

Each task stages one batch of files on a worker, in a DuckDB connection of its own, and sends
back the batch's candidate rows (flat rows, never documents); the client picks the winners
among all of them, as a local load does, and writes the Parquet dataset.

The batches are started as soon as they are known, before the validation that gives the
findings, at a lower priority than its tasks: the workers check files first and stage
batches whenever the checks leave them idle (while the client runs the cross-file checks, at
the end of a run), and the client then finds the first batches done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from quizkit.analysis.load import Candidates, Input, candidates_of, offset_of
from quizkit.cluster import ordered, threads_of, tune_worker_allocator
from quizkit.findings import Report

#: Bytes of input in one task of a cluster load, at most (the batch of a local load: larger
#: batches cost less per byte to stage).
TASK_BYTES = 128 << 20
#: Bytes of input in one task, at least (below, a task's fixed costs dominate).
MIN_TASK_BYTES = 8 << 20
#: Tasks per worker thread, at least, while the batches are not below MIN_TASK_BYTES: every
#: worker has work until the end.
TASKS_PER_THREAD = 3
#: Priority of the staging tasks against the validation's (0).
STAGING_PRIORITY = -1


def _candidates_task(task: tuple[int, list[Input]]) -> tuple[int, Candidates]:
    """On a worker: the candidate rows of one batch of a load."""
    tune_worker_allocator()
    batch_no, batch = task
    return batch_no, candidates_of(batch, offset_of(batch_no), threads=1)


class ClusterRunner:
    """The per-file work of a load (``quizkit.analysis.load.Runner``) on a cluster."""

    def __init__(self, client: Any, validate: Callable[[list[str]], Report]) -> None:
        self.client = client
        self.validate = validate

    def report(self, paths: list[str]) -> Report:
        return self.validate(paths)

    def batch_bytes(self, total_bytes: int, most: int) -> int:
        """Bytes per task: at least TASKS_PER_THREAD tasks per worker thread."""
        share = total_bytes // (threads_of(self.client) * TASKS_PER_THREAD) + 1
        return max(MIN_TASK_BYTES, min(most, TASK_BYTES, share))

    def candidates(self, batches: list[list[Input]]) -> Iterator[tuple[int, Candidates]]:
        return ordered(self.client, _candidates_task, enumerate(batches),
                       priority=STAGING_PRIORITY)
