"""Document shape → document kind, by the recognisers of :mod:`quizkit.model.entities`.

The service's exports carry no type tag, so the kind is read from the fields a document has
(the rule is spelled out in :mod:`quizkit.model.entities`). The decision is one function of
the set of fields present, :func:`kind_of_fields`. ``validate`` gives it the fields of each parsed
document (:func:`detect_kind`); ``load`` has DuckDB compute which fields each document has
(the JSON types of :func:`shape_sql`) and gives it each distinct set
(:func:`quizkit.analysis.readers.assign_kinds`). So the two cannot differ.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from quizkit.model.entities import KINDS, RECOGNISED, Kind
from quizkit.model.schemas import SchemaBook, schema_id

_RECOGNISED = frozenset(RECOGNISED)
_OBJECT_KINDS = tuple(k for k in KINDS if k.container == "object")
_ARRAY_KIND = next(k for k in KINDS if k.container == "array")
_INNER = frozenset(outer for k in KINDS for outer, _ in k.inner)
#: Per object of :data:`_INNER`, its fields that take part in recognition, each with the
#: name recognition knows it by (``user.id``).
_INNER_NAMES = {outer: {name.partition(".")[2]: name for name in RECOGNISED
                        if name.partition(".")[0] == outer and "." in name}
                for outer in _INNER}


def min_matched(kind: Kind) -> int:
    """How many of a kind's fields a document needs to be taken for one.

    Half the required fields (rounded up); one field for a request body, which requires none.
    """
    return (len(kind.required) + 1) // 2 if kind.required else 1


class Fit(NamedTuple):
    """How well an object's fields fit one kind: fewer foreign, then fewer missing, is better
    (the order of the tuple)."""

    foreign: int
    missing: int
    kind: str


class _Shape(NamedTuple):
    """What recognition asks of one object kind, as sets (taken once, at import)."""

    kind: str
    fields: frozenset[str]
    shape: frozenset[str]
    required: frozenset[str]
    least: int


_SHAPES = tuple(_Shape(k.name, frozenset(k.fields), frozenset(k.shape), frozenset(k.required),
                       min_matched(k)) for k in _OBJECT_KINDS)


def _present(doc: dict) -> frozenset[str]:
    """The fields of ``doc`` that take part in recognition: listed by a kind, not null
    (``outer.inner`` for a field inside an object, see
    :attr:`quizkit.model.entities.Kind.inner`)."""
    out = {k for k, v in doc.items() if k in _RECOGNISED and v is not None}
    for outer, names in _INNER_NAMES.items():
        value = doc.get(outer)
        if isinstance(value, dict):
            out.update(names[k] for k, v in value.items() if v is not None and k in names)
    return frozenset(out)


def fits(doc: dict) -> list[Fit]:
    """The kinds an object is eligible for, best first."""
    return _fits(_present(doc))


def _fits(present: frozenset[str]) -> list[Fit]:
    out = [Fit(len(present - s.shape), len(s.required - present), s.kind) for s in _SHAPES
           if len(present & s.fields) >= s.least]
    out.sort()
    return out


def kind_of_fields(present: frozenset[str], element: bool = False) -> str | None:
    """The kind of an object with these recognised fields (non-null), or None when they do
    not decide; ``element``: the object is an element of a top-level array."""
    if element:
        return _ARRAY_KIND.name if present.intersection(_ARRAY_KIND.marks) else None
    ranked = _fits(present)
    if not ranked:
        return None
    best = ranked[0]
    if len(ranked) > 1 and (ranked[1].foreign, ranked[1].missing) == (best.foreign,
                                                                       best.missing):
        return None  # a tie: the shape does not decide
    return best.kind


def detect_kind(doc: Any) -> str | None:
    """The document kind of ``doc``, or None when its shape does not decide one."""
    if isinstance(doc, list):
        if not doc or any(isinstance(v, dict) and kind_of_fields(_present(v), element=True)
                          for v in doc):
            return _ARRAY_KIND.name
        return None
    if not isinstance(doc, dict):
        return None
    return kind_of_fields(_present(doc))


#: The DuckDB type of :func:`shape_sql`'s value.
SHAPE_TYPE = "BOOLEAN[]"


def shape_sql(json: str) -> str:
    """SQL for which :data:`quizkit.model.entities.RECOGNISED` fields the JSON value ``json``
    has, not null: a boolean for each, in that order (an ``outer.inner`` field only inside an
    object), from the JSON types of all of them, read in one parse of the text."""
    paths = ", ".join("'$." + ".".join(f'"{part}"' for part in name.split(".")) + "'"
                      for name in RECOGNISED)
    return (f"list_transform(json_type({json}, [{paths}]), "
            "lambda t: t IS NOT NULL AND t <> 'NULL')")


def present_in_shape(flags: list[bool] | None) -> frozenset[str]:
    """The recognised fields a value of :func:`shape_sql` (as DuckDB returns it) says are
    present: not missing and not null, as :func:`_present` reads a parsed document."""
    return frozenset(name for name, here in zip(RECOGNISED, flags or (), strict=False) if here)


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


def _fields(kind: str, schemas: SchemaBook) -> frozenset[str]:
    """A kind's top-level fields and the fields of the objects directly under them."""
    root = schemas.registry.resolver(base_uri=schema_id(kind))
    props, resolver = _properties(schemas.schema(kind), root)
    fields = set(props)
    for sub in props.values():
        fields |= set(_properties(sub, resolver)[0])
    return frozenset(fields)


def _tied(doc: dict) -> list[str]:
    """The kinds that fit ``doc`` best, when several fit it equally well (else one or none)."""
    ranked = fits(doc)
    return [f.kind for f in ranked
            if (f.foreign, f.missing) == (ranked[0].foreign, ranked[0].missing)]


def closest_kinds(doc: Any, schemas: SchemaBook, limit: int = 3) -> list[str]:
    """The kinds closest to ``doc``, best first: the tied ones when the shape fits several
    equally, else those whose fields (and their objects' fields) overlap most with doc's."""
    if isinstance(doc, dict):
        tied = _tied(doc)
        if len(tied) > 1:
            return tied
        if not doc:
            return [k.name for k in _OBJECT_KINDS if k.request]
    if isinstance(doc, list):
        doc = next((v for v in doc if isinstance(v, dict)), {})
    if not isinstance(doc, dict) or not doc:
        return []
    keys = set(doc)
    scored = []
    for k in KINDS:
        fields = _fields(k.name, schemas)
        overlap = len(keys & fields)
        if overlap:
            scored.append((overlap / len(keys | fields), k.name))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [name for _, name in scored[:limit]]


def unknown_kind_message(doc: Any, schemas: SchemaBook) -> str:
    """The message of the finding for a document whose kind the shape does not decide (the
    kinds' fields read from ``schemas``)."""
    shape = shape_of(doc)
    if shape is not None:
        return f"cannot tell the document kind: it is {shape}, not an object or array"
    near = closest_kinds(doc, schemas)
    if not near:
        return ("cannot tell the document kind: none of its fields belongs to a kind "
                "(pass --kind KIND to check it as one)")
    if isinstance(doc, dict) and not doc:
        why = f"an empty object is valid as {' and as '.join(near)}"
    elif isinstance(doc, dict) and len(_tied(doc)) > 1:
        why = f"its fields fit {', '.join(near)} equally"
    else:
        why = f"closest: {', '.join(near)}"
    return f"cannot tell the document kind from its shape; {why} (pass --kind {near[0]} " \
           f"to check it as {near[0]})"
