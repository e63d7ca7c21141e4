"""What a history holds: runs, their metrics, and the columns of both tables."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field


class HistoryError(Exception):
    """The history cannot be used: not a history, unreadable, or not writable (one line;
    exit 2)."""


@dataclass(frozen=True)
class Run:
    """One run of quizkit over a dataset, as the ``runs`` table keeps it."""

    dataset: str
    started_at: dt.datetime
    quizkit_version: str
    exit_code: int
    files: int
    documents: int


@dataclass
class Timeline:
    """Runs with their metrics, oldest first: ``runs`` as (run id, run), ``metrics`` by run
    id, then by name."""

    runs: list[tuple[str, Run]] = field(default_factory=list)
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)

    def names(self) -> list[str]:
        """Every metric name of these runs, sorted."""
        return sorted({name for values in self.metrics.values() for name in values})


#: The columns of each table: (name, DuckDB type). The Parquet form has the same names and
#: the matching Arrow types (quizkit.history.parquet_history).
RUNS = (("run_id", "VARCHAR"), ("dataset", "VARCHAR"), ("started_at", "TIMESTAMP"),
        ("quizkit_version", "VARCHAR"), ("exit_code", "INTEGER"), ("files", "BIGINT"),
        ("documents", "BIGINT"))
METRICS = (("run_id", "VARCHAR"), ("name", "VARCHAR"), ("value", "DOUBLE"))
TABLES = {"runs": RUNS, "metrics": METRICS}


def utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` in UTC without a time zone (a naive datetime is taken as UTC already)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(dt.UTC).replace(tzinfo=None)


def as_run(row: tuple) -> tuple[str, Run]:
    """(run id, run) from a row of ``runs`` in the order of :data:`RUNS`; ``started_at``
    comes back in UTC, with its time zone."""
    run_id, dataset, started, version, code, files, documents = row
    return str(run_id), Run(str(dataset), started.replace(tzinfo=dt.UTC), str(version),
                            int(code), int(files), int(documents))


def run_row(run_id: str, run: Run) -> tuple:
    """A row of ``runs`` for ``run``, in the order of :data:`RUNS`."""
    return (run_id, run.dataset, utc(run.started_at), run.quizkit_version, int(run.exit_code),
            int(run.files), int(run.documents))
