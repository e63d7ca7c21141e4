"""The checks of the validation reports that versions embed (V001-V004): they fire on the
crafted cases of samples/invalid/service, on none of the valid samples, and only where their
condition holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizkit.catalog import rule as catalog
from quizkit.checks.engine import check_document
from quizkit.model.schemas import SchemaBook
from quizkit.model.service_names import ServiceNames
from quizkit.rules import REGISTRY
from quizkit.rules.embedded import epoch_ms
from quizkit.rules.navigate import versions_of
from tests.conftest import INVALID, SAMPLES, cli, cli_json, valid_samples

CASES_DIR = INVALID / "service"
#: The schemas, compiled once for these tests.
BOOK = SchemaBook()
EMBEDDED = {"stale-validation", "unconfirmed-validation-error", "validation-entity-mismatch",
            "validation-older-than-version"}


def cases() -> list[dict]:
    return json.loads((CASES_DIR / "manifest.json.txt").read_text())


def load(name: str):
    return json.loads((SAMPLES / name).read_text())


def embedded_findings(doc, kind: str | None = None, names: ServiceNames | None = None
                      ) -> list[tuple[str, str]]:
    _, raw, _ = check_document(doc, kind, BOOK, names)
    return [(r.name, pointer) for r, pointer, _ in raw if r.name in EMBEDDED]


def test_rules_are_catalogued_in_their_own_range():
    rules = [r for r in REGISTRY.rules if r.group == "service"]
    assert {r.name for r in rules} == EMBEDDED
    assert sorted(r.code for r in rules) == ["V001", "V002", "V003", "V004"]
    assert {r.name: str(r.severity) for r in rules} == {
        "stale-validation": "warning", "unconfirmed-validation-error": "info",
        "validation-entity-mismatch": "warning", "validation-older-than-version": "info"}


def test_every_case_file_is_listed_and_every_default_rule_has_a_case():
    listed = {c["file"] for c in cases()}
    on_disk = {p.name for p in CASES_DIR.glob("*.json")} - {"manifest.json.txt"}
    assert listed == on_disk
    assert {c["rule"] for c in cases()} == EMBEDDED - {"unconfirmed-validation-error"}


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["file"])
def test_case_fires_its_rule_where_the_manifest_says(case):
    _, report = cli_json("--kind", case["kind"], str(CASES_DIR / case["file"]))
    ours = [f for f in report["findings"] if f["rule"] in EMBEDDED]
    assert [(f["rule"], f["pointer"]) for f in ours] == [(case["rule"], case["pointer"])], \
        report["findings"]
    rule = REGISTRY.get(case["rule"])
    assert ours[0]["code"] == rule.code and ours[0]["severity"] == str(rule.severity)
    assert ours[0]["line"] >= 1 and ours[0]["column"] >= 1


@pytest.mark.parametrize("path", valid_samples(), ids=lambda p: p.name)
def test_no_embedded_finding_on_a_valid_sample(path):
    _, report = cli_json(str(path))
    assert [f for f in report["findings"] if f["rule"] in EMBEDDED] == []


# --- stale-validation -------------------------------------------------------------------------

def test_stale_needs_an_error_inside_that_version():
    doc = load("version-list.json")
    doc[1]["questions"][0]["price"] = -1  # version 1 claims warnings and infos only
    assert embedded_findings(doc) == [("stale-validation", "/1/validation")]
    doc = load("version-list.json")
    doc[0]["questions"][0]["price"] = -1  # version 0 already claims an error: not stale
    assert embedded_findings(doc) == []


def test_stale_names_the_first_error_in_document_order_whatever_the_raw_order():
    """The message names one error; which one must not depend on the order the schema
    engine reported them in (python-jsonschema's can change between processes)."""
    doc = load("version-list.json")
    doc[1]["questions"][-1]["price"] = -1
    doc[1]["questions"][2]["price"] = -2
    _, raw, _ = check_document(doc, "version-list", BOOK)
    errors = [r for r in raw if r[0].severity == catalog.Severity.ERROR]
    assert len(errors) >= 2
    messages = set()
    for order in (errors, errors[::-1]):
        out: list = []
        for fcheck in REGISTRY.of("findings", "version-list"):
            fcheck(versions_of("version-list", doc), tuple(order),
                   lambda *f, out=out: out.append(f), None)
        messages.add(tuple(m for r, _, m in out if r.name == "stale-validation"))
    assert len(messages) == 1
    (only,) = messages
    assert "/1/questions/2/price" in only[0], only


def test_warnings_do_not_make_a_report_stale():
    doc = load("version.json")
    doc["rounds"][0]["colour"] = "red"  # unknown-field: a warning
    assert embedded_findings(doc) == []


def test_empty_results_are_a_missing_report():
    doc = load("version.json")
    doc["validation"]["results"] = []
    doc["steps"][0]["duration"] = "long"
    assert embedded_findings(doc) == [("stale-validation", "/validation")]


def test_errors_about_the_report_itself_do_not_count():
    doc = load("version.json")
    doc["validation"]["results"][0]["message"] = 5  # an error, but in the report
    assert embedded_findings(doc) == []


def test_package_level_errors_are_not_the_versions():
    doc = load("package-full.json")
    doc["meta"]["starts"] = -1
    assert embedded_findings(doc) == []


def test_a_report_with_an_unreadable_level_is_not_judged():
    doc = load("version.json")
    doc["validation"]["results"] = [dict(r, level="E") for r in doc["validation"]["results"]]
    doc["steps"][0]["duration"] = "long"
    assert embedded_findings(doc) == []
    # With the service's names, "E" is an error: the report is not stale.
    names = ServiceNames(level=(("error", "E"),))
    assert embedded_findings(doc, names=names) == []
    doc["validation"]["results"] = [dict(r, level="W") for r in doc["validation"]["results"]]
    names = ServiceNames(level=(("error", "E"), ("warning", "W")))
    assert embedded_findings(doc, names=names) == [("stale-validation", "/validation")]


# --- unconfirmed-validation-error (opt-in) ----------------------------------------------------

def test_unconfirmed_errors_only_when_the_profile_asks():
    doc = load("package-full.json")  # version 0 claims "no final round", quizkit finds none
    assert embedded_findings(doc) == []
    names = ServiceNames(confirm_errors=True)
    assert embedded_findings(doc, names=names) == [
        ("unconfirmed-validation-error", "/versions/0/validation/results/0")]
    doc["versions"][0]["rounds"][0]["position"] = -1  # now quizkit agrees there is an error
    assert embedded_findings(doc, names=names) == []


# --- validation-entity-mismatch ---------------------------------------------------------------

@pytest.mark.parametrize("entity,target", [
    ("version", ("rounds", 0)), ("package", ("themes", 0)), ("round", ("questions", 1)),
    ("theme", ("steps", 2)), ("question", ("rounds", 1)), ("step", ("themes", 0)),
    ("round", ("version",)), ("question", ("package",)),
])
def test_entity_mismatch_for_every_kind(entity, target):
    doc = load("version.json")
    if target == ("version",):
        target_id = doc["id"]
    elif target == ("package",):
        target_id = doc["packageId"]
    else:
        target_id = doc[target[0]][target[1]]["id"]
    doc["validation"]["results"][0].update(entity=entity, id=target_id)
    assert embedded_findings(doc) == [("validation-entity-mismatch",
                                       "/validation/results/0/entity")]
    _, raw, _ = check_document(doc, None, BOOK)
    assert "unknown-validation-target" not in {r.name for r, _, _ in raw}


@pytest.mark.parametrize("case", [c for c in cases() if c["rule"] == "validation-entity-mismatch"],
                         ids=lambda c: c["file"])
def test_a_mismatch_is_not_also_an_unknown_validation_target(case):
    """The id exists, as another kind of entity: one finding (V003), not a second (C011)."""
    _, report = cli_json("--kind", case["kind"], str(CASES_DIR / case["file"]))
    rules = [f["rule"] for f in report["findings"]]
    assert "validation-entity-mismatch" in rules
    assert "unknown-validation-target" not in rules, report["findings"]


def test_an_unknown_id_is_still_an_unknown_validation_target():
    doc = load("version.json")
    doc["validation"]["results"][0].update(entity="round", id="nothing-like-it")
    _, raw, _ = check_document(doc, None, BOOK)
    assert [(r.name, p) for r, p, _ in raw if r.group in ("content", "service")] == [
        ("unknown-validation-target", "/validation/results/0/id")]


def test_an_unknown_id_or_an_uncarried_collection_is_not_a_mismatch():
    doc = load("version.json")
    doc["validation"]["results"][0].update(entity="round", id="nothing-like-it")
    assert embedded_findings(doc) == []
    game = load("game.json")  # a game's versions carry no steps
    v = game["pkg"]["versions"][1]
    v["validation"]["results"][0].update(entity="step", id=v["questions"][0]["id"])
    assert embedded_findings(game) == []


def test_entities_are_read_in_the_services_names():
    doc = load("version.json")
    doc["validation"]["results"][2]["entity"] = "RUNDE"
    assert embedded_findings(doc) == []
    names = ServiceNames(entity=(("round", "RUNDE"),))
    assert embedded_findings(doc, names=names) == [("validation-entity-mismatch",
                                                    "/validation/results/2/entity")]


# --- validation-older-than-version ------------------------------------------------------------

def test_timestamp_is_compared_to_the_millisecond():
    doc = load("version.json")
    updated = epoch_ms(doc["updatedAt"])
    assert updated == doc["validation"]["timestamp"]  # the sample's report is up to date
    doc["validation"]["timestamp"] = updated - 1
    assert embedded_findings(doc) == [("validation-older-than-version",
                                       "/validation/timestamp")]
    doc["validation"]["timestamp"] = updated + 0.5
    assert embedded_findings(doc) == []


@pytest.mark.parametrize("text,ms", [
    ("1970-01-01T00:00:00Z", 0),
    ("2025-11-09T21:37:52.914Z", 1762724272914),
    ("2025-11-09T23:37:52.914+02:00", 1762724272914),
    ("2025-11-09T21:37:52.9149Z", 1762724272914),
    ("2025-11-09", None), ("2025-11-09T21:37:52", None), ("soon", None), (5, None),
])
def test_epoch_ms(text, ms):
    assert epoch_ms(text) == ms


@pytest.mark.parametrize("value", [
    None, 5, "x", [], {"results": "no", "timestamp": True},
    {"results": [None, 3, {"level": 1, "entity": [], "id": {}}], "timestamp": None}])
def test_odd_embedded_reports_are_findings_not_crashes(tmp_path: Path, value):
    """A validation block of the wrong shape is reported by the schema at its place (and the
    version's odd updatedAt too); the embedded-report checks skip it instead of crashing."""
    doc = load("package-full.json")
    doc["versions"][0]["validation"] = value
    doc["versions"][0]["updatedAt"] = 7
    path = tmp_path / "package-full.json"
    path.write_text(json.dumps(doc))
    code, report = cli_json(str(path))
    assert code == 1
    pointers = {f["pointer"] for f in report["findings"]}
    assert "/versions/0/updatedAt" in pointers
    assert any(p.startswith("/versions/0/validation") for p in pointers)
    assert not [f for f in report["findings"] if f["rule"] in EMBEDDED]


def test_odd_version_list_members_are_findings_not_crashes(tmp_path: Path):
    path = tmp_path / "versions.json"
    path.write_text(json.dumps([None, 1, {"validation": {}}]))
    code, report = cli_json("--kind", "version-list", str(path))
    assert code == 1
    assert {"/0", "/1"} <= {f["pointer"] for f in report["findings"]}


def test_profile_turns_on_confirm_errors_through_the_cli(tmp_path: Path):
    profile = tmp_path / "profile.toml"
    profile.write_text("[service]\nconfirm-errors = true\n")
    result = cli("validate", "--format", "json", "--profile", str(profile),
                 str(SAMPLES / "package-full.json"))
    report = json.loads(result.output)
    assert [f["rule"] for f in report["findings"]] == ["unconfirmed-validation-error"]
    assert result.exit_code == 0
