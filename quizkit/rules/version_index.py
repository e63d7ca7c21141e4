"""One index per version, built once and shared by every check of that version.

Each check has an exact, per-item path (which finds and points at every problem) and a fast
path that proves, with C-level set and map operations, that there is nothing to find. The fast
path runs first; the exact path runs only when the fast path has a doubt (a problem, or a value
of the wrong type anywhere in the collection). Valid documents, the common case, never take the
per-item path.

The indexes are cached for the document being checked (``begin`` is called by every version
check), since the checks of one document run one after another.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

_ID = itemgetter("id")
_PARENT_KEY = {"rounds": None, "themes": "roundId", "questions": "themeId", "steps": "questionId"}
_GETTERS = {v: itemgetter(v) for v in _PARENT_KEY.values() if v}
_POSITION = itemgetter("position")
_STR = {str}
_PLUS_ONE = (1).__add__
_SECOND = itemgetter(1)
_STARTS = {0, 1}


def column(items: list, getter: itemgetter) -> list | None:
    """``[getter(item) for item in items]``, or None when an item is not an object or lacks
    the key."""
    try:
        return list(map(getter, items))
    except (KeyError, TypeError, IndexError):
        return None


def all_str(values: list) -> bool:
    return not values or set(map(type, values)) == _STR


class Collection:
    """Ids and parent references of one entity collection, when they are clean strings."""

    __slots__ = ("ids", "idset", "items", "parents", "parentset")

    def __init__(self, items: list, parent_key: str | None) -> None:
        self.items = items
        ids = column(items, _ID)
        self.ids = ids if ids is not None and all_str(ids) else None
        self.idset: set[str] | None = set(self.ids) if self.ids is not None else None
        parents = column(items, _GETTERS[parent_key]) if parent_key else None
        self.parents = parents if parents is not None and all_str(parents) else None
        self.parentset: set[str] | None = set(self.parents) if self.parents is not None \
            else None

    @property
    def unique_ids(self) -> bool:
        return self.ids is not None and len(self.idset) == len(self.ids)  # type: ignore[arg-type]


class VersionIndex:
    __slots__ = ("collections",)

    def __init__(self, version: dict) -> None:
        self.collections: dict[str, Collection] = {}
        for name, parent_key in _PARENT_KEY.items():
            items = version.get(name)
            if type(items) is list:
                self.collections[name] = Collection(items, parent_key)

    def get(self, name: str) -> Collection | None:
        return self.collections.get(name)


# The document whose versions are indexed, and their indexes by id(version). Holding the
# document keeps its versions alive, so an id cannot be reused while it is cached.
_doc: Any = None
_indexes: dict[int, tuple[dict, VersionIndex]] = {}


def begin(doc: Any) -> None:
    """Called before each check of a document: a new document drops the old indexes."""
    global _doc
    if doc is not _doc:
        _doc = doc
        _indexes.clear()


def index(version: dict) -> VersionIndex:
    """The index of ``version``, built once per document (see :func:`begin`)."""
    hit = _indexes.get(id(version))
    if hit is not None and hit[0] is version:
        return hit[1]
    built = VersionIndex(version)
    _indexes[id(version)] = (version, built)
    return built


def positions_clean(items: list, parents: list | None) -> bool:
    """True when the siblings' positions (grouped by ``parents``, or all one group) are
    distinct integers, contiguous from 0 or 1 in each group. False means: look closer."""
    positions = column(items, _POSITION)
    if positions is None or not positions:
        return positions is not None
    if set(map(type, positions)) != {int}:
        return False
    if parents is None:
        n = len(positions)
        start = 0 if 0 in positions else 1
        return set(positions) == set(range(start, start + n))
    pairs = set(zip(parents, positions, strict=True))
    if len(pairs) != len(positions):
        return False  # a duplicate
    # Within a group of distinct integers, each maximal run has one element without a
    # predecessor. One such element per group, at 0 or 1, means one contiguous run from 0 or 1.
    successors = set(zip(parents, map(_PLUS_ONE, positions), strict=True))
    heads = pairs - successors
    return len(heads) == len(set(parents)) and set(map(_SECOND, heads)) <= _STARTS


def no_fraction(values: list | None) -> bool:
    """True when no value is a float (integral floats are fine, but checking them is the
    exact path's job)."""
    return values is not None and float not in set(map(type, values))
