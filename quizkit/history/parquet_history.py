"""A history in a folder of Parquet files, local or ``s3://``: one new file per run and table.

``runs/<run_id>.parquet`` holds the run's row of ``runs``, ``metrics/<run_id>.parquet`` its
rows of ``metrics``. A run never rewrites a file, so two runs appending at once both land,
and a reader sees a run once its ``runs`` file is there (its metrics are written first).
Local files are written atomically by the output layer; an object in S3 appears whole
when its upload ends. Stop signals wait while a run's two files are written, so an
interrupted run leaves the folder as it was.

A folder that holds anything else (other files, other folders, Parquet files of other
columns) is not a history and is refused without a change; names starting with ``.`` or
``_`` are ignored, as every Parquet reader does.

pyarrow reads and writes the files (and fsspec with s3fs reaches object storage): they
come with ``pip install 'quizkit[cluster]'``.
"""

from __future__ import annotations

import importlib
import io
import os
import posixpath
from typing import Any

from quizkit.history.runs import TABLES, HistoryError, Run, Timeline, as_run, run_row
from quizkit.inputs.remote import RemoteError, filesystem, is_url
from quizkit.outputs.interrupts import signals_deferred
from quizkit.outputs.writer import OutputError, check_directory, make_directory, write_bytes

#: Arrow's name of each DuckDB type of quizkit.history.runs.
ARROW_TYPES = {"VARCHAR": "string", "TIMESTAMP": "timestamp[us]", "INTEGER": "int32",
               "BIGINT": "int64", "DOUBLE": "double"}
SUFFIX = ".parquet"


def _arrow() -> tuple[Any, Any]:
    """(pyarrow, pyarrow.parquet), an optional extra imported only for a Parquet history."""
    try:
        return importlib.import_module("pyarrow"), importlib.import_module("pyarrow.parquet")
    except ImportError:
        raise HistoryError("a history in a folder of Parquet files needs pyarrow "
                           "(pip install 'quizkit[cluster]'); or give a DuckDB file "
                           "(a name ending in .duckdb)") from None


def _schema(table: str) -> Any:
    pa, _ = _arrow()
    types = {"string": pa.string(), "timestamp[us]": pa.timestamp("us"), "int32": pa.int32(),
             "int64": pa.int64(), "double": pa.float64()}
    return pa.schema([(name, types[ARROW_TYPES[kind]]) for name, kind in TABLES[table]])


class _Folder:
    """The folder of a history: a local directory or an ``s3://`` prefix."""

    def __init__(self, location: str) -> None:
        self.location = location.rstrip("/") if is_url(location) else location
        try:
            self.fs = filesystem(location) if is_url(location) else None
        except RemoteError as exc:
            raise HistoryError(f"history {location}: {exc}") from None

    def path(self, *parts: str) -> str:
        join = posixpath.join if self.fs is not None else os.path.join
        return join(self.location, *parts)

    def entries(self, *parts: str) -> dict[str, bool]:
        """The names in a folder (``True`` for a folder), hidden ones left out; ``{}`` when
        the folder does not exist."""
        where = self.path(*parts)
        try:
            if self.fs is None:
                if not os.path.isdir(where):
                    return {}
                found = {n: os.path.isdir(os.path.join(where, n)) for n in os.listdir(where)}
            else:
                found = {posixpath.basename(e["name"].rstrip("/")): e["type"] == "directory"
                         for e in self.fs.ls(where, detail=True, refresh=True)}
        except FileNotFoundError:
            return {}
        except Exception as exc:  # OSError, and s3fs and botocore raise many kinds
            raise HistoryError(f"cannot list history folder {where}: {_why(exc)}") from None
        return {n: d for n, d in found.items() if not n.startswith((".", "_"))}

    def read(self, *parts: str) -> bytes:
        where = self.path(*parts)
        try:
            if self.fs is None:
                with open(where, "rb") as fh:
                    return fh.read()
            return self.fs.cat_file(where)
        except Exception as exc:  # OSError, and s3fs and botocore raise many kinds
            raise HistoryError(f"cannot read history file {where}: {_why(exc)}") from None

    def write(self, data: bytes, *parts: str) -> None:
        where = self.path(*parts)
        try:
            if self.fs is None:
                make_directory(os.path.dirname(where))
                write_bytes(where, data)
            else:
                self.fs.pipe_file(where, data)
        except OutputError as exc:
            raise HistoryError(str(exc)) from None
        except Exception as exc:  # s3fs and botocore raise many kinds
            raise HistoryError(f"cannot write history file {where}: {_why(exc)}") from None


