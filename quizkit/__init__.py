"""quizkit: schemas, validation and DuckDB analysis for quiz service exports."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "validate"]


def validate(paths, **options):  # type: ignore[no-untyped-def]
    """Validate files or directories and return a :class:`quizkit.findings.Report`.

    See :func:`quizkit.api.validate` for the options.
    """
    from quizkit.api import validate as _validate

    return _validate(paths, **options)
