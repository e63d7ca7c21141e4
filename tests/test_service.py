"""The service mapping: findings → validation blocks of the interface's shape, entities
resolved from pointers at every depth, blocks valid against quizkit's own schema."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from quizkit.catalog.findings import Severity
from quizkit.checks.engine import check_document
from quizkit.model.entities import version_sites
from quizkit.model.schemas import BASE_URI, SchemaBook
from quizkit.model.service_names import ServiceNames, ServiceTableError, names_from_table
from quizkit.reporters.service_blocks import (
    SimpleFinding,
    blocks_for_document,
    merge_blocks,
    raw_findings,
    resolve,
)
from tests.conftest import SAMPLES

VALIDATION_ID = f"{BASE_URI}records/validation.json"


def load(name: str):
    return json.loads((SAMPLES / name).read_text())


def validation_validator(profile=()) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": VALIDATION_ID},
                                           registry=SchemaBook(profile).registry)


def assert_block_shape(block: dict, profile=()) -> None:
    assert set(block) == {"packageId", "versionId", "validation"}
    assert set(block["validation"]) == {"results", "timestamp"}
    errors = list(validation_validator(profile).iter_errors(block["validation"]))
    assert errors == [], [e.message for e in errors]


# --- entity resolution ----------------------------------------------------------------------

PKG = load("package-full.json")
GAME = load("game.json")
LIST = load("version-list.json")
ONE = load("version.json")
CREATED = load("version-created.json")


def expected_id(doc, path: list) -> str:
    node = doc
    for step in path:
        node = node[step]
    return node["id"]


# (kind, doc, pointer, entity, path to the entity's object, versions concerned)
RESOLUTION = [
    # package-full: every depth of a version, and the package around it
    ("package-full", PKG, "/versions/1", "version", ["versions", 1], [1]),
    ("package-full", PKG, "/versions/1/published", "version", ["versions", 1], [1]),
    ("package-full", PKG, "/versions/1/changes/i18n/image/src", "version", ["versions", 1], [1]),
    ("package-full", PKG, "/versions/1/rounds", "version", ["versions", 1], [1]),
    ("package-full", PKG, "/versions/1/rounds/2", "round", ["versions", 1, "rounds", 2], [1]),
    ("package-full", PKG, "/versions/1/rounds/2/name", "round",
     ["versions", 1, "rounds", 2], [1]),
    ("package-full", PKG, "/versions/2/themes/1/description", "theme",
     ["versions", 2, "themes", 1], [2]),
    ("package-full", PKG, "/versions/0/questions/5/price", "question",
     ["versions", 0, "questions", 5], [0]),
    ("package-full", PKG, "/versions/0/steps/7/payload/media/src", "step",
     ["versions", 0, "steps", 7], [0]),
    ("package-full", PKG, "/versions/0/steps/7/payload/variants/1", "step",
     ["versions", 0, "steps", 7], [0]),
    ("package-full", PKG, "", "package", [], [0, 1, 2]),
    ("package-full", PKG, "/name", "package", [], [0, 1, 2]),
    ("package-full", PKG, "/meta/size/audio", "package", [], [0, 1, 2]),
    ("package-full", PKG, "/categories/0/category/i18n/name", "package", [], [0, 1, 2]),
    ("package-full", PKG, "/user/banExpiresAt", "package", [], [0, 1, 2]),
    # game: the reduced versions of pkg, pkg itself, and the game's own fields (no block)
    ("game", GAME, "/pkg/versions/2/questions/0/price", "question",
     ["pkg", "versions", 2, "questions", 0], [2]),
    ("game", GAME, "/pkg/versions/1/rounds/0/name", "round",
     ["pkg", "versions", 1, "rounds", 0], [1]),
    ("game", GAME, "/pkg/versions/1/themes/0", "theme", ["pkg", "versions", 1, "themes", 0], [1]),
    ("game", GAME, "/pkg/versions/0/changes/name", "version", ["pkg", "versions", 0], [0]),
    ("game", GAME, "/pkg/settings/timers", "package", ["pkg"], [0, 1, 2]),
    ("game", GAME, "/history/0/duration", None, None, []),
    ("game", GAME, "/name", None, None, []),
    # version-list: items, and the list itself concerns every version
    ("version-list", LIST, "/2/steps/3/duration", "step", [2, "steps", 3], [2]),
    ("version-list", LIST, "/0/deletedAt", "version", [0], [0]),
    ("version-list", LIST, "", "version", None, [0, 1, 2]),
    # version: the document is the version
    ("version", ONE, "", "version", [], [0]),
    ("version", ONE, "/questions/2/source", "question", ["questions", 2], [0]),
    ("version", ONE, "/steps/0/payload/backgroundMedia/duration", "step", ["steps", 0], [0]),
    ("version", ONE, "/themes/1/roundId", "theme", ["themes", 1], [0]),
    # version-created: the version and the id maps both concern the created version
    ("version-created", CREATED, "/version/changes/categories/0/categoryId", "version",
     ["version"], [0]),
    ("version-created", CREATED, "/idMaps/steps", "version", ["version"], [0]),
    ("version-created", CREATED, "", "version", ["version"], [0]),
]


@pytest.mark.parametrize("kind,doc,pointer,entity,path,versions", RESOLUTION,
                         ids=[f"{r[0]}:{r[2] or '/'}" for r in RESOLUTION])
def test_pointer_resolves_to_its_entity(kind, doc, pointer, entity, path, versions):
    sites = version_sites(kind, doc)
    got = resolve(kind, doc, pointer, sites)
    assert [sites.index(s) for s, _, _ in got] == versions
    for site, got_entity, got_id in got:
        assert got_entity == entity
        if path is None:  # the list itself: each version under its own id
            assert got_id == site.version_id
        elif kind == "package-full" and entity == "package":
            assert got_id == doc["id"]
        else:
            assert got_id == expected_id(doc, path)


def test_findings_inside_the_embedded_report_stay_out_of_the_block():
    assert resolve("package-full", PKG, "/versions/0/validation") == []
    assert resolve("package-full", PKG, "/versions/0/validation/results/1/id") == []
    assert resolve("version", ONE, "/validation/timestamp") == []


def test_an_entity_without_an_id_falls_back_to_its_version_then_package():
    doc = copy.deepcopy(ONE)
    del doc["rounds"][0]["id"]
    assert resolve("version", doc, "/rounds/0/name")[0][1:] == ("version", doc["id"])
    del doc["id"]
    assert resolve("version", doc, "/rounds/0/name")[0][1:] == ("package", doc["packageId"])


def test_an_index_past_the_end_names_the_version():
    assert resolve("version", ONE, "/rounds/99/name")[0][1:] == ("version", ONE["id"])


# --- blocks ---------------------------------------------------------------------------------

def broken_package() -> dict:
    doc = copy.deepcopy(PKG)
    v = doc["versions"][1]
    del v["rounds"][0]["type"]
    v["steps"][2]["duration"] = -1
    v["changes"]["name"] = 5
    doc["meta"]["starts"] = -3
    v["validation"]["timestamp"] = "yesterday"  # about the old report: not in the new block
    return doc


def test_round_trip_findings_to_blocks_valid_against_the_schema():
    doc = broken_package()
    kind, raw, _ = check_document(doc, None, SchemaBook())
    assert kind == "package-full"
    blocks = blocks_for_document(kind, doc, raw_findings(raw), timestamp=1767225600000)
    assert [b["versionId"] for b in blocks] == [v["id"] for v in doc["versions"]]
    for b in blocks:
        assert b["packageId"] == doc["id"]
        assert b["validation"]["timestamp"] == 1767225600000
        assert_block_shape(b)
    v = doc["versions"][1]
    got = {(r["level"], r["entity"], r["id"]) for r in blocks[1]["validation"]["results"]}
    assert got == {("error", "round", v["rounds"][0]["id"]),
                   ("error", "step", v["steps"][2]["id"]),
                   ("error", "version", v["id"]),
                   ("error", "package", doc["id"])}
    # The package-level finding is in every version's block, and only that one elsewhere.
    for other in (blocks[0], blocks[2]):
        assert [(r["entity"], r["message"]) for r in other["validation"]["results"]] == \
            [("package", "-3 is less than the minimum of 0")]
    messages = {r["message"] for r in blocks[1]["validation"]["results"]}
    assert 'missing required field "type"' in messages
    assert not any("yesterday" in m for m in messages)


def test_levels_follow_severity():
    findings = [SimpleFinding("/rounds/0", Severity.ERROR, "e"),
                SimpleFinding("/rounds/0", Severity.WARNING, "w"),
                SimpleFinding("/rounds/0", Severity.INFO, "i")]
    [block] = blocks_for_document("version", ONE, findings, 0)
    assert [(r["level"], r["message"]) for r in block["validation"]["results"]] == \
        [("error", "e"), ("warning", "w"), ("info", "i")]
    assert_block_shape(block)


def test_a_schema_invalid_block_would_be_caught():
    """The shape check of these tests can fail: a block with a wrong field does."""
    bad = {"results": [{"level": "error", "entity": "round", "id": 7, "message": "m"}],
           "timestamp": 0}
    assert list(validation_validator().iter_errors(bad))


def test_clean_versions_get_empty_blocks():
    blocks = blocks_for_document("version-list", LIST, [], 5)
    assert [b["validation"] for b in blocks] == [{"results": [], "timestamp": 5}] * 3


def test_identical_results_are_written_once_and_blocks_merge_per_version():
    f = SimpleFinding("/name", Severity.WARNING, "same")
    [block] = blocks_for_document("version", ONE, [f, f], 0)
    assert len(block["validation"]["results"]) == 1
    a = blocks_for_document("version-list", LIST, [SimpleFinding("/1/rounds/0", Severity.INFO,
                                                                 "from the list")], 0)
    b = blocks_for_document("version", ONE, [SimpleFinding("/rounds/0", Severity.INFO,
                                                           "from the version")], 0)
    merged = merge_blocks(a + b)
    assert [m["versionId"] for m in merged] == [v["id"] for v in LIST]
    one = next(m for m in merged if m["versionId"] == ONE["id"])
    assert [r["message"] for r in one["validation"]["results"]] == \
        ["from the list", "from the version"]


# --- names ----------------------------------------------------------------------------------

def test_service_names_rename_levels_and_entities():
    names = names_from_table({"level": {"error": "ERROR", "warning": "WARN"},
                              "entity": {"round": "ROUND"}})
    findings = [SimpleFinding("/rounds/0", Severity.ERROR, "e"),
                SimpleFinding("/themes/0", Severity.WARNING, "w"),
                SimpleFinding("/themes/0", Severity.INFO, "i")]
    [block] = blocks_for_document("version", ONE, findings, 0, names)
    assert [(r["level"], r["entity"]) for r in block["validation"]["results"]] == \
        [("ERROR", "ROUND"), ("WARN", "theme"), ("info", "theme")]
    profile = (("validationLevel", ("ERROR", "WARN", "info")),
               ("validationEntity", ("ROUND", "theme")))
    assert_block_shape(block, profile)
    assert names.read_level("WARN") == "warning" and names.read_level("Error") == "error"
    assert names.read_entity("ROUND") == "round" and names.read_entity("level") is None


@pytest.mark.parametrize("table,enums,words", [
    ({"level": {"fatal": "F"}}, None, "unknown level"),
    ({"entity": {"round": 3}}, None, "non-empty string"),
    ({"level": "ERROR"}, None, "must be a table"),
    ({"colour": {}}, None, "unknown key"),
    ({"level": {"error": "E", "warning": "E"}}, None, "two names"),
    ({"level": {"error": "E"}}, {"validationLevel": ["ERROR"]}, "is not one of"),
    ({"confirm-errors": "yes"}, None, "true or false"),
])
def test_bad_service_tables_are_refused(table, enums, words):
    with pytest.raises(ServiceTableError, match=words):
        names_from_table(table, enums)


def test_default_names_are_quizkit_names():
    names = ServiceNames()
    assert names.level_value(Severity.WARNING) == "warning"
    assert names.entity_value("step") == "step"


def test_the_api_examples_in_the_docstrings_hold(monkeypatch):
    import doctest

    import quizkit.reporters.service_blocks

    monkeypatch.chdir(SAMPLES.parent)  # the examples name samples/ relative to the checkout
    failed, tried = doctest.testmod(quizkit.reporters.service_blocks)
    assert tried >= 6 and failed == 0
