"""The analysis tables as a Parquet dataset: the scale-out format (``load --parquet DIR``).

``DIR/<table>/part-<id>.parquet``: one folder per table of docs/tables.md (``findings``,
``files`` and ``quizkit_meta`` included), one or more part files each, with the same columns
and types as the DuckDB tables. DuckDB, pyarrow, Spark and Trino read it as it is.

A load adds one part per table (a cluster load adds several of the version tables, one
per part of the version ids it picked apart). Loading files again replaces their rows as
``--db`` does: every existing part holding a replaced row is rewritten without it (or
removed when nothing is left). New and rewritten parts are written under hidden names and
renamed into place at the end, so readers never see half a part; names starting with ``.``
or ``_`` are ignored by every reader, as Spark and Hive do.

DuckDB expands globs in the paths it is given, and ``DIR`` is the user's; it is therefore
read through links with plain names in a private directory (``DIR/.quizkit-*``, removed at
the end), never by its own name.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import DatabaseError, connect, one_line, run
from quizkit.analysis.tables import BY_NAME, SCHEMA_VERSION, TABLES
from quizkit.interrupts import held_back


@dataclass(frozen=True, slots=True)
class Part:
    """A part file made elsewhere (a cluster worker, :func:`part_of`): its rows and bytes."""

    rows: int
    data: bytes


def parts(root: str | os.PathLike[str], table: str) -> list[str]:
    """The part files of ``table`` in dataset ``root``, sorted."""
    folder = Path(root) / table
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise DatabaseError(f"cannot read dataset folder {folder}: {exc.strerror}") from None
    return [os.path.join(folder, n) for n in names
            if n.endswith(".parquet") and not n.startswith((".", "_"))]


class _Links:
    """Plain-named links to files, in a private directory (DuckDB never sees a user's name)."""

    def __init__(self, work: str) -> None:
        self.work = work
        self.count = 0

    def __call__(self, path: str) -> str:
        self.count += 1
        link = os.path.join(self.work, f"r{self.count}.parquet")
        os.symlink(os.path.abspath(path), link)
        return link


def _sql_list(paths: list[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


@contextmanager
def open_dataset(root: str | os.PathLike[str]) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory connection whose tables are views over the dataset's parts.

    Only the part files may be read (``allowed_paths``), so the connection can be locked down
    for ad hoc SQL like a database file. Raises :class:`DatabaseError` when ``root`` is not a
    quizkit dataset.
    """
    if not os.path.isdir(root):
        raise DatabaseError(f"no such dataset directory: {root}")
    if not parts(root, "quizkit_meta"):
        raise DatabaseError(f"{root} is not a quizkit Parquet dataset (no quizkit_meta folder; "
                            "write one with quizkit load --parquet)")
    con = connect(None)
    with tempfile.TemporaryDirectory(prefix="quizkit-dataset-") as work:
        link = _Links(work)
        try:
            linked = {t.name: [link(p) for p in parts(root, t.name)] for t in TABLES}
            run(con, f"SET allowed_paths = {_sql_list([p for ps in linked.values() for p in ps])}")
            for t in TABLES:
                if linked[t.name]:
                    run(con, f'CREATE VIEW "{t.name}" AS SELECT {_cols(t.name)} '
                             f"FROM read_parquet({_sql_list(linked[t.name])})")
                else:
                    run(con, t.ddl())
        except duckdb.Error as exc:
            con.close()
            raise DatabaseError(f"cannot read dataset {root}: {one_line(exc)}") from None
        try:
            yield con
        finally:
            con.close()


def _cols(table: str) -> str:
    return ", ".join(f'"{c}"' for c in BY_NAME[table].column_names)


def write_dataset(con: duckdb.DuckDBPyConnection, root: str | os.PathLike[str], *,
                  validated: list[str],
                  ready: Mapping[str, Sequence[Part]] | None = None,
                  on_commit: Callable[[], None] | None = None) -> dict[str, int]:
    """Write the new rows of a load (the temp tables of ``quizkit.analysis.load.stage_all``)
    into dataset ``root``, replacing the rows they replace. Rows written per table.

    The new rows of a table in ``ready`` are these parts (made on a cluster's workers); the
    replaced rows are still found from ``con``'s ``new_<table>`` ids. The renames that put
    the new parts in place run with stop signals held back, and ``on_commit()`` then."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    _check_schema(con, root)
    # New parts are written in root (so that they are renamed into place), read only
    # through links elsewhere (so that root's name is never expanded).
    work = tempfile.mkdtemp(prefix=".quizkit-", dir=root)
    links = tempfile.mkdtemp(prefix="quizkit-dataset-")
    moves: list[tuple[str, str]] = []
    removals: list[str] = []
    rows: dict[str, int] = {}
    try:
        link = _Links(links)
        run(con, "CREATE OR REPLACE TEMP TABLE validated AS SELECT unnest($v) AS file",
            {"v": validated or [""]})
        loaded = "file IN (SELECT file FROM new_files)"
        replaced = {**transform.REPLACES, "files": "false",
                    "findings": "file IN (SELECT file FROM validated)"}
        for table, extra in replaced.items():
            for part in parts(root, table):
                _rewrite(con, table, part, f"{loaded} OR {extra}", link, work, moves, removals)
            if ready is not None and table in ready:
                rows[table] = _place_parts(table, ready[table], root, work, moves)
                continue
            select = {"files": "SELECT * FROM new_files",
                      "findings": "SELECT * FROM new_findings"}.get(table) \
                or transform.select_new(table)
            rows[table] = _write_part(con, table, select, root, work, moves)
        if not parts(root, "quizkit_meta"):
            _write_part(con, "quizkit_meta",
                        f"SELECT 'schema_version' AS key, '{SCHEMA_VERSION}' AS value",
                        root, work, moves)
        with held_back():
            for tmp, final in moves:
                os.replace(tmp, final)
            for gone in removals:
                os.unlink(gone)
            if on_commit is not None:
                on_commit()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(links, ignore_errors=True)
        run(con, "DROP TABLE IF EXISTS temp.validated")
    return rows


def _check_schema(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    meta = parts(root, "quizkit_meta")
    if not meta:
        if any(root.iterdir()):
            others = [p.name for p in root.iterdir() if not p.name.startswith(".")]
            if others and not set(others) <= set(BY_NAME):
                raise DatabaseError(f"{root} is not empty and not a quizkit Parquet dataset; "
                                    "give a new or empty directory")
        return
    with tempfile.TemporaryDirectory(prefix="quizkit-meta-") as work:
        link = _Links(work)
        found = run(con, "SELECT value FROM read_parquet("
                         f"{_sql_list([link(p) for p in meta])}) WHERE key = 'schema_version'")
    if found and found[0][0] != SCHEMA_VERSION:
        raise DatabaseError(f"this dataset has table schema {found[0][0]}, quizkit writes "
                            f"{SCHEMA_VERSION}; load into a new directory")


def _rewrite(con: duckdb.DuckDBPyConnection, table: str, part: str, condition: str,
             link: _Links, work: str, moves: list[tuple[str, str]],
             removals: list[str]) -> None:
    """Plan the rewrite of ``part`` without the rows matching ``condition``, if it has any."""
    source = f"read_parquet({_sql_list([link(part)])})"
    ((hit, total),) = run(con, f"SELECT count(*) FILTER (WHERE {condition}), count(*) "
                               f"FROM {source}")
    if not hit:
        return
    if hit == total:
        removals.append(part)
        return
    tmp = os.path.join(work, f"w{len(moves)}.parquet")
    run(con, f"COPY (SELECT * FROM {source} WHERE ({condition}) IS NOT TRUE) "
             f"TO {_sql_list([tmp])[1:-1]} (FORMAT parquet)")
    moves.append((tmp, part))


def _copy(con: duckdb.DuckDBPyConnection, select: str, target: str, options: str = "") -> int:
    """Write the rows of ``select`` to Parquet file ``target`` (a plain name of quizkit's
    own); how many rows."""
    # COPY TO takes its target literally, and says how many rows it wrote.
    ((count,),) = run(con, f"COPY ({select}) TO {_sql_list([target])[1:-1]} "
                           f"(FORMAT parquet{options})")
    return count


def _typed(table: str, select: str) -> str:
    """``select`` with the columns and types of ``table``."""
    cast = ", ".join(f'CAST("{c.name}" AS {c.type}) AS "{c.name}"' for c in BY_NAME[table].columns)
    return f"SELECT {cast} FROM ({select})"


def parquet_of(con: duckdb.DuckDBPyConnection, select: str, options: str = "") -> Part:
    """The rows of ``select`` as one Parquet file in memory (``options``: more of COPY's)."""
    with tempfile.TemporaryDirectory(prefix="quizkit-part-") as work:
        target = os.path.join(work, "part.parquet")
        rows = _copy(con, select, target, options)
        return Part(rows, Path(target).read_bytes())


def part_of(con: duckdb.DuckDBPyConnection, table: str, select: str) -> Part:
    """The rows of ``select`` as a part of ``table`` made here, to be placed elsewhere
    (:func:`write_dataset` with ``ready``)."""
    return parquet_of(con, _typed(table, select))


def _write_part(con: duckdb.DuckDBPyConnection, table: str, select: str, root: Path,
                work: str, moves: list[tuple[str, str]]) -> int:
    """Plan a new part of ``table`` with the rows of ``select`` (none when it has no rows,
    unless the table has no part yet: every table keeps its columns and types)."""
    tmp = os.path.join(work, f"n{len(moves)}.parquet")
    count = _copy(con, _typed(table, select), tmp)
    if count or not parts(root, table):
        _plan_new(table, tmp, root, moves)
    return count


def _place_parts(table: str, made: Sequence[Part], root: Path, work: str,
                 moves: list[tuple[str, str]]) -> int:
    """Plan the parts of ``table`` made elsewhere: those with rows (or the first, when the
    table has no part yet: every table keeps its columns and types)."""
    keep = [p for p in made if p.rows] or ([] if parts(root, table) else list(made[:1]))
    for part in keep:
        tmp = os.path.join(work, f"n{len(moves)}.parquet")
        Path(tmp).write_bytes(part.data)
        _plan_new(table, tmp, root, moves)
    return sum(p.rows for p in made)


def _plan_new(table: str, tmp: str, root: Path, moves: list[tuple[str, str]]) -> None:
    folder = root / table
    folder.mkdir(exist_ok=True)
    moves.append((tmp, os.fspath(folder / f"part-{uuid.uuid4().hex}.parquet")))
