"""The work of a load that a cluster worker does (:mod:`quizkit.cluster.loading`), each
in a DuckDB connection of its own: stage one batch, pick the versions of one part."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import duckdb

from quizkit.analysis import transform
from quizkit.analysis.connect import LoadError, connect, one_line, run
from quizkit.analysis.dataset import Part, parquet_of, part_of
from quizkit.analysis.load_inputs import Input
from quizkit.analysis.load_session import configured, sql_text
from quizkit.analysis.load_stage import Candidates, create_candidates, pick, stage_batch


def candidates_of(batch: list[Input], offset: int, *, split: int,
                  memory_limit: str | None = None, threads: int | None = None) -> Candidates:
    """The candidate rows of one batch, computed in a connection of their own (the work of
    a cluster worker): flat rows, never documents. The :data:`transform.BY_VERSION` tables
    come in ``split`` parts by the hash of their version id (every batch puts a version id
    in the same part), so that each part can be picked on its own; as Parquet compressed
    with zstd, which costs what making Arrow tables of them costs and is a tenth of their
    size (for a worker to keep until the parts are picked, and to send)."""
    con = connect(None)
    try:
        with configured(con, memory_limit=memory_limit, threads=threads):
            create_candidates(con)
            skipped = stage_batch(con, batch, offset)
            tables = {t: con.sql(f"SELECT * FROM cand_{t}").to_arrow_table()
                      for t in (*transform.CANDIDATES, "files") if t not in transform.BY_VERSION}
            parts = [{t: parquet_of(con, f"SELECT * FROM cand_{t} "
                                         f"WHERE hash({key}) % {int(split)} = {p}",
                                    ", COMPRESSION zstd")
                      for t, key in transform.BY_VERSION.items()} for p in range(split)]
            keys = parquet_of(con, transform.PACKAGE_KEYS, ", COMPRESSION zstd")
        return Candidates(tables, skipped, parts, keys)
    except duckdb.Error as exc:
        raise LoadError(one_line(exc)) from None
    finally:
        con.close()


def versions_of(split: Sequence[dict[str, Part]], keys: Sequence[Part], *,
                memory_limit: str | None = None,
                threads: int | None = None) -> tuple[dict[str, Part], list[str | None]]:
    """The winning versions and entities among one part of every batch's split candidates,
    given every batch's package keys (:func:`candidates_of`; the work of a cluster worker):
    a part of each :data:`transform.BY_VERSION` table, and the ids of the new versions (what
    replaces rows already loaded)."""
    con = connect(None)
    try:
        with configured(con, memory_limit=memory_limit, threads=threads), \
                tempfile.TemporaryDirectory(prefix="quizkit-split-") as work:
            given = {"packages": list(keys),
                     **{t: [tables[t] for tables in split] for t in transform.BY_VERSION}}
            for table, parts in given.items():
                files = [os.path.join(work, f"{table}-{i}.parquet") for i in range(len(parts))]
                for name, part in zip(files, parts, strict=True):
                    Path(name).write_bytes(part.data)
                listed = ", ".join(sql_text(f) for f in files)  # a view takes no parameters
                run(con, f"CREATE TEMP VIEW cand_{table} AS SELECT * FROM read_parquet([{listed}])")
            pick(con, (transform.PACKAGE_WINNERS, *transform.VERSION_PICKS), lambda _step: None)
            parts = {t: part_of(con, t, transform.select_new(t)) for t in transform.BY_VERSION}
            ids = [i for (i,) in run(con, "SELECT id FROM new_versions")]
        return parts, ids
    except duckdb.Error as exc:
        raise LoadError(one_line(exc)) from None
    finally:
        con.close()
