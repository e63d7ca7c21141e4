"""The last step of a load into a database: the tables' DDL, and the replace of the rows in
one transaction."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import DatabaseError, run
from quizkit.analysis.load_stage import Tick
from quizkit.analysis.tables import SCHEMA_VERSION, TABLES
from quizkit.outputs.interrupts import held_back, pause_at


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables that are missing; refuse a database whose tables differ."""
    existing: dict[str, list[str]] = {}
    for table, column in run(con,
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'main' AND table_catalog = current_database() "
            "ORDER BY table_name, ordinal_position"):
        existing.setdefault(table, []).append(column)
    for t in TABLES:
        if t.name in existing and existing[t.name] != t.column_names:
            raise DatabaseError(
                f"table {t.name!r} in this database does not have quizkit's columns "
                f"(schema {SCHEMA_VERSION}); load into a new database file")
        run(con, t.ddl())
    rows = run(con, "SELECT value FROM quizkit_meta WHERE key = 'schema_version'")
    row = rows[0] if rows else None
    if row is None:
        run(con, "INSERT INTO quizkit_meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
    elif row[0] != SCHEMA_VERSION:
        raise DatabaseError(f"this database has table schema {row[0]}, quizkit writes "
                            f"{SCHEMA_VERSION}; load into a new database file")


def replace(con: duckdb.DuckDBPyConnection, *, validated: list[str], rows: dict[str, int],
            tick: Tick, on_commit: Callable[[], None] | None,
            before_commit: Callable[[duckdb.DuckDBPyConnection], None] | None = None) -> None:
    """In one transaction: the rows the staged load replaces (those of its files, of the files
    ``validated``, and of the records it loads again) deleted, the new ones inserted (their
    count in ``rows``), ``before_commit(con)`` (the team's checks over the tables as they
    will be), committed. ``on_commit()`` runs with the commit, stop signals held back;
    anything that fails or stops it before rolls everything back."""
    loaded = "file IN (SELECT file FROM new_files)"
    run(con, "BEGIN TRANSACTION")
    try:
        ensure_schema(con)
        for table, extra in transform.REPLACES.items():
            run(con, f'DELETE FROM "{table}" WHERE {loaded} OR {extra}')
            ((rows[table],),) = run(
                con, f'INSERT INTO "{table}" BY NAME {transform.select_new(table)}')
            tick(f"write:{table}")
        run(con, "DELETE FROM findings WHERE file IN (SELECT unnest($v)) OR "
                    + loaded, {"v": validated or [""]})
        run(con, "INSERT INTO findings BY NAME SELECT * FROM new_findings")
        run(con, f"DELETE FROM files WHERE {loaded}")
        ((rows["files"],),) = run(con, "INSERT INTO files BY NAME SELECT * FROM new_files")
        tick("write:findings,files")
        if before_commit is not None:
            before_commit(con)
            tick("checks")
        pause_at("replace")
        with held_back():  # the commit and its note are one step for a stop signal
            run(con, "COMMIT")
            if on_commit is not None:
                on_commit()
    except BaseException:
        with suppress(duckdb.Error):  # committed already, or the connection is unusable
            run(con, "ROLLBACK")
        raise
    tick("commit")
    pause_at("committed")


def tally(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int, list[str]]:
    """Files, documents and documents of unknown kind of the staged load, and its JSON Lines
    files holding some (a line of unknown kind, or one that is not JSON)."""
    ((files, documents, unknown),) = run(
        con, "SELECT count(*), coalesce(sum(documents), 0), "
             "coalesce(sum(unknown_documents), 0) FROM new_files")
    lines = [file for (file,) in run(
        con, "SELECT file FROM new_files WHERE format = 'jsonl' AND unknown_documents > 0 "
             "ORDER BY file")]
    return files, documents, unknown, lines


def drop_temps(con: duckdb.DuckDBPyConnection) -> None:
    """Free the temp tables of a load."""
    for name in transform.TEMP_TABLES:
        try:
            run(con, f"DROP TABLE IF EXISTS temp.{name}")
        except duckdb.Error:  # the connection is unusable; nothing left to free
            return
