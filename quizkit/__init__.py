"""quizkit: schemas, validation and DuckDB analysis for quiz service exports.

``quizkit.validate`` is :func:`quizkit.api.validate`; the rest of the Python API (load,
summary, query, enum inference, ...) is in :mod:`quizkit.api`.

This package's own import stays light on purpose: the ``quizkit`` program
(:mod:`quizkit.entry`) is a module of this package, and it must install its signal handlers
before the engine, click and the schemas are imported, so a Ctrl-C at start-up ends in one
line. ``quizkit.validate`` is therefore imported on first use (not to dodge a cycle: there
is none).
"""

from __future__ import annotations

from typing import Any

from quizkit.version import __version__

__all__ = ["__version__", "validate"]


def __getattr__(name: str) -> Any:
    """``quizkit.validate``, imported when first asked for.

    Importing the package stays cheap because the ``quizkit`` program imports it before it
    can handle Ctrl-C and SIGTERM (quizkit.entry): a signal during a long package import
    would otherwise end in a traceback.
    """
    if name == "validate":
        from quizkit.api.validating import validate

        return validate
    raise AttributeError(f"module 'quizkit' has no attribute {name!r}")
