"""SQL that turns the staged documents (temp table ``raw``) into the rows of each table.

The statements of :data:`STEPS` first mark in ``raw`` which documents and versions win
(``QUALIFY``), then create a temp table ``new_<table>`` with exactly the columns of each
``<table>``; the entity tables (:data:`DIRECT`) are selected straight into their tables.
Choosing among documents that hold the same record happens here, so that the statements in
:mod:`quizkit.analysis.load` that touch the database only delete and insert.
"""

from __future__ import annotations


def ts(expr: str) -> str:
    """A date-time string -> TIMESTAMP (UTC); anything else -> NULL."""
    return f"TRY_CAST({expr} AS TIMESTAMP)"


# Which documents win is marked in raw itself, by two columns updated in place (an UPDATE of
# scalar columns costs little; copying the winners out, entity lists and all, cost 0.3 s):
#   picked         the document's record wins: the package of a package-full document, the
#                  version of a version, version-list element or version-created document;
#   version_picks  in a picked package-full document, '1' or '0' for each element of
#                  versions: whether that version wins for its id.

# The package-full documents that win for their id: the later file, the later document.
PICK_PACKAGES = """
UPDATE raw SET picked = true
WHERE doc_no IN (SELECT doc_no FROM raw WHERE kind = 'package-full'
                 QUALIFY id IS NULL
                      OR row_number() OVER (PARTITION BY id ORDER BY file DESC, doc_no DESC) = 1)
"""

PACKAGES = "(SELECT * FROM raw WHERE kind = 'package-full' AND picked)"

NEW_PACKAGES = f"""
CREATE OR REPLACE TEMP TABLE new_packages AS
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
       len(version_ids) AS n_versions, len(categories) AS n_categories, file
FROM {PACKAGES}
"""

# Which version wins for each id: package-full first, then version / version-list, then
# version-created; then the later file and document. Decided on a narrow table of keys (sorting
# rows that carry entity lists would move them all), then the winners are fetched.
VERSION_KEYS = f"""
CREATE OR REPLACE TEMP TABLE version_keys AS
SELECT * FROM (
    SELECT unnest(version_ids) AS id, generate_subscripts(version_ids, 1) AS pos, 1 AS rank,
           file, doc_no
    FROM {PACKAGES} WHERE version_ids IS NOT NULL
    UNION ALL
    SELECT id, NULL, 2, file, doc_no FROM raw WHERE kind IN ('version', 'version-list')
    UNION ALL
    SELECT "version".id, NULL, 3, file, doc_no FROM raw WHERE kind = 'version-created'
)
QUALIFY id IS NULL
     OR row_number() OVER (PARTITION BY id ORDER BY rank, file DESC, doc_no DESC) = 1
"""

# The winners among versions of version, version-list and version-created documents.
PICK_VERSION_DOCS = """
UPDATE raw SET picked = true
WHERE kind IN ('version', 'version-list', 'version-created')
  AND doc_no IN (SELECT doc_no FROM version_keys WHERE rank IN (2, 3))
"""

# The winners among the versions of picked package-full documents, by position.
PICK_PACKAGE_VERSIONS = f"""
UPDATE raw SET version_picks = p.picks
FROM (SELECT k.doc_no,
             string_agg(CASE WHEN w.doc_no IS NULL THEN '0' ELSE '1' END, '' ORDER BY k.pos)
                 AS picks
      FROM (SELECT doc_no, generate_subscripts(version_ids, 1) AS pos
            FROM {PACKAGES} WHERE version_ids IS NOT NULL) k
      LEFT JOIN (SELECT doc_no, pos FROM version_keys WHERE rank = 1) w USING (doc_no, pos)
      GROUP BY k.doc_no) p
WHERE raw.doc_no = p.doc_no
"""

