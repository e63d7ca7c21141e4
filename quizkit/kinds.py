"""Document shape → document kind.

The service's exports carry no type tag, so the kind is read from the top-level fields. The
decision uses only the keys that tell kinds apart, so a document with a broken or missing
field is still recognised and then gets precise schema findings instead of "unknown kind".
"""

from __future__ import annotations

from functools import cache
from typing import Any

from quizkit.schemas import KINDS, bundled, schema_id

# The fields that make an object of a top-level array a version (of a version list). The
# analysis loader's kind detection (``quizkit.analysis.readers.KIND_SQL``) uses the same ones.
VERSION_FIELDS = ("packageId", "rounds", "published", "changes")


def detect_kind(doc: Any) -> str | None:
    """The document kind of ``doc``, or None when its shape fits none."""
    if isinstance(doc, list):
        if not doc:
            return "version-list"  # a package without versions
        first = doc[0]
        if (all(isinstance(v, dict) for v in doc[:3])
                and any(f in first for f in VERSION_FIELDS)):
            return "version-list"
        return None
    if not isinstance(doc, dict):
        return None
    keys = doc.keys()
    if "version" in keys and "idMaps" in keys:
        return "version-created"
    if "versions" in keys or "meta" in keys or "categories" in keys:
        return "package-full"
    if "pkg" in keys or "history" in keys or "visibility" in keys:
        return "game"
    if "user" in keys and "settings" in keys:
        return "user-self"
    if "packageId" in keys and ("rounds" in keys or "published" in keys or "changes" in keys):
        return "version"
    if "slot" in keys or "payload" in keys:
        return "banner" if ("id" in keys or "createdAt" in keys) else "banner-create"
    if keys == {"user"}:
        return "user-update"
    return None


_SCALARS = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"))


def shape_of(doc: Any) -> str | None:
    """What a document that is not an object or array is (``"a number"``), else None."""
    if doc is None:
        return "null"
    if isinstance(doc, (dict, list)):
        return None
    return next((name for t, name in _SCALARS if isinstance(doc, t)), type(doc).__name__)


def _properties(schema: dict, resolver: Any) -> tuple[dict, Any]:
    """The ``properties`` of an object schema, following ``$ref`` and array ``items``."""
    while True:
        if "$ref" in schema:
            resolved = resolver.lookup(schema["$ref"])
            schema, resolver = resolved.contents, resolved.resolver
        elif schema.get("type") == "array" and isinstance(schema.get("items"), dict):
            schema = schema["items"]
        else:
            return schema.get("properties", {}), resolver


@cache
def _fields(kind: str) -> frozenset[str]:
    """A kind's top-level fields and the fields of the objects directly under them."""
    from quizkit.schemas import registry

    root = registry().resolver(base_uri=schema_id(kind))
    props, resolver = _properties(bundled()[schema_id(kind)], root)
    fields = set(props)
    for sub in props.values():
        fields |= set(_properties(sub, resolver)[0])
    return frozenset(fields)


def closest_kinds(doc: Any, limit: int = 3) -> list[str]:
    """The kinds whose top-level fields overlap most with ``doc``'s, best first."""
    if isinstance(doc, list):
        doc = next((v for v in doc if isinstance(v, dict)), {})
    if not isinstance(doc, dict) or not doc:
        return []
    keys = set(doc)
    scored = []
    for kind in KINDS:
        fields = _fields(kind)
        overlap = len(keys & fields)
        if overlap:
            scored.append((overlap / len(keys | fields), kind))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [kind for _, kind in scored[:limit]]
