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

from collections.abc import Iterator
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Record:
    """One record of one document: its table and key, where it sits, and its own body."""

    table: str
    key: str
    pointer: str
    body: Any
    rank: int
    parent: str | None = None
    index: int | None = None
    measures: tuple[int | None, ...] | None = None


def _without(value: dict, keys: tuple[str, ...]) -> dict:
    return {k: v for k, v in value.items() if k not in keys}


def _key(value: Any) -> str | None:
    """A record's id as text; ``None`` when it has none (a record without an id is not one)."""
    if not isinstance(value, dict):
        return None
    key = value.get("id")
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        return None
    return str(key)


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
    found = value.get(name) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def records(kind: str, doc: Any, anonymous: str = "") -> Iterator[Record]:
    """The records of one document of ``kind``; ``anonymous`` keys a record that has no id
    of its own (a ``banner-create`` request: its file and pointer). Each entity's ``versionId``
    is taken out of ``doc`` (read for its records only)."""
    rank = RANK.get(kind, 3)
    if kind == "package-full" and isinstance(doc, dict):
        yield from _package(doc, rank)
    elif kind == "version-list" and isinstance(doc, list):
        for i, version in enumerate(doc):
            yield from _version(version, f"/{i}", rank, None, None)
    elif kind == "version":
        yield from _version(doc, "", rank, None, None)
    elif kind == "version-created" and isinstance(doc, dict):
        yield from _version(doc.get("version"), "/version", rank, None, None)
    elif kind == "game":
        yield from _game(doc, rank)
    elif kind == "user-self" and isinstance(doc, dict):
        key = _key(doc.get("user"))
        if key is not None:
            yield Record("users", key, "", doc, rank)
    elif kind == "banner":
        key = _key(doc)
        if key is not None:
            yield Record("banners", key, "", doc, rank)
    elif kind == "banner-create" and anonymous:
        yield Record("banners", anonymous, "", doc, rank)


def _package(doc: dict, rank: int) -> Iterator[Record]:
    key = _key(doc)
    if key is None:
        return
    body = _without(doc, ("versions", "categories", "user"))
    yield Record("packages", key, "", body, rank, measures=_measures(doc))
    for i, version in enumerate(_array(doc, "versions")):
        yield from _version(version, f"/versions/{i}", rank, key, i)
    for i, category in enumerate(_array(doc, "categories")):
        cat = category.get("categoryId") if isinstance(category, dict) else None
        if isinstance(cat, str):
            yield Record("categories", f"{key}/{cat}", f"/categories/{i}", category, rank,
                         key, i)
    author = _key(doc.get("user"))
    if author is not None:
        yield Record("users", author, "/user", doc["user"], rank + 1)


def _version(version: Any, pointer: str, rank: int, parent: str | None,
             index: int | None) -> Iterator[Record]:
    key = _key(version)
    if key is None:
        return
    yield Record("versions", key, pointer, _without(version, ENTITIES), rank, parent, index)
    for table in ENTITIES:
        for i, entity in enumerate(_array(version, table)):
            entity_key = _key(entity)
            if entity_key is not None:
                entity.pop(PARENT_ID[0], None)  # the document is read for its records only
                yield Record(table, entity_key, f"{pointer}/{table}/{i}", entity, rank, key, i)


def _game(doc: Any, rank: int) -> Iterator[Record]:
    key = _key(doc)
    if key is None:
        return
    yield Record("games", key, "", _without(doc, ("history",)), rank)
    for i, entry in enumerate(_array(doc, "history")):
        entry_key = _key(entry)
        if entry_key is not None:
            yield Record("game_history", entry_key, f"/history/{i}", entry, rank, key, i)


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
