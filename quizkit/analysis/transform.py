"""SQL that turns staged documents into the rows of each table, in two stages.

1. *Candidates* (:data:`CANDIDATES`, once per batch of files): the documents of one batch
   (temp table ``raw``) become rows of ``cand_<table>``, one for every record of every
   document, with the keys that decide which record wins: ``doc_no`` (unique in the load,
   increasing with the document's place in its file), ``pos`` (a version's place in its
   package) and ``rank`` (which kind of document wins). ``raw`` is then dropped, so a load
   holds one batch of documents at a time, and candidate rows (flat, far smaller than the
   documents) are all that accumulates; a Dask worker computes the candidates of its files
   the same way and sends back only these rows.
2. *Picks* (:data:`PICKS`, once per load): the winners among all candidates, chosen on narrow
   key tables (``win_*``), then the rows of each table (``new_<table>`` temp tables; the large
   entity tables are selected straight into their tables, :data:`DIRECT`). The versions and
   their entities (:data:`BY_VERSION`) depend on nothing but their own candidates and the
   winning packages: a cluster picks them apart, per part of the version ids
   (:data:`VERSION_PICKS`), on its workers.

A record wins for its id when it comes from the later file, then the later document (and,
for versions, the kind of document: ``package-full`` first, then ``version`` /
``version-list``, then ``version-created``). The versions, categories and author of a
package-full document count only when that document's package wins.
"""

from __future__ import annotations

from quizkit.analysis.tables import BY_NAME
from quizkit.model.entities import VERSION_PRECEDENCE, View, kind, kinds_of_view


def _kinds(*names: str) -> str:
    """``kind IN (...)`` of these kinds, each checked against the model."""
    return "kind IN (" + ", ".join(f"'{kind(name).name}'" for name in names) + ")"


def _view(view: View) -> str:
    """``kind IN (...)`` of the kinds whose versions are in ``view``."""
    return _kinds(*kinds_of_view(view))


#: The rank of each view of a version: the lower wins (:data:`VERSION_PRECEDENCE`).
_RANK = {view: rank for rank, view in enumerate(VERSION_PRECEDENCE, 1)}
#: The one kind that holds a package's full export, its versions and its author.
_FULL = kinds_of_view("full")[0]


def ts(expr: str) -> str:
    """A date-time string -> TIMESTAMP (UTC); anything else -> NULL."""
    return f"TRY_CAST({expr} AS TIMESTAMP)"


# A document's number in the whole load: its number in the batch plus the batch's offset
# ({offset} is filled in with an integer by candidate_statements).
DOC = "(doc_no + {offset})"

_PACKAGE_DOCS = f"raw WHERE {_view('full')}"

CAND_PACKAGES = f"""
SELECT id, name, description, type, difficulty, rating, explicit, verified,
       {ts('createdAt')} AS created_at, {ts('updatedAt')} AS updated_at,
       {ts('deletedAt')} AS deleted_at, deletedAt IS NOT NULL AS deleted,
       userId AS user_id, "user".username AS author_username,
       meta.starts AS starts, meta.fingerprint AS fingerprint,
       {ts('meta.updatedAt')} AS meta_updated_at,
       meta.size.text AS size_text, meta.size.images AS size_images,
       meta.size.audio AS size_audio, meta.size.video AS size_video,
       CASE WHEN meta.size IS NULL THEN NULL
            ELSE coalesce(meta.size.text, 0) + coalesce(meta.size.images, 0)
               + coalesce(meta.size.audio, 0) + coalesce(meta.size.video, 0) END AS size_total,
       len(version_ids) AS n_versions, len(categories) AS n_categories, file, record,
       base AS pointer, {DOC} AS doc_no
FROM {_PACKAGE_DOCS}
"""

# The versions of package-full documents, one row each, with their place in the package.
_PACKAGE_VERSIONS = f"""
(SELECT id AS pkg_id, file, record, base, {DOC} AS doc_no, unnest(versions) AS v,
        generate_subscripts(versions, 1) AS pos
 FROM {_PACKAGE_DOCS} AND versions IS NOT NULL)
"""

