"""A run recorded in the history: the location checked before the run, the run and its
metrics appended after it.

The history is a file the run both reads and writes, like a database: it is never one of
the run's inputs nor one of its outputs (quizkit.outputs.writer.refuse_inputs), and it is
checked to be a history (or nothing yet) before the long work, so a wrong ``--history``
costs nothing. A run that is interrupted never reaches :meth:`Recording.finish`: the
history is left as it was.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from quizkit.catalog.findings import Report
from quizkit.history import history_store as store
from quizkit.history.runs import Run
from quizkit.inputs.remote import is_url
from quizkit.outputs.interrupts import pause_at
from quizkit.outputs.writer import refuse_inputs
from quizkit.rules import REGISTRY
from quizkit.version import __version__

#: The metric of the findings of one rule: ``findings.<CODE>``.
FINDINGS = "findings."


def default_dataset(paths: Iterable[str]) -> str:
    """The inputs' common path (absolute; URLs as given): the dataset a run is recorded
    under when ``--dataset`` is not given. Standard input is ``-``."""
    given = [p for p in paths if p != "-"] or ["-"]
    if given == ["-"]:
        return "-"
    if any(is_url(p) for p in given):
        common: list[str] = []
        for names in zip(*(p.split("/") for p in given), strict=False):
            if len(set(names)) > 1:
                break
            common.append(names[0])
        return "/".join(common)
    return os.path.commonpath([os.path.abspath(p) for p in given])


def findings_metrics(report: Report) -> dict[str, float]:
    """``findings.<CODE>``: the findings of each rule of the catalog (0 for a rule without
    any, so each rule's series has a value for every run) and of any other code found."""
    counts = {f"{FINDINGS}{rule.code}": 0.0 for rule in REGISTRY.rules}
    counts.update({f"{FINDINGS}{code}": float(n) for code, n in report.by_code.items()})
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class Recording:
    """A run to be recorded at ``location`` under ``dataset``, started at ``started_at``."""

    location: str
    dataset: str
    started_at: dt.datetime

    def finish(self, report: Report, exit_code: int,
               metrics: Mapping[str, float] | None = None) -> str:
        """Append the run (with its own exit code) and its metrics: the findings of each
        rule, and ``metrics`` (a check's values). The new run id."""
        pause_at("history")  # the test hook: a stop here records nothing
        values = {**findings_metrics(report), **(metrics or {})}
        run = Run(self.dataset, self.started_at, __version__, exit_code, report.file_count,
                  report.documents)
        return store.append(self.location, run, values)


def begin(location: str | os.PathLike[str] | None, dataset: str | None,
          paths: Iterable[str], *, inputs: Iterable[str | os.PathLike[str] | None] = (),
          outputs: Iterable[str | os.PathLike[str] | None] = ()) -> Recording | None:
    """The recording of a run over ``paths`` (``None`` without a ``location``), after
    checking that the location is a history (or nothing yet), is none of the run's
    ``inputs`` (``paths`` among them) and none of its ``outputs``.

    Raises :class:`~quizkit.history.store.HistoryError` and
    :class:`~quizkit.outputs.writer.OutputError` (both exit 2).
    """
    paths = list(paths)
    if location is None:
        if dataset is not None:
            raise store.HistoryError("--dataset names the run in a history: give --history")
        return None
    where = os.fspath(location)
    if dataset is not None and not dataset.strip():
        raise store.HistoryError("--dataset: give a name")
    refuse_inputs([where], [*paths, *inputs], written_trees=[where])
    refuse_inputs(outputs, [where], read_trees=[where])
    store.check(where)
    return Recording(where, dataset if dataset is not None else default_dataset(paths),
                     dt.datetime.now(dt.UTC))
