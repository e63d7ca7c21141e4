"""Exports → one row per record in the diff's work database: key, place and a digest.

Only what the comparison needs travels into DuckDB: each record's table, key, parent and
place in the parent's array, where it was read (file, document, pointer), its rank among
copies of itself, and an XXH3 digest of its canonical JSON (keys sorted, no whitespace), so
key order and formatting are never a difference. The bodies stay in the files: the few
records a report shows are read again there (:mod:`quizkit.diff.detail`). Rows are written
a batch at a time, so memory does not grow with the exports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import duckdb
import orjson
import xxhash

from quizkit.checks.documents import SkippedInputs, iter_documents
from quizkit.cluster import checking as cluster
from quizkit.diff.records import MEASURES, Record, records
from quizkit.inputs import remote
from quizkit.inputs.sources import Source
from quizkit.model.kinds import detect_kind
from quizkit.outputs.interrupts import worker_started

#: Rows written to DuckDB at a time.
BATCH_ROWS = 50_000

COLUMNS = {"side": "TINYINT", "tbl": "VARCHAR", "key": "VARCHAR", "parent": "VARCHAR",
           "idx": "BIGINT", "rank": "INTEGER", "file": "VARCHAR", "doc_no": "BIGINT",
           "record": "BIGINT", "pointer": "VARCHAR", "hash": "UBIGINT",
           **{m: "BIGINT" for m in MEASURES}, "body": "VARCHAR"}


def create(con: duckdb.DuckDBPyConnection) -> None:
    """The work table of records of both sides."""
    cols = ", ".join(f"{name} {kind}" for name, kind in COLUMNS.items())
    con.execute(f"CREATE TABLE records ({cols})")


def canonical(value: Any) -> bytes:
    """The canonical JSON of a value: sorted keys, compact (big integers kept exactly)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(value, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False).encode()


def digest(value: Any) -> int:
    return xxhash.xxh3_64_intdigest(canonical(value))


#: One document's rows: (path, document number, JSON Lines line, each record's (table, key,
#: parent, index, rank, pointer, digest), and (place among them, measures) of its packages).
_DocRows = tuple[str, int, "int | None", list[tuple[Any, ...]], list[tuple[int, tuple]]]


def _rows(sources: Iterable[Source], skipped: SkippedInputs, relative: dict[str, str],
          offset: int) -> Iterator[_DocRows]:
    """Each document's rows, the documents numbered from ``offset`` + 1."""
    hashed, dumps, sort_keys = xxhash.xxh3_64_intdigest, orjson.dumps, orjson.OPT_SORT_KEYS
    for doc_no, (path, line, kind, doc) in enumerate(iter_documents(sources, skipped),
                                                     offset + 1):
        where = relative.get(path, path)
        anonymous = where if line is None else f"{where}:{line}"
        rows = []
        measured = []
        for table, key, pointer, body, rank, parent, index, measures in _expand(
                kind, doc, anonymous):
            try:
                h = hashed(dumps(body, option=sort_keys))
            except TypeError:  # an integer beyond 64 bits
                h = digest(body)
            if measures is not None:
                measured.append((len(rows), measures))
            rows.append((table, key, parent, index, rank, pointer, h))
        yield path, doc_no, line, rows, measured


def _expand(kind: str, doc: Any, anonymous: str) -> list[Record]:
    """A document's records; a top-level array of whole documents gives each one's."""
    if kind == "version-list" and isinstance(doc, list) and doc and all(
            isinstance(d, dict) and "versions" in d for d in doc):
        found: list[Record] = []
        for i, element in enumerate(doc):
            element_kind = detect_kind(element)
            if element_kind is not None:
                found += records(element_kind, element, f"{anonymous}#/{i}", f"/{i}")
        return found
    return records(kind, doc, anonymous)


#: One side to read: (0 old or 1 new, its sources, what could not be read goes here, the
#: names of sources not to read).
Side = tuple[int, list[Source], SkippedInputs, "set[str] | frozenset[str]"]


