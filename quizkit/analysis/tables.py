"""The analysis tables: one definition that gives the DDL and ``docs/tables.md``.

Each table lists its columns with a DuckDB type and a one-line meaning. ``file`` is the absolute
path of the export a row came from (a later load of the same file replaces its rows), ``record``
and ``pointer`` where in it (:data:`PLACE`).
Timestamps are ``TIMESTAMP`` in UTC (an offset in the export is applied); a value that is not a
date-time is ``NULL`` (the findings table says why). Counts, sizes, positions and prices are
``BIGINT`` (a fractional value in the export is rounded); ratings and durations ``DOUBLE``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizkit.model.entities import QUESTIONS, ROUNDS, STEPS, THEMES, Entity

SCHEMA_VERSION = "2"


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    doc: str


@dataclass(frozen=True)
class Table:
    name: str
    doc: str
    key: tuple[str, ...]
    columns: tuple[Column, ...]

    def ddl(self) -> str:
        cols = ",\n  ".join(f'"{c.name}" {c.type}' for c in self.columns)
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" (\n  {cols}\n)'

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


def _c(name: str, type_: str, doc: str) -> Column:
    return Column(name, type_, doc)


FILE = _c("file", "VARCHAR", "absolute path of the export the row was loaded from")
#: Where in its file a row's record is: with ``file``, what places a finding about the row.
RECORD = _c("record", "BIGINT", "1-based line of the record's document in a JSON Lines file, "
                                "else NULL")
POINTER = _c("pointer", "VARCHAR", "JSON Pointer of the record in its file's JSON value (in a "
                                   "JSON Lines file: its line's), e.g. `/versions/0/themes/2`")
#: The columns that say where a row came from, last in every table of records.
PLACE = (FILE, RECORD, POINTER)
#: The times of a record that can be deleted (packages, versions).
LIFETIME = (
    _c("created_at", "TIMESTAMP", "createdAt"),
    _c("updated_at", "TIMESTAMP", "updatedAt"),
    _c("deleted_at", "TIMESTAMP", "deletedAt (NULL unless deleted)"),
    _c("deleted", "BOOLEAN", "deletedAt is set"),
)


def _snake(name: str) -> str:
    """``roundId`` → ``round_id``: a field of the export as a column name."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _entity_table(entity: Entity, doc: str, *own: Column) -> Table:
    """The table of one entity collection of a version (:mod:`quizkit.model.entities`): the item's
    id, its version and package, its reference to its parent, its own columns, the file."""
    parent = (_c(_snake(entity.parent_field), "VARCHAR", f"`{entity.parent_field}`"),) \
        if entity.parent_field else ()
    return Table(entity.key, doc, ("id",), (
        _c("id", "VARCHAR", f"{entity.name} id"),
        _c("version_id", "VARCHAR", "the enclosing version's id"),
        _c("package_id", "VARCHAR", "the enclosing version's package id"),
        *parent, *own, *PLACE))

