"""The Python API, mirroring ``quizkit validate``.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from quizkit import cluster, engine
from quizkit.findings import Report
from quizkit.reporters.base import Reporter
from quizkit.sources import expand

if TYPE_CHECKING:
    from quizkit import analysis
    from quizkit.analysis.load import LoadResult, OnBatch, Progress


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


def load(paths: Sequence[str | os.PathLike[str]] | str, *,
         db: str | os.PathLike[str] | None = None,
         parquet: str | os.PathLike[str] | None = None, findings: bool = True,
         memory_limit: str | None = None, threads: int | None = None,
         scheduler: str | None = None, progress: Progress | None = None,
         on_batch: OnBatch | None = None) -> LoadResult:
    """Load exports into the DuckDB file ``db`` or the Parquet dataset ``parquet`` (one of
    them), as ``quizkit load`` does; with ``scheduler``, on that Dask cluster (``parquet``
    only)."""
    # Imported here, as in query(): validating must not load DuckDB.
    from quizkit.analysis.cluster_load import ClusterRunner
    from quizkit.analysis.load import load_parquet, load_paths

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
        return load_parquet(parquet, paths, runner=ClusterRunner(client, report),
                            **options)



def query(sql: str, paths: Iterable[str] | str = (), *, db: str | None = None,
          parquet: str | None = None, limit: int | None = None,
          timeout: float | None = None) -> analysis.Section:
    """Run one reading SQL statement (``quizkit query``) over a ``db`` file, a ``parquet``
    dataset or ``paths`` loaded in memory; the rows as a
    :class:`~quizkit.analysis.sections.Section`.

    ``limit`` keeps at most that many rows; ``timeout`` (seconds) stops the query with
    :class:`~quizkit.analysis.query.QueryTimeout`. Refused or failing SQL raises
    :class:`~quizkit.analysis.query.QueryError`.
    """
    # Imported here, not at the top: validating must not load DuckDB (as the CLI's lazy
    # commands, and tests/test_engine.py, make sure).
    from quizkit import analysis
    from quizkit.analysis.dataset import open_dataset
    from quizkit.analysis.query import lock_down

    path_list = [paths] if isinstance(paths, str) else list(paths)
    if sum(map(bool, (path_list, db, parquet))) != 1:
        raise ValueError("give export paths, db or parquet (one of them)")
    if parquet:
        with open_dataset(parquet) as con:
            lock_down(con)
            return analysis.query(con, sql, limit=limit, timeout=timeout)
    con = analysis.connect(db, read_only=True) if db else analysis.connect(None)
    try:
        if path_list:
            analysis.load(con, path_list, findings="findings" in sql.lower())
        lock_down(con)
        return analysis.query(con, sql, limit=limit, timeout=timeout)
    finally:
        con.close()
