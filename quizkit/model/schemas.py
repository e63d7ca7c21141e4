"""The bundled schema registry, compiled validators, and schema errors turned into findings.

Schemas are read from the package (``quizkit/schemas``) and every ``$ref`` is resolved from
them alone: a reference to anything else, http(s) included, is refused, never fetched.

Two engines run the same schemas. jsonschema-rs (compiled) answers "is this document valid?"
on the hot path; python-jsonschema, the reference implementation, explains the documents that
are not, so every finding's rule, pointer and message come from one well-known engine.

python-jsonschema and referencing are imported, and the reference validators built, only when
a document is invalid: a run over clean files never loads them (start-up time, and memory in
every worker). ``tests/test_parity.py`` checks that both engines agree on every verdict.

Everything compiled lives in a :class:`SchemaBook`, one per enum profile, made where a run's
settings are resolved and passed to what needs it; nothing is kept in this module.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

import jsonschema_rs
import orjson

from quizkit.catalog.findings import VALUE_LIMIT, cut, json_list, json_text
from quizkit.catalog.pointers import escape_token, join_pointer
from quizkit.catalog.rule import Rule
from quizkit.catalog.schema_rules import rule_for_keyword
from quizkit.model.entities import KIND_NAMES
from quizkit.model.proofs import proving_schemas

if TYPE_CHECKING:
    import jsonschema
    import referencing
    from jsonschema.exceptions import ValidationError

BASE_URI = "https://quizkit.dev/schemas/v1/"
ENUMS_ID = f"{BASE_URI}records/enums.json"


class SchemaRefused(Exception):
    """A ``$ref`` pointed outside the bundled schemas."""


def bundled() -> dict[str, dict]:
    """Every bundled schema, by ``$id``, read from the package (about 3 ms; a run reads them
    once, for its :class:`SchemaBook`)."""
    root = resources.files("quizkit") / "schemas"
    out: dict[str, dict] = {}
    for sub in ("records", "documents"):
        for entry in sorted((root / sub).iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                schema = orjson.loads(entry.read_bytes())
                out[schema["$id"]] = schema
    return out


def enum_definitions() -> dict[str, dict]:
    """The enums' definitions (``$defs`` of the enums schema), read alone: a profile is
    checked against their names before the run's :class:`SchemaBook` reads the bundle."""
    path = resources.files("quizkit") / "schemas" / ENUMS_ID.removeprefix(BASE_URI)
    return orjson.loads(path.read_bytes())["$defs"]


def schema_id(kind: str) -> str:
    return f"{BASE_URI}documents/{kind}.json"


def _refuse(uri: str) -> referencing.Resource:
    raise SchemaRefused(f"refusing to resolve {uri!r}: only bundled schemas are used")


#: An enum profile: (enum name, allowed values) pairs; empty when enums are open.
Profile = tuple[tuple[str, tuple[str, ...]], ...]


def apply_profile(schemas: dict[str, dict], profile: Profile) -> dict[str, dict]:
    """A copy of the bundled schemas with the profile's enums closed."""
    if not profile:
        return schemas
    out = dict(schemas)
    enums = copy.deepcopy(out[ENUMS_ID])
    for name, values in profile:
        enums["$defs"][name]["enum"] = list(values)
        enums["$defs"][name]["description"] = (
            enums["$defs"][name]["description"].split(" Open:", 1)[0]
            + " Closed by an enum profile."
        )
    out[ENUMS_ID] = enums
    return out


def _registry_of(schemas: dict[str, dict]) -> referencing.Registry:
    import referencing
    from referencing.jsonschema import DRAFT202012

    resources_ = [(uri, DRAFT202012.create_resource(s)) for uri, s in schemas.items()]
    return referencing.Registry(retrieve=_refuse).with_resources(resources_).crawl()


def refuse_retrieval(uri: str) -> Any:
    """jsonschema-rs's retriever: every reference outside the bundle is refused."""
    raise SchemaRefused(f"refusing to resolve {uri!r}: only bundled schemas are used")


