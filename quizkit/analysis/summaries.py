"""The ready summaries: package sizes, starts and games, and an overview of everything loaded.

Definitions (also in ``docs/tables.md``):

* Percentiles are nearest-rank (``quantile_disc``): p-th percentile of n values is the value at
  1-based rank ceil(p * n) in ascending order.
* Media counts come from the steps of each package's *current version*: the version that is not
  deleted, preferring a published one, then the latest ``created_at`` (then the greatest id).
* ``--top N`` limits every ranked list (largest packages, groups, games per package/version);
  0 means no limit.
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from quizkit.analysis.sections import Section, section
from quizkit.analysis.tables import DATA_TABLES

GROUPS: dict[str, tuple[str, str, str]] = {
    # name: (label columns, group key, extra join)
    "author": ("p.user_id AS user_id, max(p.author_username) AS author", "p.user_id", ""),
    "type": ("p.type AS type", "p.type", ""),
    "difficulty": ("p.difficulty AS difficulty", "p.difficulty", ""),
    "category": ("c.category_id AS category_id, coalesce(max(c.name), '(none)') AS category",
                 "c.category_id", "LEFT JOIN categories c ON c.package_id = p.id"),
}
GROUP_NAMES: tuple[str, ...] = tuple(GROUPS)

MEASURES = ("size_total", "size_text", "size_images", "size_audio", "size_video")
# media type in steps -> the meta.size field it is counted against
MEDIA_SIZE = {"image": "size_images", "audio": "size_audio", "video": "size_video"}

CURRENT = """
current_versions AS (
    SELECT * FROM versions WHERE package_id IN (SELECT id FROM packages)
    QUALIFY row_number() OVER (
        PARTITION BY package_id
        ORDER BY deleted ASC, published DESC NULLS LAST, created_at DESC NULLS LAST,
                 id DESC NULLS LAST) = 1),
current_steps AS (
    SELECT * FROM steps WHERE version_id IN (SELECT id FROM current_versions)),
package_media AS (
    SELECT package_id, count(*) AS steps,
           count(*) FILTER (WHERE has_text) AS text_steps,
           count(*) FILTER (WHERE media_type = 'image') AS image_steps,
           count(*) FILTER (WHERE media_type = 'audio') AS audio_steps,
           count(*) FILTER (WHERE media_type = 'video') AS video_steps,
           count(*) FILTER (WHERE has_background) AS background_steps
    FROM current_steps GROUP BY package_id)
"""

GAME_COUNTS = """
game_counts AS (
    SELECT package_id, count(*) AS games,
           count(*) FILTER (WHERE status = 'completed') AS completed,
           count(*) FILTER (WHERE status = 'stopped') AS stopped,
           count(*) FILTER (WHERE status = 'open') AS open
    FROM games GROUP BY package_id)
