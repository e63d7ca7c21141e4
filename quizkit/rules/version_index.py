"""One index per version, built once and shared by every check of that version.

Each check has an exact, per-item path (which finds and points at every problem) and a fast
path that proves, with C-level set and map operations, that there is nothing to find. The fast
path runs first; the exact path runs only when the fast path has a doubt (a problem, or a value
of the wrong type anywhere in the collection). Valid documents, the common case, never take the
per-item path.

The index holds, per entity collection, the columns the checks share (ids, parent references,
positions, ...), each taken once (``map`` over an ``itemgetter``) and kept, with the set of its
value types. The engine builds one index per version (:func:`quizkit.rules.navigate.versions_of`)
and hands it to every version check.

``fast=False`` switches every fast path of an index off (each says "look closer"): the tests
compare the findings both ways. ``typed=True`` says the document passed its schema: ids and
parent references are then strings (every view's schema requires them so), and their type
test is skipped. ``whole=True`` says it passed its proving schema
(:mod:`quizkit.model.proofs`): every count, position among them, is then a whole number,
and the positions' type test is skipped too.
"""

from __future__ import annotations

from functools import partial
from operator import add, itemgetter
from typing import NamedTuple

from quizkit.model.entities import VERSION_ENTITIES

_ID = itemgetter("id")
_PARENT_KEY = {e.key: e.parent_field for e in VERSION_ENTITIES}
_GETTERS = {v: itemgetter(v) for v in _PARENT_KEY.values() if v}
_POSITION = itemgetter("position")
_PAYLOAD = itemgetter("payload")
_STR = {str}
_INT = {int}
_PLUS_ONE = partial(add, 1)
_SECOND = itemgetter(1)
_STARTS = {0, 1}


def column(items: list, getter: itemgetter) -> list | None:
    """``[getter(item) for item in items]``, or None when an item is not an object or lacks
    the key."""
    try:
        return list(map(getter, items))
    except (KeyError, TypeError, IndexError):
        return None


def value_set(items: list, getter: itemgetter) -> set | None:
    """``{getter(item) for item in items}`` (no list between), or None when an item is not an
    object, lacks the key or holds a value that cannot be hashed."""
    try:
        return set(map(getter, items))
    except (KeyError, TypeError, IndexError):
        return None


def all_str(values: list | set) -> bool:
    return not values or set(map(type, values)) == _STR


class Collection:
    """Columns of one entity collection: ids (as a set) and parent references when they are
    clean strings, and any other column on demand (kept)."""

    __slots__ = ("_clean", "_columns", "fast", "idset", "items", "parents", "parentset",
                 "whole")

    def __init__(self, items: list, parent_key: str | None, fast: bool = True,
                 typed: bool = False, whole: bool = False) -> None:
        self.items = items
        self.fast = fast
        self.whole = whole
        self._columns: dict[str, tuple[list | None, set | None]] = {}
        self._clean: bool | None = None
        idset: set[str] | None = value_set(items, _ID)
        # A set holds a value of each type its list held (no other value equals a string).
        self.idset = idset if idset is not None and (typed or all_str(idset)) else None
        parents = column(items, _GETTERS[parent_key]) if parent_key else None
        self.parents = parents if parents is not None and (typed or all_str(parents)) \
            else None
        self.parentset: set[str] | None = set(self.parents) if self.parents is not None \
            else None

    @property
    def unique_ids(self) -> bool:
        """Fast path: every item has a string id and no two the same."""
        return self.fast and self.idset is not None and len(self.idset) == len(self.items)

    def _column(self, key: str) -> tuple[list | None, set | None]:
        """The column and the set of its value types (taken with the column's first use
        that asks for them)."""
        hit = self._columns.get(key)
        if hit is None or (hit[1] is None and hit[0] is not None):
            values = hit[0] if hit is not None else column(self.items, itemgetter(key))
            hit = self._columns[key] = (values, set(map(type, values))
                                        if values is not None else None)
        return hit

    def column(self, key: str) -> list | None:
        """Every item's ``key`` (None when an item is not an object or lacks it)."""
        hit = self._columns.get(key)
        if hit is None:
            hit = self._columns[key] = (column(self.items, itemgetter(key)), None)
        return hit[0]

    def no_fraction(self, key: str) -> bool:
        """Fast path: every item has ``key`` and no value is a float (integral floats are
        fine, but checking them is the exact path's job)."""
        types = self._column(key)[1]
        return self.fast and types is not None and float not in types

    def positions_clean(self) -> bool:
        """Fast path: positions are distinct integers, contiguous from 0 or 1 among the
        siblings (same parent; all items for rounds). Kept: several checks ask."""
        if self._clean is None:
            if self.whole:  # whole numbers: no type to test
                positions = self.column("position")
                integral = positions is not None
            else:
                positions, types = self._column("position")
                integral = types == _INT
            self._clean = _positions_clean(positions, integral, self.parents, self.parentset)
        return self.fast and self._clean


