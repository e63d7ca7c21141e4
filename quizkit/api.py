"""The Python API, mirroring ``quizkit validate``.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from quizkit import engine
from quizkit.findings import Report
from quizkit.reporters.base import Reporter
from quizkit.walk import WalkRules, expand

if TYPE_CHECKING:
    from quizkit import analysis


def validate(paths: Iterable[str] | str, *, kind: str | None = None, jobs: int | None = 1,
             reporter: Reporter | None = None, adjust: engine.Adjust | None = None,
             exclude: Iterable[str] = (), include_hidden: bool = False,
             stdin_format: str = "auto") -> Report:
    """Validate files or directories (``-`` reads stdin) and return the :class:`Report`.

    ``exclude`` and ``include_hidden`` shape the walk of directories (:mod:`quizkit.walk`);
    ``stdin_format`` (``auto``, ``json``, ``jsonl``) says what ``-`` holds.
    Raises :class:`quizkit.walk.MissingPath` when a path does not exist.
    """
    if isinstance(paths, str):
        paths = [paths]
    options = engine.Options(kind=kind)
    inputs = expand(paths, WalkRules(tuple(exclude), include_hidden), stdin_format=stdin_format)
    return engine.run(inputs.sources, options, reporter=reporter, jobs=jobs, adjust=adjust)



def query(sql: str, paths: Iterable[str] | str = (), *, db: str | None = None,
          limit: int | None = None, timeout: float | None = None,
          exclude: Iterable[str] = (), include_hidden: bool = False) -> analysis.Section:
    """Run one reading SQL statement (``quizkit query``) over a ``db`` file or over ``paths``
    loaded in memory; the rows as a :class:`~quizkit.analysis.sections.Section`.

    ``exclude`` and ``include_hidden`` shape the walk of directories, as for :func:`validate`.

    ``limit`` keeps at most that many rows; ``timeout`` (seconds) stops the query with
    :class:`~quizkit.analysis.query.QueryTimeout`. Refused or failing SQL raises
    :class:`~quizkit.analysis.query.QueryError`.
    """
    # Imported here, not at the top: validating must not load DuckDB (as the CLI's lazy
    # commands, and tests/test_engine.py, make sure).
    from quizkit import analysis
    from quizkit.analysis.query import lock_down

    path_list = [paths] if isinstance(paths, str) else list(paths)
    if bool(path_list) == bool(db):
        raise ValueError("give export paths or db, not both and not neither")
    con = analysis.connect(db, read_only=True) if db else analysis.connect(None)
    try:
        if path_list:
            analysis.load(con, path_list, findings="findings" in sql.lower(),
                          exclude=tuple(exclude), include_hidden=include_hidden)
        lock_down(con)
        return analysis.query(con, sql, limit=limit, timeout=timeout)
    finally:
        con.close()