#: ``format: date-time`` is RFC 3339's ``date-time`` (section 5.6): ``T`` or ``t``, ``Z`` or
#: ``z`` or an offset with a colon, any number of fractional digits, years 0000-9999, and a
#: leap second (second 60) where the UTC time is 23:59, as ajv-formats has it. Neither engine
#: has exactly this (python-jsonschema's rfc3339-validator refuses a leap second and year
#: 0000 and lets a trailing newline through; jsonschema-rs 0.60 takes ``+``, ``,`` or ``.`` in
#: digit places and second 60 at any time), so the reference gets :func:`is_date_time` as its
#: checker, and the fast engine's copy of the schemas adds :data:`DATE_TIME_PATTERN` beside
#: every ``"format": "date-time"`` (the calendar is still checked by the format). The fast
#: engine takes a leap second only with a UTC offset; others go to the reference, which
#: decides. tests/test_date_time.py holds the cases, checked against ajv-formats too.
_DIGITS = "[0-9]"
_ZONE = "([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
DATE_TIME_PATTERN = (
    rf"^{_DIGITS}{{4}}-(0[1-9]|1[0-2])-{_DIGITS}{{2}}[Tt]"
    rf"(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.{_DIGITS}+)?{_ZONE}"
    rf"|23:59:60(\.{_DIGITS}+)?([Zz]|[+-]00:00))$"
)
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_date_time(value: Any) -> bool:
    """An RFC 3339 date-time (see above); anything that is not a string passes (a format
    only speaks of strings)."""
    if not isinstance(value, str):
        return True
    m = _DATE_TIME.fullmatch(value)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    leap_year = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1] + (month == 2 and leap_year):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = 0
    if m.group(7):
        off_hour, off_minute = int(m.group(8)), int(m.group(9))
        if off_hour > 23 or off_minute > 59:
            return False
        offset = (off_hour * 60 + off_minute) * (1 if m.group(7) == "+" else -1)
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


def format_checker() -> jsonschema.FormatChecker:
    """python-jsonschema's format checker, with quizkit's ``date-time``."""
    import jsonschema

    checker = jsonschema.FormatChecker()
    checker.checks("date-time")(is_date_time)
    return checker


#: The formats whose fast check is known to agree with the reference (with the fix above).
FAST_FORMATS = frozenset({"date-time"})


def fast_schema(schema: Any) -> Any:
    """A copy of ``schema`` for the fast engine: date-time formats get the reference's grammar."""
    if isinstance(schema, list):
        return [fast_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: fast_schema(v) for k, v in schema.items()}
    if out.get("format") == "date-time":
        if "pattern" in out:
            out["allOf"] = [*out.get("allOf", []), {"pattern": DATE_TIME_PATTERN}]
        else:
            out["pattern"] = DATE_TIME_PATTERN
    return out


@dataclass
class KindValidator:
    """The validators of one document kind: fast (compiled now), reference (on first use)."""

    kind: str
    fast: Any  # jsonschema_rs validator
    book: SchemaBook = field(repr=False)
    _reference: jsonschema.Draft202012Validator | None = field(default=None, repr=False)
    _explainer: jsonschema.Draft202012Validator | None = field(default=None, repr=False)
    #: jsonschema-rs over the kind's proving schema (:mod:`quizkit.model.proofs`), or None.
    proving: Any = field(default=None, repr=False)

    @property
    def reference(self) -> jsonschema.Draft202012Validator:
        """python-jsonschema, as is: the reference verdict and errors."""
        if self._reference is None:
            self._reference = self.book.reference_validator(self.kind)
        return self._reference

    @property
    def explainer(self) -> jsonschema.Draft202012Validator:
        """python-jsonschema that skips the values the fast engine finds valid (same errors)."""
        if self._explainer is None:
            self._explainer = self.book.explaining_validator(self.kind)
        return self._explainer

    def is_valid(self, doc: Any) -> bool:
        return self.fast.is_valid(doc)

    def proves(self, doc: Any) -> bool:
        """Whether ``doc`` passes the kind's proving schema: then it is valid, and the rules
        the proofs name have nothing to find in it. False says nothing."""
        return self.proving is not None and self.proving.is_valid(doc)

    def errors(self, doc: Any) -> Iterator[ValidationError]:
        """The reference engine's errors for ``doc`` (in no particular order)."""
        return self.explainer.iter_errors(doc)