"""


def _limit(top: int) -> str:
    return f"LIMIT {int(top)}" if top and top > 0 else ""


def _quantiles(expr: str) -> str:
    return (f"min({expr}) AS min, quantile_disc({expr}, 0.5) AS p50, "
            f"quantile_disc({expr}, 0.9) AS p90, quantile_disc({expr}, 0.99) AS p99, "
            f"max({expr}) AS max, avg({expr}) AS mean")


def _check_groups(by: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(by))
    unknown = [b for b in chosen if b not in GROUPS]
    if unknown:
        raise ValueError(f"unknown grouping {unknown[0]!r} (use {', '.join(GROUPS)})")
    return chosen


def sizes(con: duckdb.DuckDBPyConnection, *, top: int = 10,
          by: Iterable[str] = GROUP_NAMES) -> list[Section]:
    """``meta.size`` per package and media kind: distribution, largest, media, groups."""
    groups = _check_groups(by)
    dist = "\nUNION ALL\n".join(
        f"SELECT '{m}' AS measure, count({m}) AS packages, sum({m}) AS total, {_quantiles(m)} "
        f"FROM packages" for m in MEASURES)
    out = [section(con, "distribution", "Package size distribution (bytes, meta.size)", dist,
                   sizes=("total", "min", "p50", "p90", "p99", "max", "mean"))]
    out.append(section(con, "largest", f"Largest packages (top {top or 'all'})", f"""
        WITH {CURRENT}
        SELECT p.id, p.name, p.author_username AS author, p.type, p.difficulty,
               p.size_total, p.size_text, p.size_images, p.size_audio, p.size_video,
               m.steps, m.text_steps, m.image_steps, m.audio_steps, m.video_steps,
               m.background_steps
        FROM packages p LEFT JOIN package_media m ON m.package_id = p.id
        ORDER BY p.size_total DESC NULLS LAST, p.id {_limit(top)}""", sizes=MEASURES))
    fixed = [("text", "size_text", "has_text", "NULL")] + [
        (media, field, f"media_type = '{media}'", f"background_type = '{media}'")
        for media, field in MEDIA_SIZE.items()]
    parts = [f"""
        SELECT '{name}' AS media, {i} AS o,
               (SELECT sum({field}) FROM packages) AS meta_size,
               (SELECT count(*) FILTER (WHERE {field} > 0) FROM packages) AS packages_with_size,
               (SELECT count(*) FROM current_steps WHERE {cond}) AS steps,
               (SELECT count(DISTINCT package_id) FROM current_steps WHERE {cond})
                   AS packages_with_steps,
               (SELECT count(*) FROM current_steps WHERE {bg}) AS background_steps"""
             for i, (name, field, cond, bg) in enumerate(fixed)]
    known = ", ".join(f"'{m}'" for m in MEDIA_SIZE)
    parts.append(f"""
        SELECT media_type, 9, NULL, NULL, count(*), count(DISTINCT package_id),
               (SELECT count(*) FROM current_steps b WHERE b.background_type = s.media_type)
        FROM current_steps s WHERE media_type NOT IN ({known}) GROUP BY media_type""")
    out.append(section(con, "media", "Media: meta.size next to steps of current versions", f"""
        WITH {CURRENT}
        SELECT * EXCLUDE (o) FROM ({' UNION ALL '.join(parts)}) ORDER BY o, media""",
        sizes=("meta_size",)))
    for name in groups:
        labels, key, join = GROUPS[name]
        out.append(section(con, f"by_{name}", f"Package sizes by {name}", f"""
            SELECT {labels}, count(DISTINCT p.id) AS packages, sum(p.size_total) AS size_total,
                   avg(p.size_total) AS mean, quantile_disc(p.size_total, 0.5) AS p50,
                   max(p.size_total) AS max, sum(p.size_text) AS size_text,
                   sum(p.size_images) AS size_images, sum(p.size_audio) AS size_audio,
                   sum(p.size_video) AS size_video
            FROM packages p {join}
            GROUP BY {key} ORDER BY size_total DESC NULLS LAST, {key} NULLS LAST
            {_limit(top)}""", sizes=(*MEASURES, "mean", "p50", "max")))
    return out


def starts(con: duckdb.DuckDBPyConnection, *, top: int = 10,
           by: Iterable[str] = GROUP_NAMES) -> list[Section]:
    """``meta.starts`` totals, top packages and groups; games per package and version."""
    groups = _check_groups(by)
    out = [section(con, "totals", "Starts (meta.starts) over packages", f"""
        SELECT count(*) AS packages, sum(starts) AS starts,
               count(*) FILTER (WHERE starts > 0) AS packages_started, {_quantiles('starts')}
        FROM packages""")]
    out.append(section(con, "top", f"Most started packages (top {top or 'all'})", f"""
        WITH {GAME_COUNTS}
        SELECT p.id, p.name, p.author_username AS author, p.type, p.difficulty, p.starts,
               coalesce(g.games, 0) AS games, coalesce(g.completed, 0) AS completed,
               coalesce(g.stopped, 0) AS stopped
        FROM packages p LEFT JOIN game_counts g ON g.package_id = p.id
        ORDER BY p.starts DESC NULLS LAST, p.id {_limit(top)}"""))
    for name in groups:
        labels, key, join = GROUPS[name]
        out.append(section(con, f"by_{name}", f"Starts by {name}", f"""
            WITH {GAME_COUNTS}
            SELECT {labels}, count(DISTINCT p.id) AS packages, sum(p.starts) AS starts,
                   avg(p.starts) AS mean, max(p.starts) AS max,
                   coalesce(sum(g.games), 0) AS games
            FROM packages p {join} LEFT JOIN game_counts g ON g.package_id = p.id
            GROUP BY {key} ORDER BY starts DESC NULLS LAST, {key} NULLS LAST {_limit(top)}"""))
    out.append(section(con, "games_per_package", "Games per package", f"""
        SELECT g.package_id, coalesce(max(p.name), max(g.pkg_name)) AS name,
               max(p.starts) AS starts, count(*) AS games,
               count(*) FILTER (WHERE g.status = 'completed') AS completed,
               count(*) FILTER (WHERE g.status = 'stopped') AS stopped,
               count(*) FILTER (WHERE g.status = 'open') AS open,
               count(DISTINCT g.version_id) AS versions, sum(g.duration) AS duration
        FROM games g LEFT JOIN packages p ON p.id = g.package_id
        GROUP BY g.package_id ORDER BY games DESC, g.package_id NULLS LAST {_limit(top)}"""))
    out.append(section(con, "games_per_version", "Games per version", f"""
        SELECT version_id, max(package_id) AS package_id, count(*) AS games,
               count(*) FILTER (WHERE status = 'completed') AS completed,
               count(*) FILTER (WHERE status = 'stopped') AS stopped,
               count(*) FILTER (WHERE status = 'open') AS open
        FROM games GROUP BY version_id ORDER BY games DESC, version_id NULLS LAST
        {_limit(top)}"""))
    out.append(section(con, "game_status", "Completed against stopped games", """
        SELECT s.status, count(g.id) AS games,
               100.0 * count(g.id) / nullif((SELECT count(*) FROM games), 0) AS percent
        FROM (VALUES ('completed', 1), ('stopped', 2), ('open', 3)) s(status, o)
        LEFT JOIN games g ON g.status = s.status
        GROUP BY s.status, s.o ORDER BY s.o"""))
    out.append(section(con, "game_durations",
                       "Game durations (sum of history durations per game)", f"""
        SELECT s.status, count(g.id) AS games,
               count(g.id) FILTER (WHERE g.n_history > 0) AS games_with_history,
               coalesce(sum(g.n_history), 0) AS history_entries,
               sum(g.duration) AS total_duration, {_quantiles('g.duration')}
        FROM (VALUES ('all', 0), ('completed', 1), ('stopped', 2), ('open', 3)) s(status, o)
        LEFT JOIN games g ON s.status = 'all' OR g.status = s.status
        GROUP BY s.status, s.o ORDER BY s.o"""))
    return out


STATES = (
    ("packages", "deleted", "deleted"),
    ("versions", "published", "published"),
    ("versions", "deleted", "deleted"),
    ("versions", "published and not deleted", "published AND NOT deleted"),
    ("games", "completed", "status = 'completed'"),
    ("games", "stopped", "status = 'stopped'"),
    ("games", "open", "status = 'open'"),
    ("users", "banned", "banned"),
)


def overview(con: duckdb.DuckDBPyConnection, *, top: int = 10) -> list[Section]:
    """Counts of every table, shares of states, files by kind, the most frequent findings."""
    counts = " UNION ALL ".join(f"SELECT '{t}' AS entity, {i} AS o, count(*) AS rows "
                                f"FROM \"{t}\"" for i, t in enumerate(DATA_TABLES))
    out = [section(con, "entities", "Rows per table",
                   f"SELECT entity, rows FROM ({counts}) ORDER BY o")]
    states = " UNION ALL ".join(
        f"SELECT '{table}' AS entity, '{label}' AS state, {i} AS o, "
        f"count(*) FILTER (WHERE {cond}) AS count, count(*) AS total FROM {table}"
        for i, (table, label, cond) in enumerate(STATES))
    out.append(section(con, "states", "Shares of states", f"""
        SELECT entity, state, count, total, 100.0 * count / nullif(total, 0) AS percent
        FROM ({states}) ORDER BY o"""))
    out.append(section(con, "files", "Files by document kind", """
        SELECT coalesce(kind, '(unknown)') AS kind, count(*) AS files,
               sum(documents) AS documents, sum(unknown_documents) AS unknown_documents,
               sum(bytes) AS bytes
        FROM files GROUP BY kind ORDER BY files DESC, kind""", sizes=("bytes",)))
    out.append(section(con, "findings", f"Most frequent findings (top {top or 'all'})", f"""
        SELECT code, rule, severity, count(*) AS findings, count(DISTINCT file) AS files
        FROM findings GROUP BY code, rule, severity
        ORDER BY findings DESC, code, rule {_limit(top)}"""))
    return out


SUMMARIES = {"sizes": sizes, "starts": starts, "overview": overview}