CAND_VERSIONS = f"""
SELECT id, package_id, kind, {ts('createdAt')} AS created_at, {ts('updatedAt')} AS updated_at,
       {ts('deletedAt')} AS deleted_at, deletedAt IS NOT NULL AS deleted, published,
       len(validation.results) AS validation_results,
       len(list_filter(validation.results, lambda r: r.level = 'error')) AS validation_errors,
       validation.timestamp AS validation_timestamp,
       len(rounds) AS n_rounds, len(themes) AS n_themes, len(questions) AS n_questions,
       len(steps) AS n_steps, file, record, pointer, rank, doc_no, pos
FROM (
    SELECT v.id, pkg_id AS package_id, '{_FULL}' AS kind, v.createdAt, v.updatedAt,
           v.deletedAt, v.published, v.validation, v.rounds, v.themes, v.questions, v.steps,
           file, record, base || '/versions/' || (pos - 1) AS pointer,
           {_RANK['full']} AS rank, doc_no, pos
    FROM {_PACKAGE_VERSIONS}
    UNION ALL BY NAME
    SELECT id, packageId AS package_id, kind, createdAt, updatedAt, deletedAt, published,
           validation, rounds, themes, questions, steps, file, record, base AS pointer,
           {_RANK['list']} AS rank, {DOC} AS doc_no, 0 AS pos
    FROM raw WHERE {_view('list')}
    UNION ALL BY NAME
    SELECT "version".id, "version".packageId AS package_id, kind, "version".createdAt,
           "version".updatedAt, "version".deletedAt, "version".published,
           "version".validation, file, record, base || '/version' AS pointer,
           {_RANK['created']} AS rank, {DOC} AS doc_no, 0 AS pos
    FROM raw WHERE {_view('created')}
)
"""

# Versions that carry entity lists, keyed like their candidate rows.
_ENTITY_VERSIONS = f"""(
SELECT v.id AS version_id, pkg_id AS package_id, doc_no, pos, v.rounds, v.themes,
       v.questions, v.steps
FROM {_PACKAGE_VERSIONS}
UNION ALL BY NAME
SELECT id AS version_id, packageId AS package_id, {DOC} AS doc_no, 0 AS pos, rounds,
       themes, questions, steps
FROM raw WHERE {_view('list')}
)"""


def _entities(field: str, columns: str) -> str:
    # No file, record or pointer column: the many entity rows take them from their version's
    # winner (DIRECT), so the candidates that pile up until the picks hold no copy of every
    # path; ``idx`` is the entity's place in its version's list.
    return f"""
SELECT {columns}, doc_no, pos, idx
FROM (SELECT version_id, package_id, doc_no, pos, unnest({field}) AS e,
             generate_subscripts({field}, 1) - 1 AS idx
      FROM {_ENTITY_VERSIONS} WHERE {field} IS NOT NULL)
"""


CAND_ROUNDS = _entities("rounds", "e.id, version_id, package_id, e.name, e.type, e.position")
CAND_THEMES = _entities("themes", "e.id, version_id, package_id, e.roundId AS round_id, e.name, "
                                  "e.description, e.position")
CAND_QUESTIONS = _entities("questions", "e.id, version_id, package_id, e.themeId AS theme_id, "
                                        "e.type, e.position, e.price, e.source")
CAND_STEPS = _entities("steps", """e.id, version_id, package_id, e.questionId AS question_id,
       e.type, e.position, e.duration,
       e.payload.media IS NOT NULL AS has_media, e.payload.media.type AS media_type,
       e.payload.media.src AS media_src,
       e.payload.backgroundMedia IS NOT NULL AS has_background,
       e.payload.backgroundMedia.type AS background_type,
       e.payload.backgroundMedia.duration AS background_duration,
       coalesce(length(e.payload.text) > 0, false) AS has_text,
       length(e.payload.text) AS text_length,
       coalesce(length(e.payload.caption) > 0, false) AS has_caption,
       len(e.payload.variants) AS n_variants""")

CAND_CATEGORIES = f"""
SELECT package_id, c.categoryId AS category_id, c.category.name AS name,
       c.category.i18n.name AS i18n_name, c.category.emoji AS emoji,
       c.category.color AS color, {ts('c.category.createdAt')} AS created_at, file, record,
       base || '/categories/' || (i - 1) AS pointer, doc_no
FROM (SELECT id AS package_id, file, record, base, {DOC} AS doc_no, unnest(categories) AS c,
             generate_subscripts(categories, 1) AS i
      FROM {_PACKAGE_DOCS} AND categories IS NOT NULL)
"""

CAND_USERS = f"""
SELECT u.id, kind, u.username, u.realname, u.email, u.role, u.verified, u.banned,
       u.banReason AS ban_reason, {ts('u.banExpiresAt')} AS ban_expires_at, u.anonymous,
       u.reputation, u.pkgCount AS pkg_count, u.createdAt AS created_at,
       {ts('u.updatedAt')} AS updated_at, language, pkgs_languages,
       u.banner.type AS banner_type, u.banner.value AS banner_value, file, record,
       base || '/user' AS pointer, rank, doc_no
FROM (
    SELECT "user" AS u, kind, 1 AS rank, settings.language AS language,
           CAST(settings.pkgsLanguages AS VARCHAR) AS pkgs_languages, file, record, base,
           {DOC} AS doc_no
    FROM raw WHERE {_kinds('user-self')}
    UNION ALL
    SELECT "user", kind, 2, NULL, NULL, file, record, base, {DOC}
    FROM {_PACKAGE_DOCS} AND "user" IS NOT NULL
)
WHERE u IS NOT NULL
"""

