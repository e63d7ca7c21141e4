"""Shared helpers for structural checks: safe access, versions of each document kind, times.

Checks must never raise on any JSON value: a document may be schema-invalid exactly where a
check looks. These helpers return neutral values (an empty list, ``None``) for anything of the
wrong type, so checks stay tight single passes without ``try`` blocks. ``type(x) is dict`` is
used rather than ``isinstance``: orjson builds exact types and the test is faster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from quizkit.rules.checks import Emit, doc_check
from quizkit.rules.version_index import begin, per_document

EMPTY: list = []

#: The entity collections of a version, in containment order.
ENTITIES = ("rounds", "themes", "questions", "steps")


def as_list(obj: Any, key: str) -> list:
    """``obj[key]`` when ``obj`` is an object and the value is an array, else ``[]``."""
    if type(obj) is dict:
        v = obj.get(key)
        if type(v) is list:
            return v
    return EMPTY


def as_dict(obj: Any, key: str) -> dict | None:
    if type(obj) is dict:
        v = obj.get(key)
        if type(v) is dict:
            return v
    return None


def as_str(obj: Any, key: str) -> str | None:
    if type(obj) is dict:
        v = obj.get(key)
        if type(v) is str:
            return v
    return None


def is_number(v: Any) -> bool:
    """A JSON number (booleans are not numbers here, as in JSON Schema)."""
    t = type(v)
    return t is int or t is float


def escape(key: str) -> str:
    """One JSON Pointer (RFC 6901) reference token."""
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 date-time as an aware datetime; ``None`` for anything else.

    Values the schema already reports (not a string, no offset, a leap second, garbage) give
    ``None`` so that time-order checks skip them instead of reporting twice.
    """
    if type(value) is not str or len(value) < 20:
        return None
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

#: A version in its document: (pointer to the version, the version, view, package id or None).
#: Views: "full" (package-full, entities carry versionId), "list" (version-list, version),
#: "created" (version-created, no entity arrays), "game" (a game's pkg.versions, reduced).
VersionAt = tuple[str, dict, str, str | None]


def _versions_full(doc: Any) -> Iterator[VersionAt]:
    pkg_id = as_str(doc, "id")
    for i, v in enumerate(as_list(doc, "versions")):
        if type(v) is dict:
            yield f"/versions/{i}", v, "full", pkg_id


def _versions_list(doc: Any) -> Iterator[VersionAt]:
    if type(doc) is list:
        for i, v in enumerate(doc):
            if type(v) is dict:
                yield f"/{i}", v, "list", None


def _version_single(doc: Any) -> Iterator[VersionAt]:
    if type(doc) is dict:
        yield "", doc, "list", None


def _version_created(doc: Any) -> Iterator[VersionAt]:
    v = as_dict(doc, "version")
    if v is not None:
        yield "/version", v, "created", None


def _versions_game(doc: Any) -> Iterator[VersionAt]:
    pkg = as_dict(doc, "pkg")
    pkg_id = as_str(pkg, "id")
    for i, v in enumerate(as_list(pkg, "versions")):
        if type(v) is dict:
            yield f"/pkg/versions/{i}", v, "game", pkg_id


VERSIONS: dict[str, Callable[[Any], Iterator[VersionAt]]] = {
    "package-full": _versions_full,
    "version-list": _versions_list,
    "version": _version_single,
    "version-created": _version_created,
    "game": _versions_game,
}

VersionCheck = Callable[[str, dict, str, str | None, Emit], None]


def version_check(*kinds: str) -> Callable[[VersionCheck], VersionCheck]:
    """Register ``fn(base, version, view, package_id, emit)`` for every version of these kinds."""

    def register(fn: VersionCheck) -> VersionCheck:
        for kind in kinds:
            each = VERSIONS[kind]

            def run(doc: Any, emit: Emit, _each=each, _kind=kind) -> None:
                begin(doc)
                # The versions are listed once per document, for all its version checks.
                for base, version, view, pkg_id in per_document(
                        _kind, lambda: list(_each(doc))):
                    fn(base, version, view, pkg_id, emit)

            run.__name__ = f"{fn.__name__}[{kind}]"
            doc_check(kind)(run)
        return fn

    return register
