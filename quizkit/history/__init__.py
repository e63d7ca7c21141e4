"""The run history: each run of a dataset and its metrics, kept in a DuckDB file or a folder of
Parquet files (local or ``s3://``), for trends and checks across runs (docs/history.md).

Its interface (:mod:`quizkit.history.history_store`): ``append(location, run, metrics)``,
``series(location, dataset, name, last)``, ``timeline(location, dataset, last)``, ``Run``
and ``HistoryError``.
"""

from __future__ import annotations

from quizkit.history.history_store import HistoryError, Run, Timeline, append, series, timeline

__all__ = ["HistoryError", "Run", "Timeline", "append", "series", "timeline"]
