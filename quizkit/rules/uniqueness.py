"""Uniqueness within one document: ids within their collection, positions among siblings."""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter
from typing import Any

from quizkit.catalog.findings import Severity, json_text
from quizkit.catalog.rule import rule
from quizkit.model.entities import (
    COLLECTIONS,
    ENTITY_KINDS,
    KINDS,
    STEP_KINDS,
    VERSION_ENTITIES,
    outer_collections,
)
from quizkit.rules.checks import Emit, check
from quizkit.rules.navigate import DocumentFacts, as_dict, as_list
from quizkit.rules.version_index import value_set

GROUP = "uniqueness"


_PARENT = {e.key: e.parent_field for e in VERSION_ENTITIES}

#: Collections outside versions whose ids are unique: (path to the array, id key, what).
_OUTER_IDS = {k.name: outer_collections(k) for k in KINDS if outer_collections(k)}


def _array(doc: Any, path: tuple[str, ...]) -> list:
    if not path:
        return doc if type(doc) is list else []
    holder = doc
    for key in path[:-1]:
        holder = as_dict(holder, key)
    return as_list(holder, path[-1])


def _distinct(items: list, key: str) -> bool:
    """Fast path: every item has ``key`` and no two the same value (then no string id
    repeats); False: look closer."""
    found = value_set(items, itemgetter(key))
    return found is not None and len(found) == len(items)


def unique_ids(items: list, base: str, key: str, what: str, emit: Emit) -> None:
    """Report every item of ``items`` whose ``key`` repeats an earlier item's."""
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if type(item) is dict:
            x = item.get(key)
            if type(x) is str:
                first = seen.setdefault(x, i)
                if first != i:
                    emit(DUPLICATE_ID, f"{base}/{i}/{key}",
                         f"{what} {key} {json_text(x)} is also used by {base}/{first}")


def _groups(items: list, parent_key: str | None) -> dict[Any, list[tuple[int | float, int]]]:
    """Numeric positions of the siblings (grouped by ``parent_key``) with their indexes."""
    groups: dict[Any, list[tuple[int | float, int]]] = {}
    for i, item in enumerate(items):
        if type(item) is not dict:
            continue
        p = item.get("position")
        tp = type(p)
        if tp is not int and tp is not float:
            continue
        parent = item.get(parent_key) if parent_key else None
        if parent_key and type(parent) is not str:
            continue
        group = groups.get(parent)
        if group is None:
            groups[parent] = [(p, i)]
        else:
            group.append((p, i))
    return groups


def _sibling_groups(d: DocumentFacts) -> Iterator[tuple[str, str, str | None, Any, list]]:
    """(pointer to the collection, what, parent key, parent, positions) for every group of
    siblings the fast path does not clear (the game view carries no positions)."""
    for v in d.versions:
        if v.view == "game":
            continue
        for collection, parent_key in _PARENT.items():
            items = as_list(v.version, collection)
            if not items:
                continue
            col = v.index.get(collection)
            if col is not None and (parent_key is None or col.parents is not None) and \
                    col.positions_clean():
                continue
            for parent, entries in _groups(items, parent_key).items():
                yield f"{v.base}/{collection}", COLLECTIONS[collection], parent_key, parent, entries


def _num(v: int | float) -> str:
    return str(int(v)) if type(v) is float and v.is_integer() else str(v)


def _scope(parent_key: str | None, parent: Any) -> str:
    return f" (among siblings with {parent_key} {json_text(parent)})" if parent_key else ""


DUPLICATE_ID = rule(
    "U001", "duplicate-id", Severity.ERROR,
    "Two items of one collection share an id.",
    "Ids are unique within their collection: the versions of a package or list, the rounds, "
    "themes, questions and steps of a version, the categories of a package (`categoryId`) and "
    "the history of a game. A second item with the same id makes references ambiguous.",
    bad='{"rounds": [{"id": "r1", ...}, {"id": "r1", ...}]}',
    good='{"rounds": [{"id": "r1", ...}, {"id": "r2", ...}]}',
    group=GROUP,
)


@check(DUPLICATE_ID, *ENTITY_KINDS)
def duplicate_id(d: DocumentFacts, emit: Emit) -> None:
    for path, key, what in _OUTER_IDS.get(d.kind, ()):
        items = _array(d.doc, path)
        if not (d.fast and _distinct(items, key)):
            unique_ids(items, "".join(f"/{p}" for p in path), key, what, emit)
    for v in d.versions:
        for collection in _PARENT:
            items = as_list(v.version, collection)
            col = v.index.get(collection)
            if items and (col is None or not col.unique_ids):
                unique_ids(items, f"{v.base}/{collection}", "id", COLLECTIONS[collection], emit)


DUPLICATE_POSITION = rule(
    "U002", "duplicate-position", Severity.ERROR,
    "Two siblings share a position.",
    "Positions order siblings: the rounds of a version, the themes of a round, the questions of "
    "a theme, the steps of a question. Two siblings at the same position have no defined order.",
    bad='{"questions": [{"id": "q1", "themeId": "t1", "position": 0, ...}, '
        '{"id": "q2", "themeId": "t1", "position": 0, ...}]}',
    good='{"questions": [{"id": "q1", "themeId": "t1", "position": 0, ...}, '
         '{"id": "q2", "themeId": "t1", "position": 1, ...}]}',
    group=GROUP,
)


@check(DUPLICATE_POSITION, *STEP_KINDS)
def duplicate_position(d: DocumentFacts, emit: Emit) -> None:
    for base, what, parent_key, parent, entries in _sibling_groups(d):
        seen: dict[int | float, int] = {}
        for p, i in entries:
            first = seen.setdefault(p, i)
            if first != i:
                emit(DUPLICATE_POSITION, f"{base}/{i}/position",
                     f"{what} position {p} is also used by {base}/{first}"
                     f"{_scope(parent_key, parent)}")


POSITION_GAP = rule(
    "U003", "position-gap", Severity.WARNING,
    "Sibling positions are not contiguous (0..n-1 or 1..n).",
    "Siblings are expected at positions 0..n-1 or 1..n. A gap often means an item was deleted "
    "without renumbering, or lost on export. The finding points at the first sibling (in "
    "document order) outside the expected range.",
    bad='{"rounds": [{"position": 0, ...}, {"position": 1, ...}, {"position": 3, ...}]}',
    good='{"rounds": [{"position": 0, ...}, {"position": 1, ...}, {"position": 2, ...}]}',
    group=GROUP,
)


@check(POSITION_GAP, *STEP_KINDS)
def position_gap(d: DocumentFacts, emit: Emit) -> None:
    for base, what, parent_key, parent, entries in _sibling_groups(d):
        seen = {p for p, _ in entries}
        n = len(entries)
        if len(seen) != n:
            continue  # a duplicate position (duplicate-position) leaves the order undefined
        start = 0 if min(seen) < 1 else 1
        integral = all(type(p) is not float or p.is_integer() for p in seen)
        if integral and min(seen) == start and max(seen) == start + n - 1:
            continue
        for p, i in entries:
            if not (start <= p <= start + n - 1) or (type(p) is float and not p.is_integer()):
                shown = ", ".join(_num(q) for q in sorted(seen)[:8]) + (", …" if n > 8 else "")
                emit(POSITION_GAP, f"{base}/{i}/position",
                     f"{what} positions {shown}{_scope(parent_key, parent)} are not "
                     f"contiguous (expected {start}..{start + n - 1})")
                break
