"""Proving schemas: the schemas with the warnings JSON Schema can express added as constraints.

Some of quizkit's warnings are about values the schemas accept: a fractional count, a blank
media source, a blank or repeated answer variant (a warning is not a schema error, so the
schemas themselves cannot refuse them). JSON Schema can say each one: ``"type": "integer"``
for every count, a pattern that a blank string cannot match, ``uniqueItems``. The proving
schemas are the fast engine's schemas with those constraints added (:data:`PROOFS`). A
document valid under its kind's proving schema is therefore

- valid under its kind's schema: constraints were only added, and no keyword that could turn
  a failed constraint into an acceptance (:data:`WIDENING`) appears in the schemas, or there
  are no proving schemas at all (:func:`proving_schemas` gives ``None``);
- free of what those warnings look for, wherever the schemas reach.

So on a clean document one pass of the compiled engine (in place of the schema's own) also
clears the rules ``fractional-count``, ``media-without-src``, ``empty-variant`` and
``duplicate-variant`` (:attr:`quizkit.rules.navigate.DocumentFacts.proven`), which would
otherwise walk every count and every step in Python. A document that fails it is checked as
before: its schema verdict and findings come from the schemas themselves, and those rules
walk it.
"""

from __future__ import annotations

import copy
from typing import Any

from quizkit.catalog.pointers import split_pointer

#: Matches a string that holds a visible ASCII character: such a string is not blank for
#: ``str.strip`` (a regex's ``\\s`` knows fewer whitespace characters than ``str.strip``
#: does, so a pattern of "not only whitespace" could pass a string the rules call blank).
NOT_BLANK = "[!-~]"

_COMMON = "records/common.json"
_PAYLOAD = "records/step-payload.json"

#: (schema, JSON Pointer in it, constraints added there).
PROOFS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    # every count, position, price, duration, size, starts or slots value: fractional-count
    (_COMMON, "/$defs/count", {"type": "integer"}),
    # a step's media and background media: media-without-src
    (_PAYLOAD, "/properties/media/anyOf/0/properties/src", {"pattern": NOT_BLANK}),
    (_PAYLOAD, "/properties/backgroundMedia/anyOf/0/properties/src", {"pattern": NOT_BLANK}),
    # a step's answer variants: duplicate-variant, empty-variant
    (_PAYLOAD, "/properties/variants", {"uniqueItems": True}),
    (_PAYLOAD, "/properties/variants/items", {"pattern": NOT_BLANK}),
)

#: Keywords under which an added constraint could make a schema accept more, not less.
WIDENING = frozenset({"not", "oneOf", "if", "maxContains"})


def widening(node: Any) -> bool:
    """Whether a schema (any JSON value) holds a keyword of :data:`WIDENING`."""
    if isinstance(node, dict):
        return not WIDENING.isdisjoint(node) or any(widening(v) for v in node.values())
    if isinstance(node, list):
        return any(widening(v) for v in node)
    return False


def proving_schemas(schemas: dict[str, dict], base_uri: str) -> dict[str, dict] | None:
    """A copy of ``schemas`` (by ``$id``, each ``base_uri`` + a path of :data:`PROOFS`) with
    :data:`PROOFS` added; None when a schema holds a :data:`WIDENING` keyword (then nothing
    is proved). A constraint whose place is missing raises KeyError: the proofs and the
    schemas are changed together."""
    if any(widening(s) for s in schemas.values()):
        return None
    out = dict(schemas)
    for path, pointer, constraints in PROOFS:
        uri = base_uri + path
        if out[uri] is schemas[uri]:
            out[uri] = copy.deepcopy(schemas[uri])
        node = out[uri]
        for token in split_pointer(pointer):
            node = node[int(token)] if isinstance(node, list) else node[token]
        for keyword, value in constraints.items():
            if keyword in node:
                node.setdefault("allOf", []).append({keyword: value})
            else:
                node[keyword] = value
    return out
