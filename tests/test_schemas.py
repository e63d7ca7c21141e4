"""The bundled schemas: well-formed, self-contained, and loaded only from the package."""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin

import jsonschema
import pytest
import referencing.exceptions

from quizkit.model import entities as model
from quizkit.model import schemas
from tests.conftest import ROOT, cli

SCHEMA_FILES = sorted((ROOT / "schemas").rglob("*.json"))


def test_schemas_dir_holds_every_kind_and_record():
    names = {p.relative_to(ROOT / "schemas").as_posix() for p in SCHEMA_FILES}
    for kind in model.KIND_NAMES:
        assert f"documents/{kind}.json" in names
    for record in ("image", "user", "user-settings", "banner-payload", "banner", "package",
                   "package-full", "package-changes", "version", "version-full",
                   "version-created", "version-game", "round", "theme", "question", "step",
                   "step-payload", "author", "meta", "category-link", "game",
                   "game-history-entry", "enums"):
        assert f"records/{record}.json" in names


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_is_valid_draft_2020_12(path):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    rel = path.relative_to(ROOT / "schemas").as_posix()
    assert schema["$id"] == schemas.BASE_URI + rel
    assert schema["title"] and schema["description"]


def _refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for v in node.values():
            yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_refs_are_relative_and_resolve_in_the_bundle(path):
    schema = json.loads(path.read_text())
    resolver = schemas.SchemaBook().registry.resolver(base_uri=schema["$id"])
    for ref in _refs(schema):
        assert not re.match(r"^[a-z]+:", ref), f"absolute $ref {ref}"
        resolver.lookup(ref)  # raises if it does not resolve from the bundle


def test_every_enum_field_refers_to_the_one_enum_definition():
    enums = json.loads((ROOT / "schemas/records/enums.json").read_text())["$defs"]
    used = set()
    for path in SCHEMA_FILES:
        for ref in _refs(json.loads(path.read_text())):
            if "enums.json" in ref:
                used.add(ref.split("#/$defs/")[1])
    assert used == set(enums)
    assert len(enums) == 15  # the 14 enums of the interface and the chat platforms


def test_remote_refs_are_refused():
    with pytest.raises(referencing.exceptions.Unresolvable):
        schemas.SchemaBook().registry.resolver().lookup("https://example.com/other.json")


def test_dates_are_checked_by_the_reference_engine():
    bad = {"id": "b", "createdAt": "yesterday", "updatedAt": "2026-01-01T00:00:00Z",
           "userId": "u", "position": 0, "payload": {"type": "t", "value": "v", "color": "c"},
           "slot": "s", "current": True}
    found = schemas.SchemaBook().findings("banner", bad)
    assert [(r.name, p) for r, p, _ in found] == [("invalid-format", "/createdAt")]
    assert not schemas.SchemaBook().validator("banner").is_valid(bad)


def test_schema_list_and_show():
    listed = cli("schema", "list")
    assert listed.exit_code == 0
    for kind in model.KIND_NAMES:
        assert kind in listed.output
    shown = cli("schema", "show", "game")
    assert json.loads(shown.output)["$id"].endswith("documents/game.json")
    record = cli("schema", "show", "record:step-payload")
    assert json.loads(record.output)["title"] == "Step payload"
    missing = cli("schema", "show", "nope")
    assert missing.exit_code == 2 and "unknown schema" in missing.output


def _reachable(uri: str) -> list[tuple[str, dict]]:
    """Every subschema reachable from the bundled schema ``uri`` (through ``$ref`` too), with
    where it is."""
    bundle = schemas.bundled()
    seen: set[str] = set()
    out: list[tuple[str, dict]] = []

    def walk(node, base: str, where: str) -> None:
        if isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, base, f"{where}/{i}")
            return
        if not isinstance(node, dict):
            return
        out.append((where, node))
        ref = node.get("$ref")
        if isinstance(ref, str):
            target, _, pointer = urljoin(base, ref).partition("#")
            key = f"{target}#{pointer}"
            if key not in seen:
                seen.add(key)
                sub = bundle[target]
                for part in [p for p in pointer.split("/") if p]:
                    sub = sub[part]
                walk(sub, target, key)
        for name, value in node.items():
            if name not in ("$ref", "enum", "const", "examples", "required"):
                walk(value, base, f"{where}/{name}")

    walk(bundle[uri], uri, uri)
    return out


@pytest.mark.parametrize("kind", [k.name for k in model.KINDS if k.request])
def test_nothing_in_a_request_body_is_required_at_any_depth(kind):
    """Request bodies are partial updates: no object inside them requires a field."""
    reachable = _reachable(schemas.schema_id(kind))
    assert len(reachable) > 5
    requiring = [where for where, node in reachable if node.get("required")]
    assert not requiring


def test_a_required_field_deep_in_a_response_is_found():
    """The walk reaches nested records through ``$ref`` (so the test above can fail)."""
    reachable = _reachable(schemas.schema_id("user-self"))
    assert any("image.json" in where and node.get("required") for where, node in reachable)


def test_the_values_of_id_maps_are_any_json():
    """The interface does not show what ``idMaps`` holds: each map is an object of anything."""
    created = schemas.bundled()[schemas.schema_id("version-created")]
    for name, sub in created["properties"]["idMaps"]["properties"].items():
        assert set(sub) - {"type", "description", "title"} == set(), name
