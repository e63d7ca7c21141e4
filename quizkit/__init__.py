"""quizkit: schemas, validation and DuckDB analysis for quiz service exports.

``quizkit.validate`` is :func:`quizkit.api.validate`; the rest of the Python API (load,
summary, query, enum inference, ...) is in :mod:`quizkit.api`.
"""

from __future__ import annotations

# First: modules imported below may read ``quizkit.__version__``.
from quizkit.version import __version__

# isort: split
from quizkit.runner import validate

__all__ = ["__version__", "validate"]
