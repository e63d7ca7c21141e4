"""The model of the export (quizkit/model/entities.py) agrees with the JSON Schemas where
they overlap, and the readers of ``load`` read only what the model knows.

tests/test_model_kinds.py checks each kind's fields, required fields and entities against
its schema; this adds the kinds themselves, the fields of a version, the enums, and the
DuckDB types of ``load`` (quizkit/analysis/readers.py), which are derived from the model.
"""

from __future__ import annotations

import json
import re

from quizkit.analysis import readers
from quizkit.model import entities as model
from quizkit.model.enums import enum_names
from tests.test_model_kinds import SCHEMAS, _object_schema, _property

STRUCT_FIELD = re.compile(r'"(\w+)" ')


def _struct_fields(sql_type: str) -> set[str]:
    """The field names at the first level of a DuckDB ``STRUCT(...)`` type (or list of one)."""
    body = sql_type.removesuffix("[]").removeprefix("STRUCT(")
    depth, top = 0, []
    for token in re.split(r"([()])", body):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0:
            top.append(token)
    return set(STRUCT_FIELD.findall("".join(top)))


def test_every_kind_has_its_schema_and_every_document_schema_a_kind() -> None:
    files = sorted(p.stem for p in (SCHEMAS / "documents").glob("*.json"))
    assert files == sorted(model.KIND_NAMES)


def test_every_version_has_the_model_s_version_head_as_required_fields() -> None:
    for k in model.KINDS:
        if k.versions is None:
            continue
        schema, where = _object_schema(SCHEMAS / k.schema)
        for key in k.versions:
            schema, where = _property(schema, where, key)
        assert set(model.VERSION_HEAD) <= set(schema["properties"]), k.name
        assert set(model.VERSION_HEAD) <= set(schema.get("required", ())), k.name


def test_the_model_s_enums_are_those_the_schemas_refer_to() -> None:
    referred = set()
    for path in SCHEMAS.rglob("*.json"):
        referred |= set(re.findall(r'enums\.json#/\$defs/(\w+)', path.read_text()))
    defined = json.loads((SCHEMAS / "records/enums.json").read_text())["$defs"]
    assert referred == set(defined) == set(enum_names())


def test_load_reads_only_fields_the_model_has() -> None:
    assert set(readers.TYPES) <= set(model.TOP_FIELDS), set(readers.TYPES) - set(model.TOP_FIELDS)
    assert list(readers.COLUMNS) == [f for f in model.TOP_FIELDS if f in readers.TYPES]
    assert set(readers.VERSION_FIELDS) <= set(model.VERSION_HEAD)
    assert set(readers.ENTITY_ARRAYS) == {e.key for e in model.VERSION_ENTITIES}


def test_load_s_record_types_name_fields_of_the_schemas() -> None:
    """Each struct ``load`` reads names fields its record's schema has (a misspelt field
    would be NULL for ever)."""
    full, where = _object_schema(SCHEMAS / model.kind("package-full").schema)
    version, vwhere = _property(full, where, "versions")
    self_, self_where = _object_schema(SCHEMAS / model.kind("user-self").schema)
    users = {"properties": {**_property(full, where, "user")[0]["properties"],
                            **_property(self_, self_where, "user")[0]["properties"]}}
    checked = {"versions": (version, _struct_fields(readers.VERSION)),
               "user": (users, _struct_fields(readers.USER)),  # an author or a profile
               "meta": (_property(full, where, "meta")[0], _struct_fields(readers.META))}
    for entity in model.VERSION_ENTITIES:
        record, _ = _property(version, vwhere, entity.key)
        checked[entity.key] = (record, _struct_fields(readers.ENTITY_ARRAYS[entity.key]))
    for name, (schema, fields) in checked.items():
        assert fields, name
        assert fields <= set(schema["properties"]), (name, fields - set(schema["properties"]))


def test_the_struct_reader_can_fail() -> None:
    assert _struct_fields('STRUCT("a" VARCHAR, "b" STRUCT("c" BIGINT))[]') == {"a", "b"}