class Payloads(NamedTuple):
    """Fast paths over the steps' payloads, each True when it proves there is nothing to
    find (False: look closer)."""

    #: No media or background media with an empty ``src``.
    sources: bool
    #: No background media duration is a float.
    background_whole: bool
    #: No step's answer variants repeat or are blank.
    variants: bool


_DOUBT = Payloads(False, False, False)


def _payloads(steps: list) -> Payloads:
    sources = background = variants = True
    try:
        for p in map(_PAYLOAD, steps):
            m = p["media"]
            if m is not None and not m["src"].strip():
                sources = False
            b = p["backgroundMedia"]
            if b is not None:
                if not b["src"].strip():
                    sources = False
                if type(b["duration"]) is float:
                    background = False
            vs = p["variants"]
            if vs and (len(set(vs)) != len(vs) or not all(map(str.strip, vs))):
                variants = False
    except (KeyError, TypeError, AttributeError):  # an unexpected shape: look closer
        return _DOUBT
    return Payloads(sources, background, variants)


class VersionIndex:
    __slots__ = ("_payloads", "collections", "fast")

    def __init__(self, version: dict, fast: bool = True, typed: bool = False,
                 whole: bool = False) -> None:
        self.fast = fast
        self._payloads: Payloads | None = None
        self.collections: dict[str, Collection] = {}
        for name, parent_key in _PARENT_KEY.items():
            items = version.get(name)
            if type(items) is list:
                self.collections[name] = Collection(items, parent_key, fast, typed, whole)

    def get(self, name: str) -> Collection | None:
        return self.collections.get(name)

    def payloads(self) -> Payloads:
        """The steps' payload fast paths, taken once for every rule that asks."""
        if self._payloads is None:
            steps = self.collections.get("steps")
            self._payloads = _payloads(steps.items) if steps is not None and self.fast \
                else _DOUBT
        return self._payloads


def positions_clean(items: list, parents: list | None, fast: bool = True) -> bool:
    """True when the siblings' positions (grouped by ``parents``, or all one group) are
    distinct integers, contiguous from 0 or 1 in each group. False means: look closer."""
    positions = column(items, _POSITION)
    integral = positions is not None and set(map(type, positions)) == _INT
    parentset = set(parents) if parents is not None else None
    return fast and _positions_clean(positions, integral, parents, parentset)


def _positions_clean(positions: list | None, integral: bool, parents: list | None,
                     parentset: set | None) -> bool:
    """``integral``: every position is a whole number (an int, or a float the proving
    schema found whole)."""
    if positions is None or not positions:
        return positions is not None
    if not integral:
        return False
    if parents is None:
        n = len(positions)
        start = 0 if 0 in positions else 1
        return set(positions) == set(range(start, start + n))
    # Exports list siblings together, in order: then each group is one run of consecutive
    # positions starting at 0 or 1, and there are as many runs as parents. One loop proves
    # it (fewer instructions than the seven C-level passes it replaced: Python 3.11 runs a
    # simple loop about as cheaply as map() runs a C function per item, and this one looks
    # at each item once); any other layout takes the general test below.
    if _runs(parents, positions) == len(parentset):  # type: ignore[arg-type]
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


def _runs(parents: list, positions: list) -> int | None:
    """How many runs of siblings (same parent, listed together) hold consecutive positions
    from 0 or 1; None when the list is laid out otherwise. ``parents`` are strings."""
    previous = None
    expected = 0
    runs = 0
    for parent, position in zip(parents, positions, strict=True):
        if parent == previous:
            if position != expected:
                return None
        elif position == 0 or position == 1:
            previous = parent
            runs += 1
        else:
            return None
        expected = position + 1
    return runs


def no_fraction(values: list | None, fast: bool = True) -> bool:
    """True when no value is a float (integral floats are fine, but checking them is the
    exact path's job)."""
    return fast and values is not None and float not in set(map(type, values))