TABLES: tuple[Table, ...] = (
    Table("files", "One row per loaded export file.", ("file",), (
        _c("file", "VARCHAR", "absolute path of the file"),
        _c("format", "VARCHAR", "`json` (one document), `json-array` (a top-level array, one "
                                "document per element) or `jsonl` (one document per line)"),
        _c("compressed", "BOOLEAN", "the file is gzip-compressed (`.gz`)"),
        _c("bytes", "BIGINT", "size of the file on disk"),
        _c("documents", "BIGINT", "documents in the file, as `quizkit validate` counts them: "
                                  "one in a JSON file (an array too), one per non-blank line "
                                  "of a JSON Lines file"),
        _c("kind", "VARCHAR", "document kind(s) found, comma-separated; `version-list` for an "
                              "array of versions"),
        _c("unknown_documents", "BIGINT", "documents whose kind (or the kind of an element of "
                                          "their array) could not be told, or that could not "
                                          "be parsed (lines of JSON Lines files)"),
        _c("loaded_at", "TIMESTAMP", "when the file was loaded (UTC)"),
    )),
    Table("packages", "One row per package, from `package-full` documents.", ("id",), (
        _c("id", "VARCHAR", "package id"),
        _c("name", "VARCHAR", "package name"),
        _c("description", "VARCHAR", "package description"),
        _c("type", "VARCHAR", "package type (enum)"),
        _c("difficulty", "VARCHAR", "difficulty (enum)"),
        _c("rating", "DOUBLE", "rating"),
        _c("explicit", "BOOLEAN", "explicit content flag"),
        _c("verified", "BOOLEAN", "verified flag"),
        *LIFETIME,
        _c("user_id", "VARCHAR", "author's user id (`userId`)"),
        _c("author_username", "VARCHAR", "author's username (`user.username`)"),
        _c("starts", "BIGINT", "`meta.starts`"),
        _c("fingerprint", "VARCHAR", "`meta.fingerprint`"),
        _c("meta_updated_at", "TIMESTAMP", "`meta.updatedAt`"),
        _c("size_text", "BIGINT", "`meta.size.text`"),
        _c("size_images", "BIGINT", "`meta.size.images`"),
        _c("size_audio", "BIGINT", "`meta.size.audio`"),
        _c("size_video", "BIGINT", "`meta.size.video`"),
        _c("size_total", "BIGINT", "sum of the four sizes (a missing one counts 0; NULL when "
                                   "`meta.size` is missing)"),
        _c("n_versions", "BIGINT", "versions in the document"),
        _c("n_categories", "BIGINT", "categories in the document"),
        *PLACE,
    )),
    Table("versions", "One row per version, from `package-full`, `version-list`, `version` and "
                      "`version-created` documents.", ("id",), (
        _c("id", "VARCHAR", "version id"),
        _c("package_id", "VARCHAR", "the enclosing package's id in a `package-full` "
                                    "document, else the version's `packageId`"),
        _c("kind", "VARCHAR", "kind of the document the row came from"),
        *LIFETIME,
        _c("published", "BOOLEAN", "published"),
        _c("validation_results", "BIGINT", "entries in `validation.results`"),
        _c("validation_errors", "BIGINT", "entries in `validation.results` with level `error`"),
        _c("validation_timestamp", "DOUBLE", "`validation.timestamp`"),
        _c("n_rounds", "BIGINT", "rounds in the version (NULL in `version-created`)"),
        _c("n_themes", "BIGINT", "themes in the version (NULL in `version-created`)"),
        _c("n_questions", "BIGINT", "questions in the version (NULL in `version-created`)"),
        _c("n_steps", "BIGINT", "steps in the version (NULL in `version-created`)"),
        *PLACE,
    )),
    _entity_table(ROUNDS, "One row per round of a version.",
                  _c("name", "VARCHAR", "name"),
                  _c("type", "VARCHAR", "round type (enum)"),
                  _c("position", "BIGINT", "position")),
    _entity_table(THEMES, "One row per theme of a version.",
                  _c("name", "VARCHAR", "name"),
                  _c("description", "VARCHAR", "description"),
                  _c("position", "BIGINT", "position")),
    _entity_table(QUESTIONS, "One row per question of a version.",
                  _c("type", "VARCHAR", "question type (enum)"),
                  _c("position", "BIGINT", "position"),
                  _c("price", "BIGINT", "price"),
                  _c("source", "VARCHAR", "the question's `source` field (not the file)")),
    _entity_table(
        STEPS, "One row per step of a version, with its payload flattened.",
        _c("type", "VARCHAR", "step type (enum)"),
        _c("position", "BIGINT", "position"),
        _c("duration", "DOUBLE", "duration"),
        _c("has_media", "BOOLEAN", "`payload.media` is present"),
        _c("media_type", "VARCHAR", "`payload.media.type` (enum)"),
        _c("media_src", "VARCHAR", "`payload.media.src`"),
        _c("has_background", "BOOLEAN", "`payload.backgroundMedia` is present"),
        _c("background_type", "VARCHAR", "`payload.backgroundMedia.type` (enum)"),
        _c("background_duration", "DOUBLE", "`payload.backgroundMedia.duration`"),
        _c("has_text", "BOOLEAN", "`payload.text` is a non-empty string"),
        _c("text_length", "BIGINT", "characters in `payload.text` (NULL when absent)"),
        _c("has_caption", "BOOLEAN", "`payload.caption` is a non-empty string"),
        _c("n_variants", "BIGINT", "entries in `payload.variants` (NULL when absent)")),
    Table("categories", "One row per (package, category), from `package-full` documents.",
          ("package_id", "category_id"), (
        _c("package_id", "VARCHAR", "the enclosing package's id"),
        _c("category_id", "VARCHAR", "`categoryId`"),
        _c("name", "VARCHAR", "`category.name`"),
        _c("i18n_name", "VARCHAR", "`category.i18n.name`"),
        _c("emoji", "VARCHAR", "`category.emoji`"),
        _c("color", "VARCHAR", "`category.color`"),
        _c("created_at", "TIMESTAMP", "`category.createdAt`"),
        *PLACE,
    )),
    Table("users", "One row per user: profiles (`user-self`) and package authors "
                   "(`package-full` `user`). A profile wins over an author record.", ("id",), (
        _c("id", "VARCHAR", "user id"),
        _c("kind", "VARCHAR", "`user-self` or `package-full` (author record)"),
        _c("username", "VARCHAR", "username"),
        _c("realname", "VARCHAR", "realname"),
        _c("email", "VARCHAR", "email (author records only)"),
        _c("role", "VARCHAR", "role (author records only)"),
        _c("verified", "BOOLEAN", "verified"),
        _c("banned", "BOOLEAN", "banned"),
        _c("ban_reason", "VARCHAR", "banReason (author records only)"),
        _c("ban_expires_at", "TIMESTAMP", "banExpiresAt (author records only)"),
        _c("anonymous", "BOOLEAN", "anonymous"),
        _c("reputation", "DOUBLE", "reputation (author records only)"),
        _c("pkg_count", "BIGINT", "pkgCount (profiles only)"),
        _c("created_at", "VARCHAR", "createdAt as written (a plain string in profiles)"),
        _c("updated_at", "TIMESTAMP", "updatedAt (author records only)"),
        _c("language", "VARCHAR", "`settings.language` (profiles only)"),
        _c("pkgs_languages", "VARCHAR", "`settings.pkgsLanguages` as JSON text (profiles only)"),
        _c("banner_type", "VARCHAR", "`banner.type` of the current banner (profiles only)"),
        _c("banner_value", "VARCHAR", "`banner.value` of the current banner (profiles only)"),
        *PLACE,
    )),
    Table("games", "One row per game record.", ("id",), (
        _c("id", "VARCHAR", "game id"),
        _c("name", "VARCHAR", "name"),
        _c("user_id", "VARCHAR", "creator (`userId`)"),
        _c("visibility", "VARCHAR", "visibility (enum)"),
        _c("package_id", "VARCHAR", "`packageId`"),
        _c("version_id", "VARCHAR", "`versionId`"),
        _c("created_at", "TIMESTAMP", "createdAt"),
        _c("completed_at", "TIMESTAMP", "completedAt (NULL unless completed)"),
        _c("stopped_at", "TIMESTAMP", "stoppedAt (NULL unless stopped)"),
        _c("status", "VARCHAR", "`completed` when completedAt is set, else `stopped` when "
                                "stoppedAt is set, else `open`"),
        _c("slots", "BIGINT", "`settings.slots`"),
        _c("pre_play", "BOOLEAN", "`settings.prePlay`"),
        _c("team_mode", "BOOLEAN", "`settings.teamMode`"),
        _c("pkg_name", "VARCHAR", "`pkg.name`"),
        _c("pkg_type", "VARCHAR", "`pkg.type`"),
        _c("pkg_difficulty", "VARCHAR", "`pkg.difficulty`"),
        _c("pkg_user_id", "VARCHAR", "`pkg.userId` (the package's author)"),
        _c("n_history", "BIGINT", "entries in `history`"),
        _c("duration", "DOUBLE", "sum of the durations in `history` (NULL without history)"),
        *PLACE,
    )),
    Table("game_history", "One row per entry of a game's `history`.", ("id",), (
        _c("id", "VARCHAR", "history entry id"),
        _c("game_id", "VARCHAR", "id of the game record the entry is in"),
        _c("record_game_id", "VARCHAR", "the entry's own `gameId` field"),
        _c("created_at", "TIMESTAMP", "createdAt"),
        _c("duration", "DOUBLE", "duration"),
        _c("dump_archive_file_key", "VARCHAR", "dumpArchiveFileKey"),
        *PLACE,
    )),
    Table("banners", "One row per banner record (`banner`) or banner request "
                     "(`banner-create`, no id).", ("id",), (
        _c("id", "VARCHAR", "banner id (NULL for `banner-create`)"),
        _c("kind", "VARCHAR", "`banner` or `banner-create`"),
        _c("user_id", "VARCHAR", "userId"),
        _c("slot", "VARCHAR", "slot (enum)"),
        _c("position", "BIGINT", "position"),
        _c("current", "BOOLEAN", "current"),
        _c("payload_type", "VARCHAR", "`payload.type` (enum)"),
        _c("payload_value", "VARCHAR", "`payload.value`"),
        _c("payload_color", "VARCHAR", "`payload.color`"),
        _c("created_at", "TIMESTAMP", "createdAt"),
        _c("updated_at", "TIMESTAMP", "updatedAt"),
        *PLACE,
    )),
    Table("findings", "The validation findings of the loaded files (`quizkit validate`) and "
                      "the findings of the configuration's own checks over the tables "
                      "(docs/checks.md); empty when loaded with `--no-findings`.", (), (
        _c("file", "VARCHAR", "absolute path of the file"),
        _c("record", "BIGINT", "1-based line of the record in a JSON Lines file, else NULL"),
        _c("pointer", "VARCHAR", "JSON Pointer to the value"),
        _c("line", "BIGINT", "1-based line of the value in the file"),
        _c("col", "BIGINT", "1-based column of the value in the file"),
        _c("rule", "VARCHAR", "rule name (e.g. `unknown-field`)"),
        _c("code", "VARCHAR", "rule code (e.g. `P002`)"),
        _c("severity", "VARCHAR", "`error`, `warning` or `info`"),
        _c("message", "VARCHAR", "message"),
    )),
    Table("quizkit_meta", "Facts about the database itself.", ("key",), (
        _c("key", "VARCHAR", "`schema_version`"),
        _c("value", "VARCHAR", "its value"),
    )),
)

BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}
DATA_TABLES: tuple[str, ...] = tuple(t.name for t in TABLES if t.name != "quizkit_meta")


def render_markdown() -> str:
    """``docs/tables.md``: every table with its columns, types and meanings."""
    out = [
        "# Analysis tables",
        "",
        "`quizkit load PATH... --db FILE` builds these DuckDB tables from exports of any kind; "
        "`quizkit summary` and `quizkit query` read them (from a `--db` file, or loaded in "
        "memory straight from files). This page is generated from "
        "`quizkit/analysis/tables.py` and checked against a real database by the tests.",
        "",
        "Conventions: `file` is the absolute path of the export a row came from, `record` "
        "(the line, in a JSON Lines file) and `pointer` (a JSON Pointer) where in it: reading "
        "the file (or that line) and following the pointer gives the record. Timestamps "
        "are `TIMESTAMP` in UTC; a value that is not a date-time is NULL. Counts, sizes, "
        "positions and prices are `BIGINT` (a fractional value is rounded); ratings and "
        "durations `DOUBLE`. A value of the wrong type is NULL; the `findings` table says why.",
        "",
        "Loading again replaces rows: rows loaded earlier from the same file, rows with the same "
        "key, a `package-full` document's versions, entities and categories, and a game's "
        "history. Within one load, when several documents hold the same record, the richer "
        "document wins (`package-full`, then `version`/`version-list`, then `version-created`; "
        "a profile over an author record), then the file whose path sorts last; entities follow "
        "their version.",
        "",
    ]
    for t in TABLES:
        out += [f"## `{t.name}`", "", t.doc, ""]
        if t.key:
            out += ["Key: " + ", ".join(f"`{k}`" for k in t.key) + ".", ""]
        out += ["| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c.name}` | {c.type} | {c.doc} |" for c in t.columns]
        out.append("")
    out += [
        "## Definitions used by `quizkit summary`",
        "",
        "- **Percentiles** (p50, p90, p99) are nearest-rank (`quantile_disc`): the p-th "
        "percentile of n values is the value at 1-based rank ceil(p·n) in ascending order.",
        "- **Current version** of a package: among its versions, one that is not deleted, "
        "preferring a published one, then the latest `created_at`, then the greatest id. Media "
        "counts from steps (`summary sizes`) count the steps of current versions only, next "
        "to `meta.size` of the package.",
        "- **Game status**: `completed` when `completedAt` is set, else `stopped` when "
        "`stoppedAt` is set, else `open`. A game's duration is the sum of its history "
        "durations.",
        "- **`--top N`** limits every ranked list (largest packages, most started, groups, "
        "games per package and version); `--top 0` lists all.",
        "- **Groups**: `author` groups by `user_id` (showing the username), `category` by "
        "category (a package counts once in each of its categories; `(none)` for packages "
        "without one).",
        "- **Size histogram** (`sizes`, section `size_histogram`): 20 bins of equal width from "
        "the smallest to the largest `size_total`, the last one closed. **Media per package** "
        "(`media_per_package`): how many packages have n image, audio or video steps in their "
        "current version.",
        "- **Games over time** (`starts`, section `games_over_time`): games by the day, ISO "
        "week (from Monday) or month of their `createdAt` (`--every day|week|month`, default "
        "month), every period from the first to the last, empty ones with 0.",
        "",
        "## Summary output",
        "",
        "- `--format table` and `markdown` are for people: byte counts in decimal units "
        "(`1.5 GB`, 1 kB = 1000 B), counts with thousands separators (`12,345`), fractions "
        "rounded to two decimals. `csv` and `json` keep the exact numbers.",
        "- `--format html` writes one self-contained page: each section's chart (rendered to "
        "inline SVG when the page is written; no script, nothing fetched when it is opened) "
        "above its table. `-o FILE` writes any format to a file, atomically.",
        "- `quizkit summary all` gives every section of `overview`, `sizes` and `starts` in "
        "one output, in every format; its sections are named `summary.section` "
        "(`--section sizes.largest`, JSON keys). `quizkit summary charts --out DIR` writes "
        "each chart as `summary.section.svg` and `.png` for slides and reports.",
        "",
        "```sh",
        "quizkit load dump/ --db dump.duckdb",
        "quizkit summary all --db dump.duckdb --format html -o summary.html",
        "quizkit summary starts --db dump.duckdb --every week --section games_over_time",
        "quizkit summary charts --db dump.duckdb --out charts/",
        "```",
        "",
        "![A summary page: package sizes](img/summary-sizes.png)",
        "",
    ]
    return "\n".join(out)
