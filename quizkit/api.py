"""The Python API, mirroring ``quizkit validate``.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from quizkit import cluster, engine
from quizkit.analysis.load import (
    LoadResult,
    OnBatch,
    Progress,
    load_parquet,
    load_paths,
)
from quizkit.findings import Report
from quizkit.reporters.base import Reporter
from quizkit.sources import expand


def validate(paths: Iterable[str] | str, *, kind: str | None = None, jobs: int | None = 1,
             reporter: Reporter | None = None, adjust: engine.Adjust | None = None,
             scheduler: str | None = None) -> Report:
    """Validate files, directories or ``s3://`` URLs (``-`` reads stdin) and return the
    :class:`Report`. ``scheduler`` (``tcp://host:8786``) checks the files on that Dask cluster.

    Raises :class:`quizkit.sources.MissingPath` when a path does not exist and
    :class:`quizkit.cluster.ClusterError` when the cluster cannot be reached.
    """
    if isinstance(paths, str):
        paths = [paths]
    options = engine.Options(kind=kind)
    if scheduler is None:
        return engine.run(expand(paths), options, reporter=reporter, jobs=jobs, adjust=adjust)
    with cluster.connect(scheduler) as client:
        return engine.run(expand(paths), options, reporter=reporter, adjust=adjust,
                          check_many=cluster.check_many(client))


def load(paths: Sequence[str | os.PathLike[str]] | str, *, db: str | os.PathLike[str] | None = None,
         parquet: str | os.PathLike[str] | None = None, findings: bool = True,
         memory_limit: str | None = None, threads: int | None = None,
         scheduler: str | None = None, progress: Progress | None = None,
         on_batch: OnBatch | None = None) -> LoadResult:
    """Load exports into the DuckDB file ``db`` or the Parquet dataset ``parquet`` (one of
    them), as ``quizkit load`` does; with ``scheduler``, on that Dask cluster (``parquet``
    only)."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    if (db is None) == (parquet is None):
        raise ValueError("give db or parquet (one of them)")
    options = dict(findings=findings, memory_limit=memory_limit, threads=threads,
                   progress=progress, on_batch=on_batch)
    if scheduler is None:
        if db is not None:
            return load_paths(db, paths, **options)
        return load_parquet(parquet, paths, **options)
    if parquet is None:
        raise ValueError("a load on a cluster writes a Parquet dataset: give parquet")
    with cluster.connect(scheduler) as client:
        def report(names: list[str]) -> Report:
            return engine.run(expand(names), engine.Options(),
                              check_many=cluster.check_many(client))
        return load_parquet(parquet, paths, runner=cluster.ClusterRunner(client, report),
                            **options)