def collect(con: duckdb.DuckDBPyConnection, sides: list[Side], work: str,
            jobs: int | None = None, client: Any | None = None) -> None:
    """Every record of each side's sources into the table ``records``; ``work`` is a private
    directory for the batches on their way into DuckDB.

    ``jobs`` processes read parts of the sources of both sides at once (default: the number
    of cores), each writing its rows to staging files inserted here in order. With ``client``
    (a Dask client), the cluster's workers read the parts themselves and send back only the
    rows. The sources a side names as not to read are left out (:func:`unchanged`).
    """
    cores = jobs or os.cpu_count() or 1
    parts: list[_Part] = []
    skipped: dict[int, SkippedInputs] = {}
    for side, all_sources, side_skipped, leave in sides:
        skipped[side] = side_skipped
        relative = _relative_names(all_sources)
        sources = [s for s in all_sources if s.display not in leave]
        side_jobs = max(1, min(cores, len(sources) // 16 or 1))
        size = CLUSTER_PART if client is not None else -(-len(sources) // (side_jobs * 4)) or 1
        parts += [(side, sources[i:i + size], {s.display: relative.get(s.display, s.display)
                                               for s in sources[i:i + size]},
                   i * DOCS_PER_SOURCE, os.path.join(work, f"side{side}-{i}"))
                  for i in range(0, len(sources), size)]
    sides_of = [part[0] for part in parts]
    if client is not None:
        staged = (([_staged_bytes(data, prefix)], part_skipped)
                  for (data, part_skipped), (*_, prefix) in
                  zip(cluster.ordered(client, part_rows, parts), parts, strict=True))
        _gather(con, staged, sides_of, skipped)
    elif min(cores, len(parts)) <= 1:
        _gather(con, map(_part, parts), sides_of, skipped)
    else:
        with ProcessPoolExecutor(min(cores, len(parts)), initializer=worker_started) as pool:
            _gather(con, pool.map(_part, parts), sides_of, skipped)


def unchanged(sources: list[Source], before: list[Source]) -> list[tuple[str, str]]:
    """(old name, new name) of each local file of the new side's ``sources`` whose bytes
    equal those of the old side's file of the same name (each relative to its side's
    inputs): it holds the same records (:func:`copy_rows`)."""
    old_names = _relative_names(before)
    old = {old_names.get(s.display, s.display): s for s in before if _local(s)}
    new_names = _relative_names(sources)
    same: list[tuple[str, str]] = []
    for source in sources:
        match = old.get(new_names.get(source.display, source.display))
        if match is not None and _local(source) and match.is_lines == source.is_lines and \
                _same_bytes(match.path, source.path):
            same.append((match.display, source.display))
    return same


def copy_rows(con: duckdb.DuckDBPyConnection, same: list[tuple[str, str]]) -> None:
    """The old side's rows of each (old file, new file) of ``same`` copied as the new side's
    rows of the new file."""
    if same:
        olds, news = (list(names) for names in zip(*same, strict=True))
        copied = ", ".join({"side": "1", "file": "s.new"}.get(c, f"r.{c}") for c in COLUMNS)
        con.execute(f"INSERT INTO records SELECT {copied} FROM records r JOIN "
                    f"(SELECT unnest(?) AS old, unnest(?) AS new) s ON r.file = s.old "
                    f"WHERE r.side = 0", [olds, news])


def _local(source: Source) -> bool:
    return not source.is_stdin and source.error is None and not remote.is_url(source.path)


def _same_bytes(a: str, b: str, chunk: int = 1 << 20) -> bool:
    """Whether the files ``a`` and ``b`` hold the same bytes (False when one cannot be read)."""
    try:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                block = fa.read(chunk)
                if block != fb.read(chunk):
                    return False
                if not block:
                    return True
    except OSError:
        return False


#: Document numbers reserved per source (a later document of a side wins a tie).
DOCS_PER_SOURCE = 1 << 32
#: Sources in one task on a cluster (its rows come back in one message).
CLUSTER_PART = 256

_Part = tuple[int, list[Source], dict[str, str], int, str]


def _batches(part: _Part, skipped: SkippedInputs) -> Iterator[bytes]:
    """The rows of one part of a side's sources, :data:`BATCH_ROWS` at a time, each batch
    one line of JSON for :func:`_read_staged`."""
    side, sources, relative, offset, _prefix = part
    batch: list[_DocRows] = []
    size = 0
    for doc in _rows(sources, skipped, relative, offset):
        batch.append(doc)
        size += len(doc[3])
        if size >= BATCH_ROWS:
            yield _document_columns(side, batch)
            batch, size = [], 0
    if batch:
        yield _document_columns(side, batch)


def _document_columns(side: int, batch: list[_DocRows]) -> bytes:
    """:func:`_columns` of documents' rows, each document's values repeated for its rows."""
    own: list[tuple[Any, ...]] = []
    files: list[str] = []
    numbers: list[int] = []
    lines: list[int | None] = []
    measures: list[list[int | None]] = [[] for _ in MEASURES]
    for path, doc_no, line, rows, measured in batch:
        n = len(rows)
        for column in measures:
            column += [None] * n
        for place, values in measured:
            for column, value in zip(measures, values, strict=True):
                column[len(own) + place] = value
        own += rows
        files += [path] * n
        numbers += [doc_no] * n
        lines += [line] * n
    if not own:
        return b""
    tbl, key, parent, idx, rank, pointer, digests = zip(*own, strict=True)
    n = len(own)
    return _line({"side": [side] * n, "tbl": tbl, "key": key, "parent": parent, "idx": idx,
                  "rank": rank, "file": files, "doc_no": numbers, "record": lines,
                  "pointer": pointer, "hash": digests, **dict(zip(MEASURES, measures, strict=True)),
                  "body": [None] * n})


def _columns(batch: list[list[Any]]) -> bytes:
    """Rows (values of :data:`COLUMNS`) as :func:`_line`."""
    return _line(dict(zip(COLUMNS, zip(*batch, strict=True), strict=True)))


def _line(columns: dict[str, Any]) -> bytes:
    """Rows as one line of JSON, a list per column: one call of orjson writes them all, and
    DuckDB reads them in bulk."""
    return orjson.dumps(columns) + b"\n"


def _part(part: _Part) -> tuple[list[str], SkippedInputs]:
    """One part of a side's sources read into staging files (run in a local worker)."""
    skipped = SkippedInputs()
    files = [_staged_bytes(data, f"{part[4]}-{n}")
             for n, data in enumerate(_batches(part, skipped))]
    return files, skipped


def part_rows(part: _Part) -> tuple[bytes, SkippedInputs]:
    """One part of a side's sources, read on a cluster's worker: its rows and what could not
    be read (never the documents themselves)."""
    skipped = SkippedInputs()
    return b"".join(_batches(part, skipped)), skipped


def _staged_bytes(data: bytes, prefix: str) -> str:
    path = f"{prefix}.jsonl"
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def _gather(con: duckdb.DuckDBPyConnection, done: Iterable[tuple[list[str], SkippedInputs]],
            sides_of: list[int], by_side: dict[int, SkippedInputs]) -> None:
    for (files, part_skipped), side in zip(done, sides_of, strict=True):
        for path in files:
            if os.path.getsize(path):
                _read_staged(con, path)
            os.unlink(path)
        skipped = by_side[side]
        skipped.unreadable += part_skipped.unreadable
        skipped.unparseable += part_skipped.unparseable
        skipped.unknown_kind += part_skipped.unknown_kind


def store(con: duckdb.DuckDBPyConnection, rows: Iterable[list[Any]], staging: str) -> None:
    """``rows`` (values of :data:`COLUMNS`) into ``records``, :data:`BATCH_ROWS` at a time
    through the file ``staging``."""
    batch: list[list[Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH_ROWS:
            _insert(con, batch, staging)
            batch = []
    if batch:
        _insert(con, batch, staging)


def _insert(con: duckdb.DuckDBPyConnection, batch: list[list[Any]], staging: str) -> None:
    with open(staging, "wb") as fh:
        fh.write(_columns(batch))
    _read_staged(con, staging)


def _read_staged(con: duckdb.DuckDBPyConnection, path: str) -> None:
    """A staging file (lines of :func:`_columns`) into ``records``."""
    columns = "{" + ", ".join(f"'{n}': '{t}[]'" for n, t in COLUMNS.items()) + "}"
    unnested = ", ".join(f"unnest({n})" for n in COLUMNS)
    con.execute(f"INSERT INTO records SELECT {unnested} FROM read_json(?, format = "
                f"'newline_delimited', columns = {columns}, maximum_object_size = "
                f"{os.path.getsize(path) + 1})", [path])


def _relative_names(sources: list[Source]) -> dict[str, str]:
    """Each source's path relative to the inputs' common directory (keys for records that
    have no id of their own, so the same file in two trees is the same record)."""
    paths = [s.display for s in sources]
    if not paths:
        return {}
    try:
        root = os.path.commonpath([os.path.abspath(p) for p in paths])
    except ValueError:
        return {}
    if len(paths) == 1:
        root = os.path.dirname(root)
    return {p: os.path.relpath(os.path.abspath(p), root) for p in paths}
