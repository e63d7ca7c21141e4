"""quizkit: schemas, validation and DuckDB analysis for quiz service exports.

``quizkit.validate`` is :func:`quizkit.api.validate`; the rest of the Python API (load,
summary, query, enum inference, ...) is in :mod:`quizkit.api`.
"""

from __future__ import annotations

# First: modules imported below may read ``quizkit.__version__``.
from quizkit.version import __version__

__all__ = ["__version__", "validate"]


def __getattr__(name: str) -> object:
    """``quizkit.validate``, imported when first asked for.

    Importing the package stays cheap because the ``quizkit`` program imports it before it
    can handle Ctrl-C and SIGTERM (quizkit.entry): a signal during a long package import
    would otherwise end in a traceback.
    """
    if name == "validate":
        from quizkit.runner import validate

        return validate
    raise AttributeError(f"module 'quizkit' has no attribute {name!r}")
