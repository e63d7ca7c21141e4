"""The fields that differ between two versions of one record, as JSON Pointers.

Objects are compared key by key, whatever the order; arrays whose elements are all objects
with distinct ids are matched by id (their order is not a change: a record's place is its
own ``moved``); other arrays are values, compared whole. A field present on one side only
has no ``old`` (or no ``new``). Long values are cut when shown (:func:`cut`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from quizkit.catalog.pointers import escape_token

#: Characters of a value shown; a longer one is cut (:func:`cut`).
MAX_SHOWN = 200
_ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class Field:
    """One changed field: its pointer (relative to the record), and the values either side
    (``ABSENT`` when that side has no such field)."""

    pointer: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer}
        if self.old is not _ABSENT:
            out["old"] = cut(self.old)
        if self.new is not _ABSENT:
            out["new"] = cut(self.new)
        return out


ABSENT = _ABSENT


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _by_id(items: list) -> dict[Any, int] | None:
    """id → index when every element is an object with a distinct scalar id."""
    found: dict[Any, int] = {}
    for i, item in enumerate(items):
        key = item.get("id") if isinstance(item, dict) else None
        if not isinstance(key, (str, int)) or isinstance(key, bool) or key in found:
            return None
        found[key] = i
    return found


def fields(old: Any, new: Any, pointer: str = "") -> Iterator[Field]:
    """The changed fields below ``pointer`` between ``old`` and ``new``."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(old.keys() | new.keys()):
            below = f"{pointer}/{escape_token(key)}"
            if key not in old:
                yield Field(below, ABSENT, new[key])
            elif key not in new:
                yield Field(below, old[key], ABSENT)
            else:
                yield from fields(old[key], new[key], below)
        return
    if isinstance(old, list) and isinstance(new, list):
        old_ids, new_ids = _by_id(old), _by_id(new)
        if old_ids is not None and new_ids is not None and (old or new):
            yield from _matched(old, new, old_ids, new_ids, pointer)
            return
    if not _same(old, new) and _text(old) != _text(new):
        yield Field(pointer, old, new)


def _matched(old: list, new: list, old_ids: dict, new_ids: dict, pointer: str
             ) -> Iterator[Field]:
    for key, i in old_ids.items():
        if key not in new_ids:
            yield Field(f"{pointer}/{i}", old[i], ABSENT)
    for key, j in new_ids.items():
        i = old_ids.get(key)
        if i is None:
            yield Field(f"{pointer}/{j}", ABSENT, new[j])
        else:
            yield from fields(old[i], new[j], f"{pointer}/{j}")


def _text(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return repr(value).encode()


def cut(value: Any) -> Any:
    """``value`` as shown: a string or a container longer than :data:`MAX_SHOWN` characters
    (as compact JSON) becomes the start of its text and ``…``."""
    if isinstance(value, str):
        return value if len(value) <= MAX_SHOWN else value[:MAX_SHOWN] + "…"
    if isinstance(value, (dict, list)):
        text = _text(value).decode()
        return value if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"
    return value
