"""The Python API, mirroring ``quizkit validate``.

>>> import quizkit
>>> report = quizkit.validate(["samples/"])
>>> report.summary()["errors"]
0
"""

from __future__ import annotations

from collections.abc import Iterable

from quizkit import engine
from quizkit.findings import Report
from quizkit.reporters.base import Reporter
from quizkit.walk import WalkRules, expand


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

