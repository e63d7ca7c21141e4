"""DuckDB analysis of quiz service exports: load, summaries, ad hoc SQL, Parquet export.

The Python API of these commands is :mod:`quizkit.api` (``api.load``, ``api.summary``,
``api.query``, ``api.export``), with the options of the CLI; this package holds the pieces
they are made of. DuckDB objects stay inside this package; callers get :class:`Section` rows
and plain errors.
"""

from __future__ import annotations

from quizkit.analysis import summaries
from quizkit.analysis.connect import DatabaseError, connect
from quizkit.analysis.export import export_parquet
from quizkit.analysis.files import InputError
from quizkit.analysis.load import LoadError, LoadResult, load, load_paths
from quizkit.analysis.query import QueryError, query
from quizkit.analysis.sections import Section
from quizkit.pages.formats import FORMATS, render

__all__ = [
    "FORMATS",
    "DatabaseError",
    "InputError",
    "LoadError",
    "LoadResult",
    "QueryError",
    "Section",
    "connect",
    "export_parquet",
    "load",
    "load_paths",
    "query",
    "render",
    "summaries",
]
