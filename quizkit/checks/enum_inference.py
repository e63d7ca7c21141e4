"""Learning a service's enum values from a corpus (``quizkit enums infer``).

Where the enums are is read from the schemas themselves: every ``$ref`` to
``enums.json#/$defs/NAME`` (and every ``propertyNames`` that refers to one) marks a place in a
document kind. So inference, enforcement and the schemas cannot disagree. The result is written
as a TOML profile (tomlkit, for its comments) that ``--profile`` reads back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
import tomlkit

from quizkit.catalog.pointers import escape_token
from quizkit.model.enums import enum_names
from quizkit.model.schemas import SchemaBook, schema_id

if TYPE_CHECKING:
    from quizkit.checks.input_report import InputReport

WILDCARD = "*"
KEY = "<key>"  # the path step that stands for an object's keys (membership flags)


# --- where enums are, per kind ----------------------------------------------------------------

def _enum_ref(schema: dict) -> str | None:
    ref = schema.get("$ref", "")
    return ref.split("#/$defs/", 1)[1] if "enums.json#/$defs/" in ref else None


def enum_paths(kind: str, schemas: SchemaBook) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(enum name, path) pairs of a document kind in ``schemas``; paths use ``*`` for array
    items and ``<key>`` for the keys of an object."""
    out: list[tuple[str, tuple[str, ...]]] = []
    resolver = schemas.registry.resolver(base_uri=schema_id(kind))

    def walk(schema: dict, resolver: Any, path: tuple[str, ...], seen: frozenset) -> None:
        name = _enum_ref(schema)
        if name:
            out.append((name, path))
            return
        if "$ref" in schema:
            resolved = resolver.lookup(schema["$ref"])
            key = resolved.resolver._base_uri + schema["$ref"]
            if key in seen:
                return
            walk(resolved.contents, resolved.resolver, path, seen | {key})
            return
        for alt in schema.get("anyOf", []):
            walk(alt, resolver, path, seen)
        if isinstance(schema.get("items"), dict):
            walk(schema["items"], resolver, (*path, WILDCARD), seen)
        for prop, sub in schema.get("properties", {}).items():
            walk(sub, resolver, (*path, prop), seen)
        names = schema.get("propertyNames")
        if isinstance(names, dict) and _enum_ref(names):
            out.append((_enum_ref(names), (*path, KEY)))

    walk(schemas.schema(kind), resolver, (), frozenset())
    return tuple(dict.fromkeys(out))


def _values(doc: Any, path: tuple[str, ...], where: str = "") -> Iterator[tuple[str, str]]:
    """(value, pointer) of the strings at ``path`` in ``doc``."""
    if not path:
        if isinstance(doc, str):
            yield doc, where
        return
    step, rest = path[0], path[1:]
    if step == WILDCARD:
        if isinstance(doc, list):
            for i, item in enumerate(doc):
                yield from _values(item, rest, f"{where}/{i}")
    elif step == KEY:
        if isinstance(doc, dict):
            for k in doc:
                yield k, f"{where}/{escape_token(k)}"
    elif isinstance(doc, dict) and step in doc:
        yield from _values(doc[step], rest, f"{where}/{escape_token(step)}")


class EnumPlaces:
    """Where the enum-typed values of each kind are, read from the schemas once per kind (for
    one run: the object is passed along, nothing is kept in the module)."""

    def __init__(self, schemas: SchemaBook) -> None:
        self._schemas = schemas
        self._by_kind: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {}

    def values(self, kind: str, doc: Any) -> Iterator[tuple[str, str, str]]:
        """(enum name, value, pointer) for every enum-typed value of one document."""
        paths = self._by_kind.get(kind)
        if paths is None:
            paths = self._by_kind[kind] = enum_paths(kind, self._schemas)
        for name, path in paths:
            for value, where in _values(doc, path):
                yield name, value, where


# --- inference --------------------------------------------------------------------------------

@dataclass
class Inferred:
    """Values seen per enum, with counts and the first location of each."""

    counts: dict[str, Counter] = field(default_factory=dict)
    examples: dict[tuple[str, str], str] = field(default_factory=dict)
    files: int = 0
    documents: int = 0
    #: The inputs read and those that could not be (set by ``quizkit.api.infer``).
    inputs: InputReport | None = None

    def add(self, name: str, value: str, location: str) -> None:
        self.counts.setdefault(name, Counter())[value] += 1
        self.examples.setdefault((name, value), location)

    def to_dict(self) -> dict:
        return {name: [{"value": v, "count": n, "example": self.examples[(name, v)]}
                       for v, n in sorted(c.items())]
                for name, c in sorted(self.counts.items())}


def infer(documents: Iterable[tuple[str, int | None, str, Any]]) -> Inferred:
    """Collect enum values from (path, record, kind, document) tuples."""
    seen = Inferred()
    places = EnumPlaces(SchemaBook())  # where enums are does not depend on a profile
    paths: set[str] = set()
    for path, record, kind, doc in documents:
        paths.add(path)
        seen.documents += 1
        where = f"{path}:{record}" if record is not None else path
        for name, value, pointer in places.values(kind, doc):
            seen.add(name, value, f"{where}#{pointer}")
    seen.files = len(paths)
    return seen


def profile_toml(seen: Inferred, source: str = "") -> str:
    """The inferred values as a TOML profile, each value commented with count and example."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"quizkit enum profile, inferred from {seen.files} files "
                            f"({seen.documents} documents){' in ' + source if source else ''}"))
    doc.add(tomlkit.comment(f"on {datetime.now(UTC).date().isoformat()}. Edit freely: an enum "
                            "left out stays open."))
    table = tomlkit.table()
    for name in enum_names():
        if name not in seen.counts:
            continue
        values = tomlkit.array()
        for value, n in sorted(seen.counts[name].items()):
            values.add_line(value, comment=f"{n} × {seen.examples[(name, value)]}")
        values.add_line(indent="")
        table.add(name, values)
    doc.add("enums", table)
    return tomlkit.dumps(doc)


__all__ = ["EnumPlaces", "Inferred", "enum_paths", "infer", "profile_toml"]


#: The formats :func:`inferred_text` writes.
INFER_FORMATS = ("toml", "json")


def inferred_text(seen: Inferred, fmt: str, source: str = "") -> str:
    """Inferred values as a TOML profile or as JSON with counts and an example each."""
    if fmt == "json":
        return orjson.dumps({"files": seen.files, "documents": seen.documents,
                             "enums": seen.to_dict()}, option=orjson.OPT_INDENT_2).decode()
    return profile_toml(seen, source)
