"""The bundled schema registry, compiled validators, and schema errors turned into findings.

Schemas are read from the package (``quizkit/schemas``) and every ``$ref`` is resolved from
them alone: a reference to anything else, http(s) included, is refused, never fetched.

Two engines run the same schemas. jsonschema-rs (compiled) answers "is this document valid?"
on the hot path; python-jsonschema, the reference implementation, explains the documents that
are not, so every finding's rule, pointer and message come from one well-known engine.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
import jsonschema_rs
import orjson
import referencing
import referencing.exceptions
from jsonschema.exceptions import ValidationError, best_match
from referencing.jsonschema import DRAFT202012

from quizkit.rules.catalog import Rule
from quizkit.rules.schema_rules import rule_for_keyword

BASE_URI = "https://quizkit.dev/schemas/v1/"
KINDS = ("package-full", "version-list", "version", "version-created", "game",
         "user-self", "user-update", "banner", "banner-create")


class SchemaRefused(Exception):
    """A ``$ref`` pointed outside the bundled schemas."""


@cache
def bundled() -> dict[str, dict]:
    """Every bundled schema, by ``$id``."""
    root = resources.files("quizkit") / "schemas"
    out: dict[str, dict] = {}
    for sub in ("records", "documents"):
        for entry in sorted((root / sub).iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                schema = orjson.loads(entry.read_bytes())
                out[schema["$id"]] = schema
    return out


def schema_id(kind: str) -> str:
    return f"{BASE_URI}documents/{kind}.json"


def _refuse(uri: str) -> referencing.Resource:
    raise SchemaRefused(f"refusing to resolve {uri!r}: only bundled schemas are used")


#: An enum profile: (enum name, allowed values) pairs; empty when enums are open.
Profile = tuple[tuple[str, tuple[str, ...]], ...]


@cache
def schema_set(profile: Profile = ()) -> dict[str, dict]:
    """The bundled schemas with a profile's enums closed (the bundle itself when empty)."""
    from quizkit.enums import apply_profile

    return apply_profile(bundled(), profile)


@cache
def registry(profile: Profile = ()) -> referencing.Registry:
    resources_ = [(uri, DRAFT202012.create_resource(s)) for uri, s in schema_set(profile).items()]
    return referencing.Registry(retrieve=_refuse).with_resources(resources_).crawl()


def _rs_refuse(uri: str) -> Any:
    raise SchemaRefused(f"refusing to resolve {uri!r}: only bundled schemas are used")


@dataclass
class KindValidator:
    """The compiled validators of one document kind."""

    kind: str
    fast: Any  # jsonschema_rs validator
    reference: jsonschema.Draft202012Validator

    def is_valid(self, doc: Any) -> bool:
        return self.fast.is_valid(doc)

    def errors(self, doc: Any) -> Iterator[ValidationError]:
        return self.reference.iter_errors(doc)


@cache
def validator(kind: str, profile: Profile = ()) -> KindValidator:
    """Compile (once per kind and profile) the validators for a document kind."""
    schemas = schema_set(profile)
    schema = schemas[schema_id(kind)]
    rs_registry = jsonschema_rs.Registry(
        [(uri, s) for uri, s in schemas.items()], retriever=_rs_refuse
    )
    fast = jsonschema_rs.Draft202012Validator(
        schema, validate_formats=True, registry=rs_registry, retriever=_rs_refuse
    )
    reference = jsonschema.Draft202012Validator(
        schema,
        registry=registry(profile),
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )
    return KindValidator(kind, fast, reference)


def pointer(parts: Any) -> str:
    """A JSON Pointer (RFC 6901) from path parts."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _explain(error: ValidationError) -> tuple[Rule, str, str]:
    """(rule, pointer, message) for one schema error, descending into anyOf/oneOf."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        # An alternative whose type matched explains best (a bad date-time string in a
        # nullable field is a format problem); when no type matched, list the types.
        matched_type = [e for e in error.context if e.validator != "type"]
        if matched_type:
            return _explain(best_match(matched_type))
        expected = ", ".join(sorted({str(e.validator_value) for e in error.context}))
        return (rule_for_keyword("type"), pointer(error.absolute_path),
                f"{_short(error.instance)} is not of type {expected}")
    keyword = str(error.validator)
    rule = rule_for_keyword(keyword)
    where = pointer(error.absolute_path)
    if keyword == "required":
        missing = _quoted_name(error.message)
        return rule, where, f"missing required field {missing}"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        names = ", ".join(repr(e) for e in extra)
        return rule, where, f"unknown field{'s' if len(extra) > 1 else ''} {names}"
    if keyword == "enum":
        return rule, where, _enum_message(error.instance, error.validator_value)
    if keyword == "format":
        return rule, where, f"{_short(error.instance)} is not a valid {error.validator_value}"
    return rule, where, error.message


def _enum_message(value: Any, allowed: list) -> str:
    """Name the allowed values, and a near miss when there is one (case, a typo)."""
    message = f"{_short(value)} is not one of {', '.join(map(repr, allowed))}"
    if isinstance(value, str):
        strings = [a for a in allowed if isinstance(a, str)]
        near = [a for a in strings if a.lower() == value.lower()] or \
            difflib.get_close_matches(value, strings, n=1, cutoff=0.6)
        if near:
            message += f"; did you mean {near[0]!r}?"
    return message


def _quoted_name(message: str) -> str:
    # python-jsonschema: "'name' is a required property"
    return message.split(" is a required property", 1)[0]


def _short(value: Any, limit: int = 60) -> str:
    text = orjson.dumps(value).decode() if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def schema_findings(kind: str, doc: Any, profile: Profile = ()) -> list[tuple[Rule, str, str]]:
    """Every schema problem of one document as (rule, pointer, message), in document order."""
    v = validator(kind, profile)
    if v.is_valid(doc):
        return []
    out = []
    for error in v.errors(doc):
        rule, where, message = _explain(error)
        if rule.name == "unknown-field" and error.validator == "additionalProperties":
            # One finding per unknown key, pointing at the key's value.
            extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
            for key in extra:
                out.append((rule, where + pointer([key]), f"unknown field {key!r}"))
            continue
        out.append((rule, where, message))
    return out
