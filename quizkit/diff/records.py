"""What a document holds as records of the analysis tables (docs/tables.md), for ``diff``.

A record nested in another is its own record: a package's body leaves out its versions,
categories and author (each a record of its own), a version's body its rounds, themes,
questions and steps, a game's its history. What is left is compared as JSON values, key
order aside (an entity's ``versionId``, its parent's key, aside too). Each nested record
remembers its parent's key and its place in the parent's array, so a record whose only
change is that place is told apart (``moved``).

When one side holds a record several times (a version in its package and in a version
file), the richer document wins as in ``quizkit load``: ``package-full``, then
``version``/``version-list``, then ``version-created``; a profile over an author record; then
the file whose path sorts last, then the later document.
"""

from __future__ import annotations

from typing import Any

#: The tables a diff compares, in the order reports list them.
TABLES = ("packages", "versions", "rounds", "themes", "questions", "steps", "categories",
          "games", "game_history", "users", "banners")

#: The entity arrays of a version, each a table.
ENTITIES = ("rounds", "themes", "questions", "steps")

#: The field of an entity naming its version: only the full view writes it, and it is the
#: parent's key (a change of it is a move), so it is left out of the entity's body.
PARENT_ID = ("versionId",)

#: Kind of document → rank (lower wins) of the records it holds.
RANK = {"package-full": 1, "user-self": 1, "version": 2, "version-list": 2,
        "version-created": 3, "game": 1, "banner": 1, "banner-create": 1}

#: The measures kept beside each package record (``meta`` of package-full), for the totals.
MEASURES = ("starts", "size_text", "size_images", "size_audio", "size_video")
_SIZE_KEYS = {"size_text": "text", "size_images": "images", "size_audio": "audio",
              "size_video": "video"}


#: One record of one document: (table, key, pointer, body, rank, parent, index, measures).
#: ``parent`` and ``index`` (the parent's key and the place in its array) are ``None`` for a
#: top-level record, ``measures`` (:data:`MEASURES`) for all but a package. A plain tuple:
#: a diff makes one per record of both exports, and a class would cost a fifth of its time.
Record = tuple[str, str, str, Any, int, "str | None", "int | None",
               "tuple[int | None, ...] | None"]


def _without(value: dict, keys: tuple[str, ...]) -> dict:
    return {k: v for k, v in value.items() if k not in keys}


def _key(value: Any) -> str | None:
    """A record's id as text; ``None`` when it has none (a record without an id is not one)."""
    if type(value) is not dict:
        return None
    key = value.get("id")
    kind = type(key)
    if kind is str:
        return key
    if kind is int:  # not a bool: its type is bool
        return str(key)
    return None


def _number(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return round(value)


def _measures(doc: dict) -> tuple[int | None, ...]:
    meta = doc.get("meta") if isinstance(doc.get("meta"), dict) else {}
    size = meta.get("size") if isinstance(meta.get("size"), dict) else {}
    return (_number(meta.get("starts")),
            *(_number(size.get(_SIZE_KEYS[m])) for m in MEASURES[1:]))


def _array(value: Any, name: str) -> list:
    found = value.get(name) if type(value) is dict else None
    return found if type(found) is list else []


def records(kind: str, doc: Any, anonymous: str = "", prefix: str = "") -> list[Record]:
    """The records of one document of ``kind``, their pointers after ``prefix`` (the
    document's place in a file that holds several); ``anonymous`` keys a record that has no
    id of its own (a ``banner-create`` request: its file and pointer). Each entity's
    ``versionId`` is taken out of ``doc`` (read for its records only)."""
    rank = RANK.get(kind, 3)
    out: list[Record] = []
    if kind == "package-full" and isinstance(doc, dict):
        _package(out, doc, prefix, rank)
    elif kind == "version-list" and isinstance(doc, list):
        for i, version in enumerate(doc):
            _version(out, version, f"{prefix}/{i}", rank, None, None)
    elif kind == "version":
        _version(out, doc, prefix, rank, None, None)
    elif kind == "version-created" and isinstance(doc, dict):
        _version(out, doc.get("version"), f"{prefix}/version", rank, None, None)
    elif kind == "game":
        _game(out, doc, prefix, rank)
    elif kind == "user-self" and isinstance(doc, dict):
        key = _key(doc.get("user"))
        if key is not None:
            out.append(("users", key, prefix, doc, rank, None, None, None))
    elif kind == "banner":
        key = _key(doc)
        if key is not None:
            out.append(("banners", key, prefix, doc, rank, None, None, None))
    elif kind == "banner-create" and anonymous:
        out.append(("banners", anonymous, prefix, doc, rank, None, None, None))
    return out


def _package(out: list[Record], doc: dict, pointer: str, rank: int) -> None:
    key = _key(doc)
    if key is None:
        return
    body = _without(doc, ("versions", "categories", "user"))
    out.append(("packages", key, pointer, body, rank, None, None, _measures(doc)))
    for i, version in enumerate(_array(doc, "versions")):
        _version(out, version, f"{pointer}/versions/{i}", rank, key, i)
    for i, category in enumerate(_array(doc, "categories")):
        cat = category.get("categoryId") if isinstance(category, dict) else None
        if isinstance(cat, str):
            out.append(("categories", f"{key}/{cat}", f"{pointer}/categories/{i}", category,
                        rank, key, i, None))
    author = _key(doc.get("user"))
    if author is not None:
        out.append(("users", author, f"{pointer}/user", doc["user"], rank + 1, None, None,
                    None))


def _version(out: list[Record], version: Any, pointer: str, rank: int, parent: str | None,
             index: int | None) -> None:
    key = _key(version)
    if key is None:
        return
    out.append(("versions", key, pointer, _without(version, ENTITIES), rank, parent, index,
                None))
    parent_id = PARENT_ID[0]
    for table in ENTITIES:
        entities = version.get(table)
        if type(entities) is not list:
            continue
        at = f"{pointer}/{table}/"
        for i, entity in enumerate(entities):
            if type(entity) is not dict:
                continue
            entity_key = entity.get("id")
            kind = type(entity_key)
            if kind is int:
                entity_key = str(entity_key)
            elif kind is not str:
                continue
            entity.pop(parent_id, None)  # the document is read for its records only
            out.append((table, entity_key, f"{at}{i}", entity, rank, key, i, None))


def _game(out: list[Record], doc: Any, pointer: str, rank: int) -> None:
    key = _key(doc)
    if key is None:
        return
    out.append(("games", key, pointer, _without(doc, ("history",)), rank, None, None, None))
    for i, entry in enumerate(_array(doc, "history")):
        entry_key = _key(entry)
        if entry_key is not None:
            out.append(("game_history", entry_key, f"{pointer}/history/{i}", entry, rank, key,
                        i, None))


def body_at(doc: Any, table: str, pointer: str) -> Any:
    """The body of the record of ``table`` at ``pointer`` of ``doc`` (as :func:`records`
    gives it), or ``None`` when the document no longer holds it there."""
    value = doc
    for part in pointer.split("/")[1:]:
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    if not isinstance(value, dict):
        return None
    if table == "packages":
        return _without(value, ("versions", "categories", "user"))
    if table == "versions":
        return _without(value, ENTITIES)
    if table == "games":
        return _without(value, ("history",))
    if table in ENTITIES:
        return _without(value, PARENT_ID)
    return value