CAND_GAMES = f"""
SELECT id, name, userId AS user_id, visibility, packageId AS package_id,
       versionId AS version_id, {ts('createdAt')} AS created_at,
       {ts('completedAt')} AS completed_at, {ts('stoppedAt')} AS stopped_at,
       CASE WHEN completedAt IS NOT NULL THEN 'completed'
            WHEN stoppedAt IS NOT NULL THEN 'stopped' ELSE 'open' END AS status,
       settings.slots AS slots, settings.prePlay AS pre_play, settings.teamMode AS team_mode,
       pkg.name AS pkg_name, pkg.type AS pkg_type, pkg.difficulty AS pkg_difficulty,
       pkg.userId AS pkg_user_id, len(history) AS n_history,
       list_sum(list_transform(history, lambda h: h.duration)) AS duration, file, record,
       base AS pointer, {DOC} AS doc_no
FROM raw WHERE {_view('game')}
"""

CAND_GAME_HISTORY = f"""
SELECT h.id, game_id, h.gameId AS record_game_id, {ts('h.createdAt')} AS created_at,
       h.duration, h.dumpArchiveFileKey AS dump_archive_file_key, file, record,
       base || '/history/' || (i - 1) AS pointer, doc_no
FROM (SELECT id AS game_id, file, record, base, {DOC} AS doc_no, unnest(history) AS h,
             generate_subscripts(history, 1) AS i
      FROM raw WHERE {_view('game')} AND history IS NOT NULL)
"""

CAND_BANNERS = f"""
SELECT id, kind, userId AS user_id, slot, position, "current",
       payload.type AS payload_type, payload.value AS payload_value,
       payload.color AS payload_color, {ts('createdAt')} AS created_at,
       {ts('updatedAt')} AS updated_at, file, record, base AS pointer, {DOC} AS doc_no
FROM raw WHERE {_kinds('banner', 'banner-create')}
"""

# table -> the SELECT over raw that gives its candidate rows (cand_<table>).
CANDIDATES: dict[str, str] = {
    "packages": CAND_PACKAGES,
    "versions": CAND_VERSIONS,
    "rounds": CAND_ROUNDS,
    "themes": CAND_THEMES,
    "questions": CAND_QUESTIONS,
    "steps": CAND_STEPS,
    "categories": CAND_CATEGORIES,
    "users": CAND_USERS,
    "games": CAND_GAMES,
    "game_history": CAND_GAME_HISTORY,
    "banners": CAND_BANNERS,
}


def candidate_statements(offset: int) -> list[tuple[str, str]]:
    """(table, SELECT) of every candidate table for a batch whose documents are numbered
    from ``offset`` on."""
    return [(t, sql.replace("{offset}", str(int(offset)))) for t, sql in CANDIDATES.items()]


def _latest(partition: str, *, first: str = "", last: str = "") -> str:
    """The QUALIFY that keeps one row per ``partition`` (all rows whose key is NULL)."""
    return (f"QUALIFY {partition} IS NULL OR row_number() OVER (PARTITION BY {partition} "
            f"ORDER BY {first}file DESC, doc_no DESC{last}) = 1")


def _cols(table: str) -> str:
    return ", ".join(f'"{c}"' for c in BY_NAME[table].column_names)


WIN_PACKAGES = f"""
CREATE OR REPLACE TEMP TABLE win_packages AS
SELECT doc_no FROM cand_packages {_latest('id')}
"""

WIN_VERSIONS = f"""
CREATE OR REPLACE TEMP TABLE win_versions AS
SELECT doc_no, pos, file, record, pointer FROM cand_versions
WHERE rank > 1 OR doc_no IN (SELECT doc_no FROM win_packages)
{_latest('id', first='rank, ', last=', pos DESC')}
"""

WIN_GAMES = f"""
CREATE OR REPLACE TEMP TABLE win_games AS
SELECT doc_no FROM cand_games {_latest('id')}
"""


def _new(table: str, body: str) -> str:
    return f"CREATE OR REPLACE TEMP TABLE new_{table} AS SELECT {_cols(table)} {body}"


