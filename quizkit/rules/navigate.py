"""Shared helpers for structural checks: safe access, versions of each document kind, times.

Checks must never raise on any JSON value: a document may be schema-invalid exactly where a
check looks. These helpers return neutral values (an empty list, ``None``) for anything of the
wrong type, so checks stay tight single passes without ``try`` blocks. ``type(x) is dict`` is
used rather than ``isinstance``: orjson builds exact types and the test is faster.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from quizkit.model.entities import KINDS, VERSION_ENTITIES, version_sites
from quizkit.rules.version_index import VersionIndex

EMPTY: list = []

#: The entity collections of a version, in containment order.
ENTITIES = tuple(e.key for e in VERSION_ENTITIES)


def as_list(obj: Any, key: str) -> list:
    """``obj[key]`` when ``obj`` is an object and the value is an array, else ``[]``."""
    v = obj.get(key) if type(obj) is dict else None
    return v if type(v) is list else EMPTY


def as_dict(obj: Any, key: str) -> dict | None:
    """``obj[key]`` when ``obj`` is an object and the value is an object, else ``None``."""
    v = obj.get(key) if type(obj) is dict else None
    return v if type(v) is dict else None


def as_str(obj: Any, key: str) -> str | None:
    """``obj[key]`` when ``obj`` is an object and the value is a string, else ``None``."""
    v = obj.get(key) if type(obj) is dict else None
    return v if type(v) is str else None


def is_number(v: Any) -> bool:
    """A JSON number (booleans are not numbers here, as in JSON Schema)."""
    t = type(v)
    return t is int or t is float


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 date-time as an aware datetime; ``None`` for anything else.

    Values the schema already reports (not a string, no offset, garbage) give ``None`` so that
    time-order checks skip them instead of reporting twice; so does a leap second (valid, but
    ``datetime`` cannot hold second 60).
    """
    if type(value) is not str or len(value) < 20:
        return None
    if value[-1] == "Z" and value[10] == "T":  # the service's form: read as it is
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            pass  # read below, as any other (the answer is the same)
        else:
            return parsed if parsed.tzinfo is not None else None
    text = value
    if text[-1] in "zZ":
        text = text[:-1] + "+00:00"
    if text[10:11] in ("t", " "):
        text = text[:10] + "T" + text[11:]
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


# --- versions of each document kind -------------------------------------------------------

class VersionFacts(NamedTuple):
    """One version in its document, as every version check sees it.

    ``view``: "full" (package-full, entities carry versionId), "list" (version-list,
    version), "created" (version-created, no entity arrays), "game" (a game's pkg.versions,
    reduced). ``package_id``: the id of the object that holds the versions, if any.
    ``index``: the version's columns, built once and shared by its checks.
    """

    base: str
    version: dict
    view: str
    package_id: str | None
    index: VersionIndex


class DocumentFacts(NamedTuple):
    """One document as every rule's check sees it: its kind, the parsed value, and its
    versions, listed and indexed once (:func:`versions_of`). ``proven``: the document passed
    its kind's proving schema (:mod:`quizkit.model.proofs`), so the rules the proofs name
    have nothing to find in it. ``fast``: the checks' fast paths are on (tests turn them off
    to compare with the exact paths)."""

    kind: str
    doc: Any
    versions: list[VersionFacts]
    proven: bool = False
    fast: bool = True


#: Each kind's view of its versions (see :class:`VersionFacts`).
_VIEWS = {k.name: k.view or "" for k in KINDS if k.versions is not None}


def versions_of(kind: str, doc: Any, fast: bool = True, typed: bool = False,
                whole: bool = False) -> list[VersionFacts]:
    """Every version (an object) of a document of ``kind``
    (:func:`quizkit.model.entities.version_sites`), indexed (``fast``: the index's
    fast paths are on; tests turn them off to compare with the exact paths; ``typed``: the
    document passed the schema of ``kind``; ``whole``: and its proving schema, see
    :class:`VersionIndex`)."""
    view = _VIEWS.get(kind)
    if view is None:
        return []
    return [VersionFacts(s.base, s.version, view, s.holder_id,
                         VersionIndex(s.version, fast, typed, whole))
            for s in version_sites(kind, doc)]
