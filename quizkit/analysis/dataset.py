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

import fcntl
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import DatabaseError, connect, one_line, run
from quizkit.analysis.tables import BY_NAME, SCHEMA_VERSION, TABLES
from quizkit.analysis.team_sql import TEAM_FINDINGS, TeamRows
from quizkit.catalog.display import printable
from quizkit.outputs.interrupts import held_back


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
    found = [os.path.join(folder, n) for n in names
             if n.endswith(".parquet") and not n.startswith((".", "_"))]
    for path in found:
        _refuse_special(path)
    return found


class UnreadablePart(Exception):
    """A part file of a dataset cannot be read (one line; exit 3)."""


def _refuse_special(path: str) -> None:
    """:class:`UnreadablePart` (exit 3) unless ``path`` is a regular file (or a link to one): a
    FIFO would block DuckDB's read for good, beyond the reach of a signal; a device may
    never end."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UnreadablePart(f"cannot read part file {printable(path)}: "
                         f"{exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise UnreadablePart(f"part file {printable(path)} is not a regular file (a FIFO, "
                         "device or socket); the dataset cannot be read")


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
    with _views({t.name: parts(root, t.name) for t in TABLES}, root) as con:
        yield con


@contextmanager
def _views(files: Mapping[str, Sequence[str]], root: str | os.PathLike[str]
           ) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory connection whose tables are views over these part files (by table),
    which it may read and nothing else; an empty table for a table without any."""
    con = connect(None)
    with tempfile.TemporaryDirectory(prefix="quizkit-dataset-") as work:
        link = _Links(work)
        try:
            linked = {t.name: [link(p) for p in files.get(t.name, ())] for t in TABLES}
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
                  on_commit: Callable[[], None] | None = None,
                  team: TeamRows | None = None) -> dict[str, int]:
    """Write the new rows of a load (the temp tables of ``quizkit.analysis.load.stage_all``)
    into dataset ``root``, replacing the rows they replace. Rows written per table.

    The new rows of a table in ``ready`` are these parts (made on a cluster's workers); the
    replaced rows are still found from ``con``'s ``new_<table>`` ids. ``on_commit()`` is
    called once every part is in place, stop signals held back (:func:`_apply`).

    ``team(con)`` gives the rows of the findings table of the team's checks over the whole
    dataset as this load leaves it (read from the parts before they are put in place); they
    replace those of the last load (the ``findings`` rows of :data:`TEAM_FINDINGS`), in the
    same commit."""
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
                    "findings": "file IN (SELECT file FROM validated)"
                    + (f" OR {TEAM_FINDINGS}" if team is not None else "")}
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
        if team is not None:
            with _views(_planned(root, moves, removals), root) as planned:
                found = team(planned)
            if found:
                rows["findings"] += _write_rows(con, "findings", found, root, work, moves)
        if not parts(root, "quizkit_meta"):
            _write_part(con, "quizkit_meta",
                        f"SELECT 'schema_version' AS key, '{SCHEMA_VERSION}' AS value",
                        root, work, moves)
        _apply(moves, removals, work, on_commit)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(links, ignore_errors=True)
        run(con, "DROP TABLE IF EXISTS temp.validated")
    return rows


def _planned(root: Path, moves: Sequence[tuple[str, str]], removals: Sequence[str]
             ) -> dict[str, list[str]]:
    """The part files of each table once ``moves`` and ``removals`` are applied, each new or
    rewritten one still under its temporary name."""
    tmp_of = {final: tmp for tmp, final in moves}
    files: dict[str, list[str]] = {}
    for t in TABLES:
        kept = [p for p in parts(root, t.name) if p not in removals]
        added = [tmp for final, tmp in tmp_of.items()
                 if Path(final).parent == root / t.name and final not in kept]
        files[t.name] = [tmp_of.get(p, p) for p in kept] + added
    return files


def _write_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple],
                root: Path, work: str, moves: list[tuple[str, str]]) -> int:
    """Plan a new part of ``table`` with these rows (in its columns' order)."""
    columns = BY_NAME[table].columns
    run(con, "CREATE OR REPLACE TEMP TABLE rows_to_write ("
             + ", ".join(f'"{c.name}" {c.type}' for c in columns) + ")")
    try:
        con.executemany(f"INSERT INTO rows_to_write VALUES ({', '.join('?' * len(columns))})",
                        rows)
        return _write_part(con, table, "SELECT * FROM temp.rows_to_write", root, work, moves)
    finally:
        run(con, "DROP TABLE IF EXISTS temp.rows_to_write")


def _apply(moves: list[tuple[str, str]], removals: list[str], work: str,
           on_commit: Callable[[], None] | None = None) -> None:
    """Put the new parts in place and take the replaced ones away: all of it, or (when a
    rename fails) none, every part as it was; stop signals wait meanwhile, and
    ``on_commit()`` is called once all of it is done, before they act
    (:func:`quizkit.outputs.interrupts.held_back`).

    Each part replaced or removed is first linked into ``work`` (the same file system), so
    that it can be put back."""
    done: list[tuple[str, str | None]] = []
    with held_back():
        try:
            for tmp, final in moves:
                kept = None
                if os.path.lexists(final):
                    kept = os.path.join(work, f"kept{len(done)}")
                    os.link(final, kept)
                os.replace(tmp, final)
                done.append((final, kept))
            for gone in removals:
                kept = os.path.join(work, f"kept{len(done)}")
                os.rename(gone, kept)
                done.append((gone, kept))
        except OSError:
            for final, kept in reversed(done):
                with suppress(OSError):
                    if kept is None:
                        os.unlink(final)
                    else:
                        os.replace(kept, final)
            raise
        if on_commit is not None:
            on_commit()


#: The lock file a writer of a dataset holds (``flock``) while it loads.
LOCK_NAME = ".quizkit-lock"


@contextmanager
def dataset_writer(root: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the dataset ``root`` for one writer (made if missing): a second ``load`` into it
    meanwhile is a :class:`DatabaseError` at once, before it reads anything.

    The lock is ``flock`` on ``root/.quizkit-lock`` (hidden: no reader takes it for data); it
    goes with the process, however that ends. A directory this load made is removed again
    when nothing but the lock file is in it at the end (the load failed)."""
    path = Path(root)
    made = not path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise DatabaseError(f"cannot write dataset {root}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            raise DatabaseError(
                f"dataset {root} is being written by another quizkit load (process {holder}, "
                f"which holds {path / LOCK_NAME}); run one load into a dataset at a time"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
        if made and [p.name for p in path.iterdir()] == [LOCK_NAME]:
            with suppress(OSError):
                (path / LOCK_NAME).unlink()
                path.rmdir()


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
