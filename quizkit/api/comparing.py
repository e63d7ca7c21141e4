"""``diff``: what changed from one export to another."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from quizkit.api.database import duckdb_session
from quizkit.diff import output as diff_output
from quizkit.diff.result import DiffResult
from quizkit.diff.run import diff as run_diff
from quizkit.diff.run import input_files


def diff(old: str | os.PathLike[str], new: str | os.PathLike[str], *,
         format: str | None = None, output: str | os.PathLike[str] | None = None,
         reports: Sequence[str] = (), color: str = "never",
         fail_on: Iterable[str] | str | None = None, fail_if: Iterable[str] = (),
         memory_limit: str | None = None, threads: int | None = None,
         jobs: int | None = None, scheduler: str | None = None,
         exclude: Iterable[str] = (), include_hidden: bool = False,
         notes: Callable[[str], None] | None = None) -> DiffResult:
    """What changed from the export ``old`` to ``new`` (``quizkit diff``): each a file, a
    directory, an ``s3://`` URL, a ``.duckdb`` file from ``load`` or a Parquet dataset.

    Records are matched by table and key (docs/tables.md); the result holds each one
    added, removed, changed (with its fields) or moved, the counts per table, the totals,
    and ``exit_code`` (0 the same, 1 different, 3 an input could not be read). ``fail_on``
    (kinds of change) and ``fail_if`` (thresholds such as ``"packages.removed > 1%"``)
    decide what counts as different. With ``format`` (``text``, ``json``, ``jsonl``,
    ``markdown``, ``html``) and ``output`` or ``reports`` (``FORMAT:PATH``), the reports
    are also written, as ``validate`` writes them (``output=None``: standard output).
    ``memory_limit`` and ``threads`` are DuckDB's; ``jobs`` processes read the exports
    (default: one per core), or with ``scheduler`` (``tcp://host:8786``) the workers of that
    Dask cluster; ``exclude`` and ``include_hidden`` are the walk's; ``notes`` hears of
    exclude patterns that matched nothing.
    """
    old, new = os.fspath(old), os.fspath(new)
    memory_limit, threads = duckdb_session(memory_limit, threads)
    writing = format is not None or output is not None or bool(reports)
    specs = diff_output.plan(format, None if output is None else os.fspath(output), reports,
                             input_files(old, new, exclude, include_hidden)) if writing else []
    result = run_diff(old, new, exclude=exclude, include_hidden=include_hidden,
                      fail_on=fail_on, fail_if=fail_if, memory_limit=memory_limit,
                      threads=threads, jobs=jobs, scheduler=scheduler, notes=notes)
    diff_output.write(result, specs, color=color)
    return result
