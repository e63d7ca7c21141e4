"""One index per version, built once and shared by every check of that version.

Each check has an exact, per-item path (which finds and points at every problem) and a fast
path that proves, with C-level set and map operations, that there is nothing to find. The fast
path runs first; the exact path runs only when the fast path has a doubt (a problem, or a value
of the wrong type anywhere in the collection). Valid documents, the common case, never take the
per-item path.

The index holds, per entity collection, the columns the checks share (ids, parent references,
positions, ...), each taken once (``map`` over an ``itemgetter``) and kept, with the set of its
value types. The indexes are cached for the document being checked (``begin`` is called by
every version check), since the checks of one document run one after another.

``FAST = False`` switches every fast path off (each says "look closer"): the tests compare the
findings both ways.
"""

from __future__ import annotations

from itertools import compress
from operator import eq, itemgetter, not_, sub
from typing import Any

from quizkit.model import VERSION_ENTITIES

#: The fast paths are used (tests switch them off to compare with the exact paths).
FAST = True

_ID = itemgetter("id")
_PARENT_KEY = {e.key: e.parent_field for e in VERSION_ENTITIES}
_GETTERS = {v: itemgetter(v) for v in _PARENT_KEY.values() if v}
_POSITION = itemgetter("position")
_STR = {str}
_INT = {int}
_ONE = {1}
_PLUS_ONE = (1).__add__
_SECOND = itemgetter(1)
_STARTS = {0, 1}
_MISSING = object()


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
    """Columns of one entity collection: ids and parent references when they are clean
    strings, and any other column on demand (kept)."""

    __slots__ = ("_clean", "_columns", "ids", "idset", "items", "parents", "parentset")

    def __init__(self, items: list, parent_key: str | None) -> None:
        self.items = items
        self._columns: dict[str, tuple[list | None, set | None]] = {}
        self._clean: bool | None = None
        ids = column(items, _ID)
        self.ids = ids if ids is not None and all_str(ids) else None
        self.idset: set[str] | None = set(self.ids) if self.ids is not None else None
        parents = column(items, _GETTERS[parent_key]) if parent_key else None
        self.parents = parents if parents is not None and all_str(parents) else None
        self.parentset: set[str] | None = set(self.parents) if self.parents is not None \
            else None

    @property
    def unique_ids(self) -> bool:
        return FAST and self.ids is not None and \
            len(self.idset) == len(self.ids)  # type: ignore[arg-type]

    def _column(self, key: str) -> tuple[list | None, set | None]:
        hit = self._columns.get(key)
        if hit is None:
            values = column(self.items, itemgetter(key))
            hit = self._columns[key] = (values, set(map(type, values))
                                        if values is not None else None)
        return hit

    def column(self, key: str) -> list | None:
        """Every item's ``key`` (None when an item is not an object or lacks it)."""
        return self._column(key)[0]

    def no_fraction(self, key: str) -> bool:
        """Fast path: every item has ``key`` and no value is a float (integral floats are
        fine, but checking them is the exact path's job)."""
        types = self._column(key)[1]
        return FAST and types is not None and float not in types

    def positions_clean(self) -> bool:
        """Fast path: positions are distinct integers, contiguous from 0 or 1 among the
        siblings (same parent; all items for rounds). Kept: several checks ask."""
        if self._clean is None:
            positions, types = self._column("position")
            self._clean = _positions_clean(positions, types, self.parents, self.parentset)
        return FAST and self._clean


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


_memo: dict[Any, Any] = {}


def begin(doc: Any) -> None:
    """Called before each check of a document: a new document drops the old indexes."""
    global _doc
    if doc is not _doc:
        _doc = doc
        _indexes.clear()
        _memo.clear()


def forget() -> None:
    """Drop every cached index (the engine calls this before each document: a document
    changed in place since it was last checked is indexed afresh)."""
    begin(None)


def per_document(key: Any, make: Any) -> Any:
    """``make()``, computed once for the document of :func:`begin`."""
    hit = _memo.get(key, _MISSING)
    if hit is _MISSING:
        hit = _memo[key] = make()
    return hit


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
    types = set(map(type, positions)) if positions is not None else None
    parentset = set(parents) if parents is not None else None
    return FAST and _positions_clean(positions, types, parents, parentset)


def _positions_clean(positions: list | None, types: set | None, parents: list | None,
                     parentset: set | None) -> bool:
    if positions is None or not positions:
        return positions is not None
    if types != _INT:
        return False
    if parents is None:
        n = len(positions)
        start = 0 if 0 in positions else 1
        return set(positions) == set(range(start, start + n))
    # Exports list siblings together, in order: then each group is one run of consecutive
    # positions starting at 0 or 1, and there are as many runs as parents. Seven C-level
    # passes prove it; any other layout takes the general test below.
    same = list(map(eq, parents[1:], parents))
    if not set(compress(map(sub, positions[1:], positions), same)) - _ONE and \
            positions[0] in _STARTS and \
            not set(compress(positions[1:], map(not_, same))) - _STARTS and \
            same.count(False) + 1 == len(parentset):  # type: ignore[arg-type]
        return True
    pairs = set(zip(parents, positions, strict=True))
    if len(pairs) != len(positions):
        return False  # a duplicate
    # Within a group of distinct integers, each maximal run has one element without a
    # predecessor. One such element per group, at 0 or 1, means one contiguous run from 0 or 1.
    successors = set(zip(parents, map(_PLUS_ONE, positions), strict=True))
    heads = pairs - successors
    return len(heads) == len(parentset) and \
        set(map(_SECOND, heads)) <= _STARTS  # type: ignore[arg-type]


def no_fraction(values: list | None) -> bool:
    """True when no value is a float (integral floats are fine, but checking them is the
    exact path's job)."""
    return FAST and values is not None and float not in set(map(type, values))
