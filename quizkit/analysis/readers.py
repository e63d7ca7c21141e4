"""DuckDB's readers over export files, with one explicit type for every kind.

Each document is parsed into a struct of the *union* of the top-level fields of all kinds by one
``TRY_CAST(json AS DOCUMENT)``. The text reaches the cast in one of two ways:

* A plain (not compressed) file holding one JSON document or one top-level array of them, the
  common case, is read whole with ``read_blob`` (:func:`whole_files_sql`), no JSON splitting,
  and cast in the same statement (an array to ``DOCUMENT[]``), so each document is parsed once
  and its text is never stored. The statement must run with ``preserve_insertion_order =
  false``: with it on, DuckDB 2.0 keeps each file's typed rows apart until the end of the
  statement (about 20x slower, gigabytes of memory), and runs the scans of a union one after
  the other. A file whose text is not one JSON value (a malformed file, several concatenated
  documents, a BOM, invalid UTF-8) gives no row there and is read the other way.
* Everything else (JSON Lines, ``.gz``, the files above) goes through ``read_json_objects``
  (:func:`objects_sql`), which splits the files into documents (JSON text, one row per
  document, array element or line) into a temp table, typed by a second statement; a file it
  cannot parse fails the statement, which is how bad files are found.

(Giving ``read_json`` the same nested ``columns=`` instead is 10-20x slower on a corpus of
many small files: DuckDB 2.0 maps every listed column and struct field again for every file.)

Fields a kind does not have come back NULL. The kind comes from column ``shape`` (which
recognised fields a document has), by :func:`assign_kinds`. Only the fields the tables need
are listed; the rest are skipped. A value of the wrong type becomes NULL (validation reports
it) instead of failing the load.
"""

from __future__ import annotations

import duckdb

from quizkit.analysis.connect import run
from quizkit.model.entities import TOP_FIELDS, VERSION_ENTITIES, VERSION_HEAD
from quizkit.model.kinds import (
    SHAPE_TYPE,
    detect_kind,
    kind_of_fields,
    present_in_shape,
    shape_sql,
)

S = "VARCHAR"
N = "BIGINT"
D = "DOUBLE"
B = "BOOLEAN"


def struct(**fields: str) -> str:
    return "STRUCT(" + ", ".join(f'"{k}" {v}' for k, v in fields.items()) + ")"


BANNER_PAYLOAD = struct(type=S, value=S, color=S)
MEDIA = struct(type=S, src=S)
BACKGROUND = struct(type=S, src=S, duration=D)
STEP = struct(id=S, type=S, position=N, duration=D, questionId=S,
              payload=struct(media=MEDIA, backgroundMedia=BACKGROUND, text=S, caption=S,
                             variants="VARCHAR[]"))
ROUND = struct(id=S, name=S, type=S, position=N)
THEME = struct(id=S, name=S, description=S, position=N, roundId=S)
QUESTION = struct(id=S, type=S, position=N, price=N, source=S, themeId=S)
VALIDATION = struct(results=struct(level=S) + "[]", timestamp=D)
#: The type of each field of a version the tables read, in the model's order
#: (quizkit.model.entities.VERSION_HEAD; ``changes`` is not read).
_VERSION_TYPES = dict(id=S, packageId=S, createdAt=S, updatedAt=S, deletedAt=S, published=B,
                      validation=VALIDATION)
VERSION_FIELDS = {f: _VERSION_TYPES[f] for f in VERSION_HEAD if f in _VERSION_TYPES}
#: The type of an item of each entity collection of a version.
_ENTITY_TYPES = {"rounds": ROUND, "themes": THEME, "questions": QUESTION, "steps": STEP}
ENTITY_ARRAYS = {e.key: _ENTITY_TYPES[e.key] + "[]" for e in VERSION_ENTITIES}
VERSION = struct(**VERSION_FIELDS, **ENTITY_ARRAYS)
USER = struct(id=S, username=S, realname=S, email=S, role=S, verified=B, banned=B,
              banReason=S, banExpiresAt=S, anonymous=B, reputation=D, pkgCount=N,
              createdAt=S, updatedAt=S, banner=BANNER_PAYLOAD)
META = struct(updatedAt=S, packageId=S, fingerprint=S, starts=N,
              size=struct(text=N, images=N, audio=N, video=N))
CATEGORY = struct(packageId=S, categoryId=S,
                  category=struct(id=S, name=S, i18n=struct(name=S), createdAt=S, emoji=S,
                                  color=S))
SETTINGS = struct(slots=N, prePlay=B, teamMode=B, language=S, pkgsLanguages="JSON")
HISTORY = struct(id=S, gameId=S, createdAt=S, duration=D, dumpArchiveFileKey=S)
PKG = struct(id=S, name=S, type=S, difficulty=S, userId=S)
# Only presence matters: a struct of a field no document has is NULL when the key is missing
# and all-NULL when it is there, and it costs no copy of the (large) id maps.
PRESENT = struct(__quizkit_present=B)