# The winning versions with their entity lists, read from raw by each statement that needs
# them. (Filtered by a join after the unnest instead, each would copy every version whole.)
VERSIONS = """(
SELECT v.id, pkg_id AS package_id, 'package-full' AS kind, v.createdAt, v.updatedAt,
       v.deletedAt, v.published, v.validation, v.rounds, v.themes, v.questions, v.steps, file
FROM (SELECT id AS pkg_id, file, version_picks, unnest(versions) AS v,
             generate_subscripts(versions, 1) AS pos
      FROM raw WHERE version_picks IS NOT NULL)
WHERE substr(version_picks, pos, 1) = '1'
UNION ALL BY NAME
SELECT id, packageId AS package_id, kind, createdAt, updatedAt, deletedAt, published,
       validation, rounds, themes, questions, steps, file
FROM raw WHERE kind IN ('version', 'version-list') AND picked
UNION ALL BY NAME
SELECT "version".id, "version".packageId AS package_id, kind, "version".createdAt,
       "version".updatedAt, "version".deletedAt, "version".published, "version".validation,
       file
FROM raw WHERE kind = 'version-created' AND picked
)"""

NEW_VERSIONS = f"""
CREATE OR REPLACE TEMP TABLE new_versions AS
SELECT id, package_id, kind, {ts('createdAt')} AS created_at, {ts('updatedAt')} AS updated_at,
       {ts('deletedAt')} AS deleted_at, deletedAt IS NOT NULL AS deleted, published,
       len(validation.results) AS validation_results,
       len(list_filter(validation.results, lambda r: r.level = 'error')) AS validation_errors,
       validation.timestamp AS validation_timestamp,
       len(rounds) AS n_rounds, len(themes) AS n_themes, len(questions) AS n_questions,
       len(steps) AS n_steps, file
FROM {VERSIONS}
"""

SELECT_ROUNDS = f"""
SELECT e.id, version_id, package_id, e.name, e.type, e.position, file
FROM (SELECT id AS version_id, package_id, file, unnest(rounds) AS e
      FROM {VERSIONS} WHERE rounds IS NOT NULL)
"""

SELECT_THEMES = f"""
SELECT e.id, version_id, package_id, e.roundId AS round_id, e.name, e.description,
       e.position, file
FROM (SELECT id AS version_id, package_id, file, unnest(themes) AS e
      FROM {VERSIONS} WHERE themes IS NOT NULL)
"""

SELECT_QUESTIONS = f"""
SELECT e.id, version_id, package_id, e.themeId AS theme_id, e.type, e.position, e.price,
       e.source, file
FROM (SELECT id AS version_id, package_id, file, unnest(questions) AS e
      FROM {VERSIONS} WHERE questions IS NOT NULL)
"""

SELECT_STEPS = f"""
SELECT e.id, version_id, package_id, e.questionId AS question_id, e.type, e.position,
       e.duration,
       e.payload.media IS NOT NULL AS has_media, e.payload.media.type AS media_type,
       e.payload.media.src AS media_src,
       e.payload.backgroundMedia IS NOT NULL AS has_background,
       e.payload.backgroundMedia.type AS background_type,
       e.payload.backgroundMedia.duration AS background_duration,
       coalesce(length(e.payload.text) > 0, false) AS has_text,
       length(e.payload.text) AS text_length,
       coalesce(length(e.payload.caption) > 0, false) AS has_caption,
       len(e.payload.variants) AS n_variants, file
FROM (SELECT id AS version_id, package_id, file, unnest(steps) AS e
      FROM {VERSIONS} WHERE steps IS NOT NULL)
"""

NEW_CATEGORIES = f"""
CREATE OR REPLACE TEMP TABLE new_categories AS
SELECT package_id, c.categoryId AS category_id, c.category.name AS name,
       c.category.i18n.name AS i18n_name, c.category.emoji AS emoji,
       c.category.color AS color, {ts('c.category.createdAt')} AS created_at, file
FROM (SELECT id AS package_id, file, unnest(categories) AS c
      FROM {PACKAGES} WHERE categories IS NOT NULL)
"""

NEW_USERS = f"""
CREATE OR REPLACE TEMP TABLE new_users AS
SELECT u.id, kind, u.username, u.realname, u.email, u.role, u.verified, u.banned,
       u.banReason AS ban_reason, {ts('u.banExpiresAt')} AS ban_expires_at, u.anonymous,
       u.reputation, u.pkgCount AS pkg_count, u.createdAt AS created_at,
       {ts('u.updatedAt')} AS updated_at, language, pkgs_languages,
       u.banner.type AS banner_type, u.banner.value AS banner_value, file
FROM (
    SELECT "user" AS u, 'user-self' AS kind, 1 AS rank, settings.language AS language,
           CAST(settings.pkgsLanguages AS VARCHAR) AS pkgs_languages, file, doc_no
    FROM raw WHERE kind = 'user-self'
    UNION ALL
    SELECT "user", 'package-full', 2, NULL, NULL, file, doc_no
    FROM {PACKAGES} WHERE "user" IS NOT NULL
)
WHERE u IS NOT NULL
QUALIFY u.id IS NULL
     OR row_number() OVER (PARTITION BY u.id ORDER BY rank, {ts('u.updatedAt')} DESC NULLS LAST,
                           file DESC, doc_no DESC) = 1
"""

