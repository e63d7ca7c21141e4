"""The per-file work of a load on a Dask cluster (see :mod:`quizkit.cluster`).

Each task stages one batch of files on a worker, in a DuckDB connection of its own, and sends
back the batch's candidate rows (flat rows, never documents); the client picks the winners
among all of them, as a local load does, and writes the Parquet dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from quizkit.analysis.load import Candidates, Input, candidates_of, offset_of
from quizkit.cluster import ordered, tune_worker_allocator
from quizkit.findings import Report

#: Bytes of input in one task of a cluster load: smaller than a local batch, so that every
#: worker has work until the end (a 189 MB dump makes 6 tasks, not 2).
TASK_BYTES = 32 << 20


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

    def candidates(self, batches: list[list[Input]]) -> Iterator[tuple[int, Candidates]]:
        return ordered(self.client, _candidates_task, enumerate(batches))
