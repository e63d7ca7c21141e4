"""quizkit: schemas, validation and DuckDB analysis for quiz service exports.

``quizkit.validate`` is :func:`quizkit.api.validate`; the rest of the Python API (load,
summary, query, enum inference, ...) is in :mod:`quizkit.api`.
"""

from __future__ import annotations

from quizkit.runner import validate
from quizkit.version import __version__

__all__ = ["__version__", "validate"]