PICK_GAMES = """
CREATE OR REPLACE TEMP TABLE pick_games AS
SELECT id, name, userId, visibility, packageId, versionId, createdAt, completedAt, stoppedAt,
       settings, pkg, history, file
FROM raw WHERE kind = 'game'
QUALIFY id IS NULL
     OR row_number() OVER (PARTITION BY id ORDER BY file DESC, doc_no DESC) = 1
"""

NEW_GAMES = f"""
CREATE OR REPLACE TEMP TABLE new_games AS
SELECT id, name, userId AS user_id, visibility, packageId AS package_id,
       versionId AS version_id, {ts('createdAt')} AS created_at,
       {ts('completedAt')} AS completed_at, {ts('stoppedAt')} AS stopped_at,
       CASE WHEN completedAt IS NOT NULL THEN 'completed'
            WHEN stoppedAt IS NOT NULL THEN 'stopped' ELSE 'open' END AS status,
       settings.slots AS slots, settings.prePlay AS pre_play, settings.teamMode AS team_mode,
       pkg.name AS pkg_name, pkg.type AS pkg_type, pkg.difficulty AS pkg_difficulty,
       pkg.userId AS pkg_user_id, len(history) AS n_history,
       list_sum(list_transform(history, lambda h: h.duration)) AS duration, file
FROM pick_games
"""

NEW_GAME_HISTORY = f"""
CREATE OR REPLACE TEMP TABLE new_game_history AS
SELECT h.id, game_id, h.gameId AS record_game_id, {ts('h.createdAt')} AS created_at,
       h.duration, h.dumpArchiveFileKey AS dump_archive_file_key, file
FROM (SELECT id AS game_id, file, unnest(history) AS h
      FROM pick_games WHERE history IS NOT NULL)
"""

NEW_BANNERS = f"""
CREATE OR REPLACE TEMP TABLE new_banners AS
SELECT id, kind, userId AS user_id, slot, position, "current",
       payload.type AS payload_type, payload.value AS payload_value,
       payload.color AS payload_color, {ts('createdAt')} AS created_at,
       {ts('updatedAt')} AS updated_at, file
FROM raw WHERE kind IN ('banner', 'banner-create')
QUALIFY id IS NULL
     OR row_number() OVER (PARTITION BY id ORDER BY file DESC, doc_no DESC) = 1
"""


# In order: the picks first, since the new_* tables read them.
STEPS: tuple[tuple[str, str], ...] = (
    ("pick_packages", PICK_PACKAGES),
    ("packages", NEW_PACKAGES),
    ("version_keys", VERSION_KEYS),
    ("pick_version_docs", PICK_VERSION_DOCS),
    ("pick_package_versions", PICK_PACKAGE_VERSIONS),
    ("versions", NEW_VERSIONS),
    ("categories", NEW_CATEGORIES),
    ("users", NEW_USERS),
    ("pick_games", PICK_GAMES),
    ("games", NEW_GAMES),
    ("game_history", NEW_GAME_HISTORY),
    ("banners", NEW_BANNERS),
)


# Entities go straight from raw into their tables inside the transaction: the largest
# tables, not worth a copy in a temp table first. One scan, in order: inserted from
# several threads, a table is written in partly filled row groups that the checkpoint then
# rewrites (0.3 s more for the corpus of docs/performance.md, and a file 25-40% larger).
DIRECT: dict[str, str] = {
    "rounds": SELECT_ROUNDS,
    "themes": SELECT_THEMES,
    "questions": SELECT_QUESTIONS,
    "steps": SELECT_STEPS,
}


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

TEMP_TABLES = ("docs", "raw", "version_keys", "pick_games",
               "loaded_files", "new_files", "new_findings",
               *(f"new_{t}" for t in REPLACES if t not in DIRECT))
