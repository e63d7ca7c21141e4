"""The run history's one interface: append a run with its metrics, read a metric's series.

A history lives at a *location*: a DuckDB file (:mod:`quizkit.history.duckdb_history`) or
a folder of Parquet files (:mod:`quizkit.history.parquet_history`), local or ``s3://``.
Both hold two tables::

    runs(run_id, dataset, started_at, quizkit_version, exit_code, files, documents)
    metrics(run_id, name, value)

Which one a location is: an ``s3://`` URL is a folder; a local path that exists is what it
is (a file: DuckDB; a directory: Parquet); a new local path is a DuckDB file when its name
ends in ``.duckdb``, ``.ddb`` or ``.db``, else a folder. A location that exists but holds
something else (another database, a folder of other files, a text file) is refused with
:class:`HistoryError` and left as it was.

``started_at`` is kept in UTC, without a time zone, in both forms. The ``run_id`` starts
with that time (``20261127T183012123456Z-<random>``), so run ids sort as runs started.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
import uuid
from collections.abc import Mapping
from types import ModuleType

from quizkit.history.runs import HistoryError, Run, Timeline, utc
from quizkit.inputs.remote import is_url

__all__ = ["HistoryError", "Run", "Timeline", "append", "check", "series", "timeline"]

#: The module that keeps each kind of location, imported when a history is used: DuckDB (or
#: pyarrow) is not imported by a run that records none, so ``validate`` starts fast.
BACKENDS = {"duckdb": "quizkit.history.duckdb_history",
            "parquet": "quizkit.history.parquet_history"}
#: Names of a new local file that make it a DuckDB history (any other new name: a folder).
DUCKDB_SUFFIXES = (".duckdb", ".ddb", ".db")


def is_duckdb(location: str) -> bool:
    """Whether ``location`` is (or will be) a DuckDB file rather than a Parquet folder."""
    if is_url(location):
        return False
    if os.path.isdir(location):
        return False
    if os.path.lexists(location):
        return True
    return location.lower().endswith(DUCKDB_SUFFIXES)


def _backend(location: str) -> ModuleType:
    """The module that keeps this kind of location."""
    if not location:
        raise HistoryError("--history: give a DuckDB file or a folder")
    if is_url(location) and location.lower().rstrip("/").endswith(DUCKDB_SUFFIXES):
        raise HistoryError(f"{location}: a history in object storage is a folder of Parquet "
                           "files; a DuckDB history must be a local file")
    return importlib.import_module(BACKENDS["duckdb" if is_duckdb(location) else "parquet"])


def check(location: str) -> None:
    """Raise :class:`HistoryError` unless ``location`` is a history, or nothing yet; reads
    only, so it is done before a run's long work."""
    _backend(location).check(location)


def new_run_id(started_at: dt.datetime) -> str:
    """A run id that sorts by start time: ``YYYYMMDDTHHMMSSffffffZ-<12 hex digits>``."""
    return f"{utc(started_at):%Y%m%dT%H%M%S%fZ}-{uuid.uuid4().hex[:12]}"


def append(location: str, run: Run, metrics: Mapping[str, float]) -> str:
    """Record ``run`` and its ``metrics`` at ``location``, all or nothing; the new run id.

    Two runs appending at once both land. Raises :class:`HistoryError` when the location
    is not a history or cannot be written (it is then left as it was).
    """
    backend = _backend(location)
    run_id = new_run_id(run.started_at)
    values = {str(name): float(value) for name, value in metrics.items()}
    backend.append(location, run_id, run, values)
    return run_id


def series(location: str, dataset: str, name: str, last: int) -> list[float]:
    """The values of metric ``name`` over the ``last`` runs of ``dataset`` that have it,
    newest first; ``[]`` when there is no history yet."""
    if last < 1:
        return []
    return _backend(location).series(location, dataset, name, last)


def timeline(location: str, dataset: str | None = None, last: int | None = None) -> Timeline:
    """The runs at ``location`` (of ``dataset``, or of every dataset), oldest first, at most
    the ``last`` newest, with their metrics."""
    return _backend(location).timeline(location, dataset, last)
