"""DuckDB analysis of quiz service exports: load, summaries, ad hoc SQL, Parquet export.

The Python API mirrors the CLI::

    from quizkit.analysis import connect, load, summaries, query, render

    con = connect("dump.duckdb")              # or connect() for memory
    load(con, ["exports/"], findings=False)   # quizkit load exports/ --db dump.duckdb
    print(render(summaries.sizes(con, top=5), "markdown"))
    print(render([query(con, "SELECT count(*) FROM steps")], "csv", single=True))

DuckDB objects stay inside this package; callers get :class:`Section` rows and plain errors.
"""

from __future__ import annotations

from quizkit.analysis import summaries
from quizkit.analysis.connect import DatabaseError, connect
from quizkit.analysis.export import export_parquet
from quizkit.analysis.files import InputError
from quizkit.analysis.load import LoadError, LoadResult, load, load_paths
from quizkit.analysis.output import FORMATS, render
from quizkit.analysis.query import QueryError, query
from quizkit.analysis.sections import Section

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