# --- explaining invalid documents quickly --------------------------------------------------
#
# python-jsonschema walks the whole document (~2 MB/s): 70 ms for one 150 KB package with
# a single wrong value. The explainer is python-jsonschema with its descending keywords
# wrapped: before descending into a child value it asks jsonschema-rs (a validator compiled
# for that very subschema) whether the child is valid, and skips it if so. A skipped child
# would have given no errors (the fast engine never accepts what the reference rejects), so
# the errors are the reference's own, found by walking only the invalid branches.

#: Keywords that apply subschemas to child values (where pruning pays).
#: The explainer's schemas are the bundled ones without ``$schema`` at their roots (the
#: same objects below): python-jsonschema picks the validator class from ``$schema`` when
#: it follows a ``$ref``, which would drop the pruning class.
_DESCENDING = ("properties", "additionalProperties", "patternProperties", "items",
               "prefixItems")


def _schema_nodes(node: Any, where: str = "") -> Iterator[tuple[str, dict]]:
    """(JSON Pointer, subschema) for every object in a schema document."""
    if isinstance(node, dict):
        yield where, node
        items: Iterable[tuple[Any, Any]] = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return
    for key, value in items:
        yield from _schema_nodes(value, where + "/" + escape_token(key))


class _SkipValid:
    """Stands in for the validator given to a keyword: ``descend`` skips valid children."""

    __slots__ = ("_fast", "_validator")

    def __init__(self, validator: Any, fast: dict[int, Any]) -> None:
        self._validator = validator
        self._fast = fast

    def __getattr__(self, name: str) -> Any:
        return getattr(self._validator, name)

    def descend(self, instance: Any, schema: Any, path: Any = None, schema_path: Any = None,
                resolver: Any = None) -> Iterator[ValidationError]:
        fast = self._fast.get(id(schema))
        if fast is not None and fast.is_valid(instance):
            return iter(())
        return self._validator.descend(instance, schema, path=path, schema_path=schema_path,
                                       resolver=resolver)


