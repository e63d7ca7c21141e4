"""Rules for JSON Schema errors: every schema keyword maps to one rule."""

from __future__ import annotations

from quizkit.catalog.findings import Severity
from quizkit.catalog.rule import Rule, rule

GROUP = "schema"

TYPE = rule(
    "S001", "wrong-type", Severity.ERROR,
    "A value has the wrong JSON type.",
    "Each field of the interface has one JSON type: a string, a number, a boolean, an object or "
    "an array. State indicators such as `deletedAt` may also be null.",
    bad='{"position": "1"}', good='{"position": 1}', group=GROUP,
)
REQUIRED = rule(
    "S002", "missing-field", Severity.ERROR,
    "A field the interface lists for this record is missing.",
    "Every field a response record lists is required (DESIGN.md: no field carries the `?` mark). "
    "Request bodies (`user-update`, `banner-create`) have no required fields.",
    bad='{"id": "r1", "name": "Warm-up"}   # round without type and position',
    good='{"id": "r1", "name": "Warm-up", "type": "regular", "position": 0}', group=GROUP,
)
UNKNOWN_FIELD = rule(
    "S003", "unknown-field", Severity.WARNING,
    "A field the interface does not list.",
    "Schemas are closed: they list exactly the interface's fields. A field they do not list is "
    "a warning, not an error, so that a service adding a field does not break every pipeline. "
    "A `versionId` on an entity of a version list is caught this way.",
    bad='{"id": "r1", "name": "Warm-up", "type": "regular", "position": 0, "colour": "red"}',
    good='{"id": "r1", "name": "Warm-up", "type": "regular", "position": 0}', group=GROUP,
)
FORMAT = rule(
    "S004", "invalid-format", Severity.ERROR,
    "A string does not have its declared format (date-time).",
    "ISO 8601 date-time fields are checked as RFC 3339 date-times: a date, a `T`, a time and an "
    "offset or `Z`. `User.createdAt` is a plain string and is not checked.",
    bad='{"createdAt": "22/11/2026"}', good='{"createdAt": "2026-11-22T10:15:00Z"}',
    group=GROUP,
)
ENUM = rule(
    "S005", "unknown-enum-value", Severity.ERROR,
    "A value outside the allowed values of an enum.",
    "The interface names enum-typed fields but not their values, so enums accept any string by "
    "default. With an enum profile (`--profile`), a value outside the profile is a finding.",
    bad='{"difficulty": "meduim"}   # profile allows easy, medium, hard',
    good='{"difficulty": "medium"}', group=GROUP,
)
RANGE = rule(
    "S006", "out-of-range", Severity.ERROR,
    "A number below its minimum, such as a negative count, price, position or size.",
    "Counts, positions, prices, durations, sizes, starts and slots cannot be negative.",
    bad='{"price": -100}', good='{"price": 100}', group=GROUP,
)
ALTERNATIVES = rule(
    "S007", "no-matching-alternative", Severity.ERROR,
    "A value matches none of the shapes allowed for it.",
    "Some fields allow several shapes, for example `pkgsLanguages` (one language or an array of "
    "them). The value matches none.",
    bad='{"pkgsLanguages": 5}', good='{"pkgsLanguages": ["en", "fr"]}', group=GROUP,
)
PROPERTY_NAME = rule(
    "S008", "invalid-key", Severity.ERROR,
    "An object key that is not allowed, such as an unknown chat platform in `membership`.",
    "Objects whose keys are values of an enum (membership flags) check their keys against it.",
    bad='{"membership": {"": true}}', good='{"membership": {"discord": true}}', group=GROUP,
)
OTHER = rule(
    "S009", "schema-violation", Severity.ERROR,
    "Any other JSON Schema constraint.",
    "A schema keyword without a rule of its own failed; the message says which.",
    bad="", good="", group=GROUP,
)

_BY_KEYWORD: dict[str, Rule] = {
    "type": TYPE,
    "required": REQUIRED,
    "additionalProperties": UNKNOWN_FIELD,
    "unevaluatedProperties": UNKNOWN_FIELD,
    "format": FORMAT,
    "enum": ENUM,
    "const": ENUM,
    "minimum": RANGE,
    "exclusiveMinimum": RANGE,
    "maximum": RANGE,
    "exclusiveMaximum": RANGE,
    "anyOf": ALTERNATIVES,
    "oneOf": ALTERNATIVES,
    "propertyNames": PROPERTY_NAME,
}


def rule_for_keyword(keyword: str) -> Rule:
    """The rule a failing schema keyword maps to."""
    return _BY_KEYWORD.get(keyword, OTHER)