#: The type of each top-level field the tables read, whatever kind has it (the fields of a
#: version, for the kinds that are one, and its entity arrays, are the version's above).
TYPES: dict[str, str] = {
    **VERSION_FIELDS, **ENTITY_ARRAYS, "changes": PRESENT,
    "name": S, "description": S, "type": S, "difficulty": S, "rating": D, "explicit": B,
    "verified": B, "userId": S,
    "versions": VERSION + "[]", "user": USER, "meta": META, "categories": CATEGORY + "[]",
    "version": struct(**VERSION_FIELDS), "idMaps": PRESENT,
    "settings": SETTINGS, "visibility": S, "versionId": S, "completedAt": S, "stoppedAt": S,
    "history": HISTORY + "[]", "pkg": PKG, "communicationInviteUrl": S,
    "payload": BANNER_PAYLOAD, "slot": S, "current": B, "position": N,
}
#: The columns of a document: the fields of :data:`TYPES` in the model's order (a field no
#: kind has would never be read: tests/test_model_schemas.py keeps TYPES to the model's).
COLUMNS: dict[str, str] = {f: TYPES[f] for f in TOP_FIELDS if f in TYPES}

DOCUMENT = "STRUCT(" + ", ".join(f'"{k}" {v}' for k, v in COLUMNS.items()) + ")"

#: Which recognised top-level fields a document has, not null (:func:`shape_sql` over its
#: JSON): a flag per field, whatever the value's type, where a typed column of
#: ``DOCUMENT`` is NULL for a value of the wrong type; :func:`assign_kinds` reads this, so
#: that ``load`` sees the fields ``validate`` sees. (A cast to a struct of the fields cost as
#: much as the cast to ``DOCUMENT``; ``json_type`` over a list of paths parses once.)

# Temp table raw: one row per document, its top-level fields as columns, its kind, and which
# of its records win (set by quizkit.analysis.transform).
# The document's place in its file: ``record`` (its line, in a JSON Lines file) and ``base``
# (its JSON Pointer there), which transform extends to each record's ``pointer``.
RAW_DDL = ("CREATE OR REPLACE TEMP TABLE raw (file VARCHAR, container VARCHAR, doc_no BIGINT, "
           "record BIGINT, base VARCHAR, "
           + ", ".join(f'"{k}" {v}' for k, v in COLUMNS.items())
           + f", shape {SHAPE_TYPE}, kind VARCHAR, version_ids VARCHAR[], picked BOOLEAN, "
           "version_picks VARCHAR)")

FORMATS = {"json": "unstructured", "json-array": "array", "jsonl": "newline_delimited"}


def objects_sql(container: str, param: str, max_object: int) -> str:
    """``read_json_objects`` over the files in list parameter ``param``: one row per document.

    ``max_object`` bounds a document's size in bytes; keep it near the largest file, since
    DuckDB's cost per file grows with it. A line of a JSON Lines file that does not parse comes
    back as NULL (``ignore_errors``); for the other formats DuckDB cannot skip a parse error,
    and the whole read fails.
    """
    ignore = ", ignore_errors=true" if container == "jsonl" else ""
    return (f"read_json_objects(${param}, format='{FORMATS[container]}', filename=true, "
            f"maximum_object_size={int(max_object)}{ignore})")


def whole_files_sql(param: str) -> str:
    """Each file in list parameter ``param`` as one JSON value: columns ``filename``, ``json``.

    ``json`` is NULL when the content is not exactly one JSON value (or not UTF-8); nothing is
    split or skipped here, and no error is raised for a file's content.
    """
    return (f"(SELECT filename, TRY_CAST(try(decode(content)) AS JSON) AS json "
            f"FROM read_blob(${param}))")


def assign_kinds(con: duckdb.DuckDBPyConnection) -> None:
    """Set ``raw.kind`` of every document from its ``shape``, by quizkit.model.kinds.kind_of_fields.

    The rule is the one ``validate`` uses, run in Python once per distinct shape (a dump has
    a few dozen), so ``load`` and ``validate`` cannot disagree (tests/test_model_kinds.py).
    """
    patterns = run(con, "SELECT DISTINCT container = 'json-array' AS element, shape FROM raw")
    if not patterns:
        return
    kinds = [kind_of_fields(present_in_shape(shape), element) for element, shape in patterns]
    run(con, f"""
        UPDATE raw SET kind = m.kind
        FROM (SELECT unnest($elements) AS element, unnest($shapes::{SHAPE_TYPE}[]) AS shape,
                     unnest($kinds::VARCHAR[]) AS kind) m
        WHERE m.kind IS NOT NULL AND (raw.container = 'json-array') = m.element
          AND raw.shape IS NOT DISTINCT FROM m.shape
    """, {"elements": [e for e, _ in patterns], "shapes": [s for _, s in patterns],
          "kinds": kinds})


#: The kind of a file holding an empty array, which gives no row to type (also of a JSON
#: Lines file whose every line is an empty array).
EMPTY_ARRAY_KIND = detect_kind([])

