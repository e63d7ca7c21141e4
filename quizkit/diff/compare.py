"""The comparison in SQL: one copy of each record per side, the pairs, and what became of each.

Both sides' records are in the table ``records`` (:mod:`quizkit.diff.collect` or
:mod:`quizkit.diff.database_side`). A pair is matched by table and key; equal digests are the same
record. Two records equal in everything but their place are ``moved`` when their order among
the records their parent keeps on both sides differs (so removing a round does not make the
rounds after it moved). The work runs inside DuckDB, with its memory limit and spill.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb

from quizkit.diff.records import MEASURES, TABLES

#: The kinds of change, as reports name them.
CHANGES = ("added", "removed", "changed", "moved")

#: Most keys are held once a side: only the others are ranked.
_WINNERS = """
CREATE TABLE winners AS
WITH held_more AS (SELECT side, tbl, key FROM records GROUP BY ALL HAVING count(*) > 1)
SELECT * FROM records ANTI JOIN held_more USING (side, tbl, key)
UNION ALL
SELECT * FROM (SELECT * FROM records SEMI JOIN held_more USING (side, tbl, key))
QUALIFY row_number() OVER (PARTITION BY side, tbl, key
                           ORDER BY rank, file DESC, doc_no DESC, pointer DESC) = 1
"""

_PAIRS = """
CREATE TABLE pairs AS
WITH joined AS (
    SELECT coalesce(o.tbl, n.tbl) AS tbl, coalesce(o.key, n.key) AS key,
           o.hash AS old_hash, n.hash AS new_hash,
           o.parent AS old_parent, n.parent AS new_parent, o.idx AS old_idx, n.idx AS new_idx,
           o.file AS old_file, o.record AS old_record, o.pointer AS old_pointer,
           n.file AS new_file, n.record AS new_record, n.pointer AS new_pointer,
           o.body AS old_body, n.body AS new_body
    FROM (SELECT * FROM winners WHERE side = 0) o
    FULL OUTER JOIN (SELECT * FROM winners WHERE side = 1) n ON o.tbl = n.tbl AND o.key = n.key
), ranked AS (
    -- the order of each parent's records that it keeps on both sides
    SELECT tbl, key,
           row_number() OVER (PARTITION BY tbl, old_parent ORDER BY old_idx) AS old_rank,
           row_number() OVER (PARTITION BY tbl, old_parent ORDER BY new_idx) AS new_rank
    FROM joined
    WHERE old_hash IS NOT NULL AND new_hash IS NOT NULL AND old_idx IS NOT NULL
          AND new_idx IS NOT NULL AND old_parent = new_parent
)
SELECT tbl, key,
       CASE WHEN old_hash IS NULL THEN 'added'
            WHEN new_hash IS NULL THEN 'removed'
            WHEN old_hash <> new_hash THEN 'changed'
            WHEN old_parent <> new_parent OR old_rank <> new_rank THEN 'moved'
            ELSE 'unchanged' END AS change,
       old_file, old_record, old_pointer, old_idx, new_file, new_record, new_pointer, new_idx,
       old_body, new_body
FROM joined LEFT JOIN ranked USING (tbl, key)
"""


def compare(con: duckdb.DuckDBPyConnection) -> None:
    """Build ``winners`` and ``pairs`` from ``records``."""
    con.execute(_WINNERS)
    con.execute(_PAIRS)


def summary(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, int]]:
    """Per table: how many records were added, removed, changed, moved and unchanged."""
    out = {t: {c: 0 for c in (*CHANGES, "unchanged")} for t in TABLES}
    for tbl, change, n in con.execute(
            "SELECT tbl, change, count(*) FROM pairs GROUP BY ALL").fetchall():
        out.setdefault(tbl, {c: 0 for c in (*CHANGES, "unchanged")})[change] = n
    return out


def totals(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, int]]:
    """The measures people watch, per side: packages, versions, games, sizes, starts."""
    sums = ", ".join(f"coalesce(sum({m}) FILTER (WHERE tbl = 'packages'), 0)" for m in MEASURES)
    rows = {side: row for side, *row in con.execute(
        f"SELECT side, count(*) FILTER (WHERE tbl = 'packages'), "
        f"count(*) FILTER (WHERE tbl = 'versions'), count(*) FILTER (WHERE tbl = 'games'), "
        f"{sums} FROM winners GROUP BY side").fetchall()}
    names = ("packages", "versions", "games", *MEASURES)
    empty = [0] * len(names)
    return {name: {"old": int(rows.get(0, empty)[i] or 0), "new": int(rows.get(1, empty)[i] or 0)}
            for i, name in enumerate(names)}


def changes(con: duckdb.DuckDBPyConnection, kinds: tuple[str, ...] = CHANGES,
            batch: int = 10_000) -> Iterator[tuple[Any, ...]]:
    """The pairs that differ, table by table in report order, then by key:
    (table, key, change, old file, old record, old pointer, new file, new record, new
    pointer, and the old and new bodies of a changed table row)."""
    order = "CASE tbl " + " ".join(f"WHEN '{t}' THEN {i}" for i, t in enumerate(TABLES)) + \
        f" ELSE {len(TABLES)} END"
    marks = ", ".join("?" for _ in kinds)
    cursor = con.execute(
        f"SELECT tbl, key, change, old_file, old_record, old_pointer, new_file, new_record, "
        f"new_pointer, CASE change WHEN 'changed' THEN old_body END, "
        f"CASE change WHEN 'changed' THEN new_body END FROM pairs "
        f"WHERE change IN ({marks}) ORDER BY {order}, tbl, key",
        list(kinds))
    while rows := cursor.fetchmany(batch):
        yield from rows
