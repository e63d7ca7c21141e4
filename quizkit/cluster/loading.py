"""The work of a load on a Dask cluster (the connection: :mod:`quizkit.cluster.checking`),
in two rounds of tasks.

1. *Staging*: each task stages one batch of files on a worker, in a DuckDB connection of its
   own (:func:`quizkit.analysis.load_worker.candidates_of`). The candidates of the versions and
   their entities, the bulk of a load's rows, stay on the worker, split into parts by the
   hash of their version id; the client gets the rest (packages, users, games, banners,
   categories, files: a few percent of the rows) and the files skipped, and picks their
   winners as a local load does.
2. *Versions*: one task per part of the version ids picks the winning versions and entities
   among that part of every batch (Dask brings the parts to it, from worker to worker), with
   the winning packages (from every batch's package keys: id, file, document number), and
   writes them as a Parquet part of each table
   (:func:`quizkit.analysis.load_worker.versions_of`). The client places the parts in the dataset.
   Every task is submitted at once: Dask starts these when the last batch is staged.

So the client never holds or adds the bulk of the rows, and the picks and the Parquet
writing of most rows run on every worker at once. The staged parts stay in the workers'
memory until the second round, as zstd-compressed Parquet (about 4% of the input's size
in all), and a worker lost on the way has its batches staged again from the client's
futures.

With findings, the staging starts as soon as the validation's last task is submitted, at a
lower priority than the validation's tasks: the workers stage batches while the validation's
last tasks leave them idle and while the client runs the cross-file checks, and the client
then finds the first batches done. (Started earlier, a staging task that a worker picks up
in a moment without checks to run holds the checks back for its whole length.)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import run
from quizkit.analysis.dataset import Part
from quizkit.analysis.load_inputs import Input, batches, offset_of
from quizkit.analysis.load_stage import Candidates, Tick, pick
from quizkit.analysis.load_worker import candidates_of, versions_of
from quizkit.catalog.findings import Report
from quizkit.checks.engine import CheckMany
from quizkit.cluster.checking import (
    check_many,
    check_visible,
    result_of,
    threads_of,
    tune_worker_allocator,
)
from quizkit.inputs.sources import Source
from quizkit.reporters.base import Reporter

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
#: Bytes of input per part of the version ids, at most (their candidates are about a third
#: of it, in DuckDB's memory while a versions task picks them). There are as many parts as
#: worker threads, or a multiple of that, so that every worker has one to pick.
SPLIT_BYTES = 1 << 30


def splits_for(total_bytes: int, threads: int) -> int:
    """How many parts the version candidates of a load of ``total_bytes`` are split into."""
    threads = max(1, threads)
    return threads * max(1, math.ceil(total_bytes / (threads * SPLIT_BYTES)))


def _candidates_task(task: tuple[int, list[Input]], split: int) -> tuple[Any, ...]:
    """On a worker: stage one batch. The candidates for the client first, then the package
    keys, then one item per part of the version ids (taken apart by ``getitem`` tasks, so
    that each goes only where it is needed)."""
    tune_worker_allocator()
    batch_no, batch = task
    cands = candidates_of(batch, offset_of(batch_no), split=split, threads=1)
    return (Candidates(cands.tables, cands.skipped), cands.keys, *cands.split)


def _versions_task(keys: list[Part], split: list[dict[str, Part]]
                   ) -> tuple[dict[str, Part], list[str | None]]:
    """On a worker: the versions and entities of one part of the version ids."""
    tune_worker_allocator()
    return versions_of(split, keys, threads=1)


class _Staging:
    """The tasks of a load, all submitted at :meth:`start` or when first asked: staging, and
    the versions tasks, which Dask starts once the last batch is staged (each batch's
    package keys tell every versions task the winning packages)."""

    def __init__(self, client: Any, batches: list[list[Input]], split: int) -> None:
        self.client = client
        self.batches = batches
        self.split = split
        self.heads: list[Any] = []
        self.picks: list[Any] = []
        self.held: list[Any] = []

    def start(self) -> None:
        if self.heads or not self.batches:
            return
        submit = self.client.submit

        def item(future: Any, i: int) -> Any:
            return submit(operator.getitem, future, i, pure=False)

        staged = [submit(_candidates_task, task, self.split, pure=False,
                         priority=STAGING_PRIORITY) for task in enumerate(self.batches)]
        self.heads = [item(f, 0) for f in staged]
        keys = [item(f, 1) for f in staged]
        self.picks = [submit(_versions_task, keys, [item(f, 2 + p) for f in staged],
                             pure=False) for p in range(self.split)]
        self.held = [*staged, *keys]

    def __iter__(self) -> Iterator[tuple[int, Candidates]]:
        """The candidates of each batch for the client, in order."""
        self.start()
        for batch_no, head in enumerate(self.heads):
            yield batch_no, result_of(head)
            head.release()

    def versions(self) -> list[tuple[dict[str, Part], list[str | None]]]:
        """The picked versions of every part of the version ids."""
        try:
            return [result_of(f) for f in self.picks]
        finally:
            for future in (*self.picks, *self.held):
                future.release()


class ClusterRunner:
    """The per-file work of a load (``quizkit.analysis.load.Runner``) on a cluster.

    ``validate(sources, check_many, reporter)`` runs the validation with ``check_many``
    (:func:`quizkit.checks.runner.run`).
    """

    def __init__(self, client: Any,
                 validate: Callable[[list[Source], CheckMany, Reporter], Report]) -> None:
        self.client = client
        self.validate = validate
        self.staging: _Staging | None = None

    def report(self, sources: list[Source], reporter: Reporter) -> Report:
        then = self.staging.start if self.staging is not None else None
        return self.validate(sources, check_many(self.client, submitted=then), reporter)

    def batches(self, inputs: list[Input], most: int) -> list[list[Input]]:
        """One batch per task, shrinking towards the end of the load."""
        return batches(inputs, min(most, TASK_BYTES), min_bytes=MIN_TASK_BYTES,
                       parts=threads_of(self.client) * TASKS_PER_THREAD)

    def candidates(self, batches: list[list[Input]], verdicts: Mapping[str, str]
                   ) -> Iterator[tuple[int, Candidates]]:
        """Staged on the workers, beside the validation: before its ``verdicts``, so the
        workers ask the validation's reading of the files DuckDB stumbles on themselves
        (:func:`quizkit.analysis.load_read.read_files`)."""
        check_visible(self.client, (i.name for batch in batches for i in batch))
        threads = threads_of(self.client)
        split = splits_for(sum(i.size for b in batches for i in b), threads)
        self.staging = _Staging(self.client, batches, split)
        return iter(self.staging)

    def pick(self, con: duckdb.DuckDBPyConnection, tick: Tick) -> dict[str, list[Part]]:
        """The records' winners here; the versions' on the workers, as parts."""
        pick(con, transform.RECORD_PICKS, tick)
        if self.staging is None or not self.staging.picks:  # nothing was staged
            pick(con, transform.VERSION_PICKS, tick)
            return {}
        made = self.staging.versions()
        tick("pick:versions")
        run(con, "CREATE OR REPLACE TEMP TABLE new_versions AS "
                 "SELECT unnest(CAST($ids AS VARCHAR[])) AS id",
            {"ids": [i for _, ids in made for i in ids]})
        return {t: [parts[t] for parts, _ in made] for t in transform.BY_VERSION}