def _pruned_class(fast: dict[int, Any]) -> Any:
    """python-jsonschema's validator class whose descending keywords skip valid children
    (``fast``: ``id(subschema)`` → a jsonschema-rs validator for it)."""
    import jsonschema.validators

    base = jsonschema.Draft202012Validator

    def pruned(keyword: Any) -> Any:
        def apply(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
            return keyword(_SkipValid(validator, fast), value, instance, schema)
        return apply

    wrapped = {k: pruned(base.VALIDATORS[k]) for k in _DESCENDING}
    return jsonschema.validators.extend(base, wrapped)


Raw = tuple[Rule, str, str]

#: The attribute under which a long-lived host (a worker process, a Dask worker) keeps its
#: book (:meth:`SchemaBook.kept_by`).
HOST_ATTRIBUTE = "quizkit_schemas"


class SchemaBook:
    """The schemas of one enum profile and everything compiled from them: the registries of
    both engines, the fast validator of each kind (compiled on first use), and the reference
    engine and explainer (built only when a document is invalid). Each is made once and kept
    on the book.

    A run makes one book where its settings are resolved (:mod:`quizkit.checks.runner`) and the
    engine passes it to every check. Workers of ``--jobs N`` inherit the run's by fork,
    compiled before it (:meth:`warm`); a Dask worker keeps one for all its tasks
    (:meth:`kept_by`). Nothing is kept elsewhere: two books share nothing, and dropping a book
    frees what it compiled. A book pickles as its profile (compiled validators do not
    pickle); the copy compiles again, on first use.
    """

    def __init__(self, profile: Profile = ()) -> None:
        self.profile = profile
        self._validators: dict[str, KindValidator] = {}

    def __reduce__(self) -> tuple[type[SchemaBook], tuple[Profile]]:
        return SchemaBook, (self.profile,)

    def __repr__(self) -> str:
        return f"SchemaBook({self.profile!r})"

    @cached_property
    def schemas(self) -> dict[str, dict]:
        """The bundled schemas, by ``$id``, with the profile's enums closed."""
        return apply_profile(bundled(), self.profile)

    def schema(self, kind: str) -> dict:
        """The schema of a document kind."""
        return self.schemas[schema_id(kind)]

    @cached_property
    def registry(self) -> referencing.Registry:
        """The schemas as a ``referencing`` registry (for python-jsonschema)."""
        return _registry_of(self.schemas)

    @cached_property
    def _fast_schemas(self) -> dict[str, dict]:
        return {uri: fast_schema(s) for uri, s in self.schemas.items()}

    @cached_property
    def _rs_registry(self) -> jsonschema_rs.Registry:
        return jsonschema_rs.Registry(list(self._fast_schemas.items()),
                                      retriever=refuse_retrieval)

    @cached_property
    def _proving_schemas(self) -> dict[str, dict] | None:
        return proving_schemas(self._fast_schemas, BASE_URI)

    @cached_property
    def _proving_registry(self) -> jsonschema_rs.Registry:
        assert self._proving_schemas is not None
        return jsonschema_rs.Registry(list(self._proving_schemas.items()),
                                      retriever=refuse_retrieval)

    @cached_property
    def _explain_schemas(self) -> dict[str, dict]:
        return {uri: {k: v for k, v in s.items() if k != "$schema"}
                for uri, s in self.schemas.items()}

    @cached_property
    def _explain_registry(self) -> referencing.Registry:
        return _registry_of(self._explain_schemas)

    @cached_property
    def _subschema_validators(self) -> dict[int, Any]:
        """``id(subschema)`` (the explainer's schema objects) → a jsonschema-rs validator."""
        out: dict[int, Any] = {}
        for uri, schema in self._explain_schemas.items():
            compiled = jsonschema_rs.validator_map_for(
                self._fast_schemas[uri], registry=self._rs_registry, validate_formats=True,
                retriever=refuse_retrieval)
            for where, node in _schema_nodes(schema):
                v = compiled.get("#" + where)
                if v is not None:
                    out[id(node)] = v
        return out

    @cached_property
    def _pruning_class(self) -> Any:
        return _pruned_class(self._subschema_validators)

    def fast_validator(self, kind: str) -> Any:
        """A new jsonschema-rs validator for a document kind (formats asserted, no network)."""
        return jsonschema_rs.Draft202012Validator(
            self._fast_schemas[schema_id(kind)], validate_formats=True,
            registry=self._rs_registry, retriever=refuse_retrieval)

    def proving_validator(self, kind: str) -> Any | None:
        """A new jsonschema-rs validator of a kind's proving schema, or None (no proofs)."""
        if self._proving_schemas is None:
            return None
        return jsonschema_rs.Draft202012Validator(
            self._proving_schemas[schema_id(kind)], validate_formats=True,
            registry=self._proving_registry, retriever=refuse_retrieval)

    def reference_validator(self, kind: str) -> jsonschema.Draft202012Validator:
        """A new python-jsonschema validator for a document kind (format assertion on)."""
        import jsonschema

        return jsonschema.Draft202012Validator(self.schema(kind), registry=self.registry,
                                               format_checker=format_checker())

    def explaining_validator(self, kind: str) -> jsonschema.Draft202012Validator:
        """A new explainer (python-jsonschema that skips valid children) for a kind."""
        return self._pruning_class(self._explain_schemas[schema_id(kind)],
                                   registry=self._explain_registry,
                                   format_checker=format_checker())

    def validator(self, kind: str) -> KindValidator:
        """The validators of a document kind, compiled once for this book."""
        found = self._validators.get(kind)
        if found is None:
            found = self._validators[kind] = KindValidator(
                kind, self.fast_validator(kind), self, proving=self.proving_validator(kind))
        return found

    def warm(self) -> SchemaBook:
        """Compile every kind's fast and proving validators now (before forking workers,
        which share them)."""
        for kind in KIND_NAMES:
            self.validator(kind)
        return self

    def findings(self, kind: str, doc: Any) -> list[Raw]:
        """Every schema problem of one document as (rule, pointer, message), in document
        order."""
        return list(self.iter_findings(kind, doc))

    def iter_findings(self, kind: str, doc: Any) -> Iterator[Raw]:
        """:meth:`findings` one at a time (a caller may keep only the first of very many)."""
        v = self.validator(kind)
        if v.is_valid(doc):
            return
        for error in v.errors(doc):
            yield from _explain(error)

    def keep_on(self, host: object) -> SchemaBook:
        """Keep this book on ``host`` (see :meth:`kept_by`)."""
        setattr(host, HOST_ATTRIBUTE, self)
        return self

    @classmethod
    def kept_by(cls, host: object, profile: Profile) -> SchemaBook:
        """The book that ``host``, an object living as long as its worker process (the
        process itself, a Dask worker), keeps for ``profile``: made and kept on first use,
        so a worker compiles once, not once per task."""
        book = getattr(host, HOST_ATTRIBUTE, None)
        if not isinstance(book, cls) or book.profile != profile:
            book = cls(profile).keep_on(host)
        return book


def _explain(error: ValidationError) -> list[Raw]:
    """(rule, pointer, message) for one schema error, descending into anyOf/oneOf.

    Values from the input are written as JSON and cut to a readable length; an unknown field
    gets a finding of its own that points at it.
    """
    from jsonschema.exceptions import best_match

    where = join_pointer(error.absolute_path)
    if error.validator in ("anyOf", "oneOf") and error.context:
        # An alternative whose type matched explains best (a bad date-time string in a
        # nullable field is a format problem); when no type matched, list the types.
        matched_type = [e for e in error.context if e.validator != "type"]
        if matched_type:
            return _explain(best_match(matched_type))
        expected = sorted({t for e in error.context for t in _types(e.validator_value)})
        return [(rule_for_keyword("type"), where, _type_message(error.instance, expected))]
    keyword = str(error.validator)
    rule = rule_for_keyword(keyword)
    if keyword in ("additionalProperties", "unevaluatedProperties") and \
            isinstance(error.instance, dict):
        listed = error.schema.get("properties", {})
        return [(rule, where + "/" + escape_token(key), f"unknown field {json_text(key)}")
                for key in error.instance if key not in listed]
    return [(rule, where, _message(keyword, error))]


def _types(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _type_message(instance: Any, expected: list[str]) -> str:
    return f"{json_text(instance)} is not of type {json_list(expected, sep=' or ')}"


def _message(keyword: str, error: ValidationError) -> str:
    """The message for one failing keyword, in JSON terms."""
    value, instance = error.validator_value, error.instance
    if keyword == "type":
        return _type_message(instance, _types(value))
    if keyword == "required":
        # python-jsonschema gives one error per missing field: "'name' is a required property"
        missing = next((n for n in value if error.message.startswith(f"{n!r} is")), None)
        return f"missing required field {json_text(missing)}"
    if keyword == "enum":
        return _enum_message(instance, value)
    if keyword == "const":
        return f"{json_text(instance)} is not {json_text(value)}"
    if keyword == "format":
        return f"{json_text(instance)} is not a valid {value}"
    if keyword in _BOUNDS:
        return f"{json_text(instance)} is {_BOUNDS[keyword]} {json_text(value)}"
    return cut(error.message, 4 * VALUE_LIMIT)


_BOUNDS = {"minimum": "less than the minimum of",
           "exclusiveMinimum": "not greater than the exclusive minimum of",
           "maximum": "greater than the maximum of",
           "exclusiveMaximum": "not less than the exclusive maximum of"}

#: With more allowed values than this, a near miss is looked for by case only (difflib over
#: a profile of 100,000 values would take a second per finding).
_FUZZY_LIMIT = 1000


def _enum_message(value: Any, allowed: list) -> str:
    """Name a few allowed values, and a near miss when there is one (case, a typo)."""
    import difflib

    message = f"{json_text(value)} is not one of {json_list(allowed)}"
    if isinstance(value, str) and len(value) <= VALUE_LIMIT:
        strings = [a for a in allowed if isinstance(a, str)]
        near = [a for a in strings if a.lower() == value.lower()]
        if not near and len(strings) <= _FUZZY_LIMIT:
            near = difflib.get_close_matches(value, strings, n=1, cutoff=0.6)
        if near:
            message += f"; did you mean {json_text(near[0])}?"
    return message

