"""The Python API, mirroring ``quizkit validate``.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from quizkit import engine
from quizkit.findings import Report
from quizkit.reporters.base import Reporter
from quizkit.sources import expand

if TYPE_CHECKING:
    import duckdb

    from quizkit import analysis


def validate(paths: Iterable[str] | str, *, kind: str | None = None, jobs: int | None = 1,
             reporter: Reporter | None = None, adjust: engine.Adjust | None = None) -> Report:
    """Validate files or directories (``-`` reads stdin) and return the :class:`Report`.

    Raises :class:`quizkit.sources.MissingPath` when a path does not exist.
    """
    if isinstance(paths, str):
        paths = [paths]
    options = engine.Options(kind=kind)
    return engine.run(expand(paths), options, reporter=reporter, jobs=jobs, adjust=adjust)



def query(sql: str, paths: Iterable[str] | str = (), *, db: str | None = None,
          limit: int | None = None, timeout: float | None = None) -> analysis.Section:
    """Run one reading SQL statement (``quizkit query``) over a ``db`` file or over ``paths``
    loaded in memory; the rows as a :class:`~quizkit.analysis.sections.Section`.

    ``limit`` keeps at most that many rows; ``timeout`` (seconds) stops the query with
    :class:`~quizkit.analysis.query.QueryTimeout`. Refused or failing SQL raises
    :class:`~quizkit.analysis.query.QueryError`.
    """
    # Imported here, not at the top: validating must not load DuckDB (as the CLI's lazy
    # commands, and tests/test_engine.py, make sure).
    from quizkit import analysis
    from quizkit.analysis.query import lock_down

    with _tables(paths, db, findings="findings" in sql.lower()) as con:
        lock_down(con)
        return analysis.query(con, sql, limit=limit, timeout=timeout)


@contextmanager
def _tables(paths: Iterable[str] | str, db: str | None, *,
            findings: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to ``db`` (read-only), or to memory loaded from ``paths``."""
    from quizkit import analysis

    path_list = [paths] if isinstance(paths, str) else list(paths)
    if bool(path_list) == bool(db):
        raise ValueError("give export paths or db, not both and not neither")
    con = analysis.connect(db, read_only=True) if db else analysis.connect(None)
    try:
        if path_list:
            analysis.load(con, path_list, findings=findings)
        yield con
    finally:
        con.close()


def summary(name: str, paths: Iterable[str] | str = (), *, db: str | None = None,
            top: int = 10, by: Iterable[str] = (), every: str = "month",
            section: str | None = None, format: str = "table",
            output: str | None = None) -> str:
    """A ready summary (``quizkit summary overview|sizes|starts|all``) of ``paths`` loaded in
    memory or of a ``db`` file, as text in ``format`` (``html``: a page with charts).

    ``by``: the groupings (default all four); ``every``: the period of games over time;
    ``section``: only that section. ``output`` also writes the text there, atomically.
    Raises ValueError for an unknown summary, format, grouping, period or section.
    """
    # Imported here, not at the top: validating must not load DuckDB (see query above).
    from quizkit.analysis import summaries
    from quizkit.analysis.summary_output import summary_text
    from quizkit.output import atomic_write, refuse_inputs

    names = summaries.SUMMARIES_ORDER if name == "all" else (name,)
    refuse_inputs([output], [paths] if isinstance(paths, str) else list(paths))
    with _tables(paths, db, findings=False) as con:
        groups = summaries.summarize(con, names, top=top,
                                     by=tuple(by) or summaries.GROUP_NAMES, every=every)
    text = summary_text(groups, format, section)
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(text)
    return text


def charts(out: str, paths: Iterable[str] | str = (), *, db: str | None = None,
           top: int = 10, by: Iterable[str] = (), every: str = "month") -> list[str]:
    """Every chart of the summaries (``quizkit summary charts``) as SVG and PNG files in
    ``out``; the paths written."""
    from quizkit.analysis import summaries
    from quizkit.analysis.summary_output import write_charts

    with _tables(paths, db, findings=False) as con:
        groups = summaries.summarize(con, summaries.SUMMARIES_ORDER, top=top,
                                     by=tuple(by) or summaries.GROUP_NAMES, every=every)
    return [str(p) for p in write_charts(groups, out)]