def documents_sql(union: str) -> str:
    """The rows of ``union`` (rows of file, json, container: a file's documents, lines or array
    elements in order) as the rows of temp table ``docs``, one per row, each JSON text as it
    is: nothing is parsed here but the lines that hold an array.

    Columns besides those of ``union``: ``line_n``, the row's place in ``union`` (a JSON Lines
    file's line among its non-blank ones, from its file's first row); ``arr``, whether the row
    is a line of a JSON Lines file holding an array (a version list, as ``GET
    /pkgs/{pkgId}/versions`` returns it), told by its first byte that is not blank; ``n``, the
    place of the row's first document among all documents, a line holding an array counting
    one document per element (an empty array one, so that the lines are all numbered); and
    ``upto``, the bytes of text up to the row's end, by which the documents are typed in
    slices (:func:`slice_sql`).

    The numbers follow the order of the rows, which DuckDB keeps here: the windows run over
    the whole frame up to the row, and such windows stream, on one thread, in the order of
    the scan (the reader only splits text, which is cheap).
    """
    # A window is computed before the other expressions of its own SELECT: ``arr`` and the
    # elements of each array line are one level down.
    return f"""
    SELECT file, container, json, arr,
           row_number() OVER () AS line_n,
           row_number() OVER () + sum(extra) OVER (ROWS UNBOUNDED PRECEDING) - extra AS n,
           sum(coalesce(strlen(json), 0)) OVER (ROWS UNBOUNDED PRECEDING) AS upto
    FROM (SELECT *, CASE WHEN arr THEN greatest(json_array_length(json)::BIGINT - 1, 0)
                         ELSE 0 END AS extra
          FROM (SELECT file, json, container,
                       coalesce(container = 'jsonl'
                                AND regexp_matches(json::VARCHAR, '^[ \\t\\n\\r]*\\['), false)
                           AS arr
                FROM ({union})))
    """


def slice_sql(slice_no: int, slice_bytes: int, arrays: bool) -> str:
    """The rows of ``docs`` (:func:`documents_sql`) that end in the ``slice_no``-th
    ``slice_bytes`` of its text and hold one document each, or with ``arrays`` the elements of
    the lines of a JSON Lines file that hold an array (``element``, 1-based; an empty array
    gives none): the input of :func:`document_rows_sql`."""
    lo, hi = int(slice_no) * int(slice_bytes), (int(slice_no) + 1) * int(slice_bytes)
    # upto is 0 where the first rows hold no text (lines that do not parse): slice 0.
    where = f"{'' if arrays else 'NOT '}arr AND upto <= {hi}" + (f" AND upto > {lo}" if lo else "")
    if not arrays:
        return ("SELECT file, container, n, line_n, NULL::BIGINT AS element, json FROM docs "
                f"WHERE {where}")
    return f"""SELECT file, 'json-array' AS container, n, line_n, element, json
               FROM (SELECT file, n, line_n, unnest(json::JSON[]) AS json,
                            generate_subscripts(json::JSON[], 1) AS element
                     FROM docs WHERE {where})"""


def document_rows_sql(slices: list[str]) -> str:
    """The documents of ``slices`` (rows of :func:`slice_sql`) as rows of ``raw``.

    Each document's ``record`` is the number of its line among the file's non-blank lines
    (which :func:`quizkit.analysis.load_read` turns into the line's number where blank lines
    come before it), its ``base`` its JSON Pointer in the file's value, or its line's (``/3``
    for an array's fourth element, else empty). The elements of a line holding an array are
    typed as elements of a top-level array (container ``json-array``), so that ``load`` tells
    the line's kind as ``validate`` does. ``$first`` is the number of the first document of
    ``docs``; relation ``files`` holds the ``line_n`` of the first row of each file
    (``first_n``), and only the documents of the files it holds are typed. The cast is
    planned once, however many slices there are (planning it takes milliseconds); DuckDB runs
    it in the scan of each slice.
    """
    return f"""
    SELECT d.file, d.container, $first - 2 + d.n + coalesce(d.element, 1) AS doc_no,
           CASE WHEN d.container = 'jsonl' OR d.element IS NOT NULL
                THEN d.line_n - f.first_n + 1 END AS record,
           CASE WHEN d.element IS NOT NULL THEN '/' || (d.element - 1)
                WHEN d.container = 'json-array' THEN '/' || (d.line_n - f.first_n)
                ELSE '' END AS base,
           unnest(TRY_CAST(d.json AS {DOCUMENT})), {shape_sql("d.json")} AS shape
    FROM ({" UNION ALL ".join(slices)}) d JOIN files f USING (file)
    """


# Columns of raw computed from the typed fields by the statements that read documents: the
# kind, and the ids of a package's versions (so that the statements that need only those do
# not scan the versions with all their entities: DuckDB reads a list of structs whole).
DERIVED_SQL = ("NULL::VARCHAR AS kind, "  # set by assign_kinds, once every document is read
               "list_transform(versions, lambda v: v.id) AS version_ids")