# In order: the winners first, since the new_* tables read them. The picks of every record
# but the versions and their entities:
PACKAGE_WINNERS = ("win_packages", WIN_PACKAGES)
RECORD_PICKS: tuple[tuple[str, str], ...] = (
    PACKAGE_WINNERS,
    ("packages", _new("packages", "FROM cand_packages SEMI JOIN win_packages USING (doc_no)")),
    ("categories", _new("categories",
                        "FROM cand_categories SEMI JOIN win_packages USING (doc_no)")),
    ("users", _new("users", "FROM cand_users WHERE rank = 1 OR doc_no IN "
                            "(SELECT doc_no FROM win_packages) "
                            + _latest("id", first="rank, updated_at DESC NULLS LAST, "))),
    ("win_games", WIN_GAMES),
    ("games", _new("games", "FROM cand_games SEMI JOIN win_games USING (doc_no)")),
    ("game_history", _new("game_history",
                          "FROM cand_game_history SEMI JOIN win_games USING (doc_no)")),
    ("banners", _new("banners", "FROM cand_banners " + _latest("id"))),
)

# The picks of the versions (after :data:`PACKAGE_WINNERS`): they need every candidate of a
# version id (and the entities, :data:`DIRECT`, their version's), and nothing else but
# win_packages, which needs only the id, file and doc_no of every package candidate.
VERSION_PICKS: tuple[tuple[str, str], ...] = (
    ("win_versions", WIN_VERSIONS),
    ("versions", _new("versions",
                      "FROM cand_versions SEMI JOIN win_versions USING (doc_no, pos)")),
)

PICKS = RECORD_PICKS + VERSION_PICKS

#: The tables of a version and its entities, with the column holding the version's id: on a
#: cluster their candidates are split by that id, and each part is picked on its own
#: (:data:`VERSION_PICKS`, with :data:`PACKAGE_KEYS` of every batch for the winning
#: packages), where the rest is picked in one place. They are also the bulk of a load's rows.
BY_VERSION: dict[str, str] = {"versions": "id", "rounds": "version_id",
                              "themes": "version_id", "questions": "version_id",
                              "steps": "version_id"}
#: What :data:`PACKAGE_WINNERS` reads of ``cand_packages``.
PACKAGE_KEYS = "SELECT id, file, doc_no FROM cand_packages"


def _direct(table: str) -> str:
    """The rows of an entity table: the entity's place is its winning version's (one row of
    win_versions per doc_no and pos), its pointer the version's, then its list (named as
    the table) and its place there."""
    cols = _cols(table).replace('"pointer"', f"pointer || '/{table}/' || idx AS pointer")
    return f"SELECT {cols} FROM cand_{table} JOIN win_versions USING (doc_no, pos)"


# Entities go straight from their candidates into their tables: the largest tables, not
# worth a copy in a temp table first.
DIRECT: dict[str, str] = {t: _direct(t) for t in ("rounds", "themes", "questions", "steps")}


def select_new(table: str) -> str:
    """The SELECT of the new rows of ``table`` (after :data:`PICKS`), in its column order."""
    return DIRECT.get(table, f"SELECT {_cols(table)} FROM new_{table}")


# Which existing rows a load replaces, besides the rows of the files it loads.
REPLACES: dict[str, str] = {
    "packages": "id IN (SELECT id FROM new_packages)",
    "versions": "id IN (SELECT id FROM new_versions) "
                "OR package_id IN (SELECT id FROM new_packages)",
    "rounds": "version_id IN (SELECT id FROM new_versions) "
              "OR package_id IN (SELECT id FROM new_packages)",
    "themes": "version_id IN (SELECT id FROM new_versions) "
              "OR package_id IN (SELECT id FROM new_packages)",
    "questions": "version_id IN (SELECT id FROM new_versions) "
                 "OR package_id IN (SELECT id FROM new_packages)",
    "steps": "version_id IN (SELECT id FROM new_versions) "
             "OR package_id IN (SELECT id FROM new_packages)",
    "categories": "package_id IN (SELECT id FROM new_packages)",
    "users": "id IN (SELECT id FROM new_users)",
    "games": "id IN (SELECT id FROM new_games)",
    "game_history": "game_id IN (SELECT id FROM new_games) "
                    "OR id IN (SELECT id FROM new_game_history)",
    "banners": "id IN (SELECT id FROM new_banners)",
}

TEMP_TABLES = ("docs", "raw", "win_packages", "win_versions", "win_games",
               "loaded_files", "cand_files", "new_files", "new_findings",
               *(f"cand_{t}" for t in CANDIDATES),
               *(f"new_{t}" for t in REPLACES if t not in DIRECT))