def _why(exc: BaseException) -> str:
    """The reason of a failure, in one line."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _files(folder: _Folder) -> dict[str, list[str]]:
    """The run ids of each table's files. Raises :class:`HistoryError` when the folder
    holds anything a history does not."""
    top = folder.entries()
    other = sorted(n for n, is_dir in top.items() if n not in TABLES or not is_dir)
    out: dict[str, list[str]] = {}
    for table in TABLES:
        names = folder.entries(table) if top.get(table) else {}
        other += sorted(f"{table}/{n}" for n, is_dir in names.items()
                        if is_dir or not n.endswith(SUFFIX))
        out[table] = sorted(n[:-len(SUFFIX)] for n, is_dir in names.items()
                            if not is_dir and n.endswith(SUFFIX))
    if other:
        shown = ", ".join(other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
        raise HistoryError(f"{folder.location} is a folder but not a quizkit history (it holds "
                           f"{shown}): give a history folder, an empty or new folder, or a "
                           "DuckDB file; it was left unchanged")
    return out


def _table(folder: _Folder, table: str, run_id: str) -> list[tuple]:
    """The rows of one file, checked to have the table's columns."""
    _, pq = _arrow()
    name = f"{table}/{run_id}{SUFFIX}"
    try:
        # One thread: a pool thread of pyarrow still running as the process exits (a
        # refused history exits at once) aborts it ("terminate called ...").
        data = pq.read_table(io.BytesIO(folder.read(table, run_id + SUFFIX)),
                             use_threads=False)
    except HistoryError:
        raise
    except Exception as exc:  # pyarrow raises several kinds for a file that is no Parquet
        raise HistoryError(f"{folder.path(name)} is not a Parquet file of a quizkit history: "
                           f"{_why(exc)}") from None
    if not data.schema.equals(_schema(table)):
        raise HistoryError(f"{folder.path(name)} does not have the columns of a quizkit "
                           f"history's {table} ({', '.join(n for n, _ in TABLES[table])})")
    columns = [data.column(i).to_pylist() for i in range(data.num_columns)]
    return list(zip(*columns, strict=True))


def check(location: str) -> None:
    """Refuse ``location`` unless it is a history or holds nothing yet (reads only: the
    names, and the newest file of each table)."""
    folder = _Folder(location)
    if folder.fs is None:
        try:
            check_directory(location)
        except OutputError as exc:
            raise HistoryError(f"history: {exc}") from None
    for table, ids in _files(folder).items():
        if ids:
            _table(folder, table, ids[-1])


def _bytes(table: str, rows: list[tuple]) -> bytes:
    pa, pq = _arrow()
    schema = _schema(table)
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in schema]
    data = pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f
                                 in zip(columns, schema, strict=True)], schema=schema)
    out = io.BytesIO()
    pq.write_table(data, out)
    return out.getvalue()


def append(location: str, run_id: str, run_: Run, metrics: dict[str, float]) -> None:
    """Write the run's two files: its metrics first, then its row of ``runs``."""
    folder = _Folder(location)
    check(location)
    name = run_id + SUFFIX
    metric_rows = [(run_id, n, v) for n, v in sorted(metrics.items())]
    data = {"metrics": _bytes("metrics", metric_rows),
            "runs": _bytes("runs", [run_row(run_id, run_)])}
    with signals_deferred():
        folder.write(data["metrics"], "metrics", name)
        folder.write(data["runs"], "runs", name)


def _runs(folder: _Folder, files: dict[str, list[str]], dataset: str | None) -> list[tuple]:
    """(run id, run) of each run of ``dataset`` (``None``: every run), oldest first."""
    runs = [as_run(row) for run_id in files["runs"] for row in _table(folder, "runs", run_id)]
    runs = [r for r in runs if dataset is None or r[1].dataset == dataset]
    return sorted(runs, key=lambda r: (r[1].started_at, r[0]))


def _metrics(folder: _Folder, files: dict[str, list[str]], run_id: str) -> dict[str, float]:
    rows = _table(folder, "metrics", run_id) if run_id in files["metrics"] else []
    return {str(name): float(value) for owner, name, value in rows if owner == run_id}


def timeline(location: str, dataset: str | None, last: int | None) -> Timeline:
    folder = _Folder(location)
    files = _files(folder)
    runs = _runs(folder, files, dataset)
    if last is not None:
        runs = runs[-last:] if last > 0 else []
    return Timeline(runs, {run_id: _metrics(folder, files, run_id) for run_id, _ in runs})


def series(location: str, dataset: str, name: str, last: int) -> list[float]:
    """Reads the metrics of the newest runs only, until ``last`` values are found."""
    folder = _Folder(location)
    files = _files(folder)
    values: list[float] = []
    for run_id, _ in reversed(_runs(folder, files, dataset)):
        if len(values) >= last:
            break
        found = _metrics(folder, files, run_id)
        if name in found:
            values.append(found[name])
    return values
