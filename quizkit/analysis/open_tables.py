"""The tables a summary or a query reads: a database, a Parquet dataset, or files loaded in
memory; and the report of the inputs a load could not read, named as ``validate`` names them."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import duckdb

from quizkit.analysis.connect import connect
from quizkit.analysis.dataset import open_dataset
from quizkit.analysis.load import LoadResult, load
from quizkit.analysis.load_inputs import name_of
from quizkit.checks import input_report
from quizkit.inputs.sources import Source
from quizkit.settings.config import ConfigError, Settings

_MENTIONS_FINDINGS = re.compile(r"\bfindings\b", re.IGNORECASE)


def reads_findings(sql: str) -> bool:
    """Whether ``sql`` may read the ``findings`` table: files loaded for it are then also
    validated (slower), as the table would otherwise be empty."""
    return bool(_MENTIONS_FINDINGS.search(sql))


def with_inputs(result: LoadResult, paths: Sequence[str], s: Settings) -> LoadResult:
    """``result`` with its :class:`~quizkit.checks.input_report.InputReport`: the files it
    skipped, as the walk of ``paths`` names them, checked as ``validate`` checks them."""
    skipped = dict.fromkeys(item.path for item in result.skipped)
    reasons = {item.path: item.reason for item in result.skipped}
    walked: dict[str, Source] = {}
    if skipped or result.unknown_lines:  # the load's own walk names them as validate does
        walked = {name_of(source.path): source for source in result.walked}

    def source(path: str) -> Source:
        return walked.get(path) or Source(input_report.as_given(path, paths))

    unreadable = [(source(path), reasons[path], None) for path in skipped]
    result.inputs = input_report.report(
        unreadable, files=result.files + len(skipped), documents=result.documents,
        baseline=s.baseline, read_in_part=[source(path) for path in result.unknown_lines])
    return result


@contextmanager
def open_tables(paths: Sequence[str], db: str | os.PathLike[str] | None,
                parquet: str | os.PathLike[str] | None, *, findings: bool, settings: Settings,
                session: tuple[str | None, int | None] = (None, None)
                ) -> Iterator[tuple[duckdb.DuckDBPyConnection, LoadResult | None]]:
    """A connection to ``db`` (read-only), to the dataset ``parquet``, or to memory loaded
    from ``paths`` with ``settings`` and DuckDB's ``session`` (memory limit, threads); and
    what was loaded (``None`` for ``db`` and ``parquet``)."""
    if sum(map(bool, (paths, db, parquet))) > 1:
        raise ConfigError("give export files, --db FILE or --parquet DIR, not both")
    if not paths and not db and not parquet:
        raise ConfigError("give export files to read, or --db FILE, or --parquet DIR")
    if parquet:
        with open_dataset(parquet) as con:
            yield con, None
        return
    loaded = None
    if db:
        con = connect(db, read_only=True)
    else:
        con = connect(None)
        try:
            memory_limit, threads = session
            loaded = with_inputs(load(con, list(paths), findings=findings, settings=settings,
                                      memory_limit=memory_limit, threads=threads),
                                 paths, settings)
        except BaseException:
            con.close()
            raise
    try:
        yield con, loaded
    finally:
        con.close()
