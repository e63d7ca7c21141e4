"""Structural rules: each fires where its case says, none fires on the valid samples, and no
check ever raises on any JSON value."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import INVALID, ROOT, SAMPLES, cli, cli_json, run_script, valid_samples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quizkit
from quizkit.catalog import rule as catalog
from quizkit.checks.engine import check_document
from quizkit.model.entities import KIND_NAMES
from quizkit.rules import REGISTRY
from quizkit.rules.navigate import DocumentFacts, versions_of

RULES_DIR = INVALID / "rules"
STRUCTURAL_GROUPS = {"references", "uniqueness", "time", "content", "batch"}


def rule_cases() -> list[dict]:
    return json.loads((RULES_DIR / "manifest.json.txt").read_text())


def structural_rules() -> list[catalog.Rule]:
    return [r for r in REGISTRY.rules if r.group in STRUCTURAL_GROUPS]


def test_every_structural_rule_has_a_case():
    covered = {c["rule"] for c in rule_cases()}
    missing = {r.name for r in structural_rules()} - covered
    assert not missing, f"rules without a case in {RULES_DIR}/manifest.json.txt: {sorted(missing)}"
    assert len(structural_rules()) >= 30


def test_every_case_file_exists_and_is_listed():
    listed = {c["file"] for c in rule_cases()}
    on_disk = {p.name for p in RULES_DIR.iterdir() if p.suffix in (".json", ".jsonl")
               and p.name != "manifest.json.txt"}
    assert listed == on_disk


@pytest.mark.parametrize("case", rule_cases(), ids=lambda c: c["file"])
def test_rule_fires_where_expected(case):
    args = ["--kind", case["kind"]] if case.get("kind") else []
    code, report = cli_json(*args, str(RULES_DIR / case["file"]))
    hits = [f for f in report["findings"]
            if f["rule"] == case["rule"] and f["pointer"] == case["pointer"]]
    assert len(hits) == 1, (case["what"], report["findings"])
    rule = REGISTRY.get(case["rule"])
    assert hits[0]["code"] == rule.code and hits[0]["severity"] == str(rule.severity)
    assert hits[0]["record"] == case.get("record")
    assert hits[0]["line"] >= 1 and hits[0]["column"] >= 1  # batch findings are located too
    # The case has its one fault: nothing else of that rule, and the exit code follows it.
    assert [f for f in report["findings"] if f["rule"] == case["rule"]] == hits
    worst = max(REGISTRY.get(f["rule"]).severity for f in report["findings"])
    assert code == (1 if worst == catalog.Severity.ERROR else 0)


@pytest.mark.parametrize("path", valid_samples(), ids=lambda p: p.name)
def test_no_structural_finding_on_a_valid_sample(path):
    code, report = cli_json(str(path))
    assert report["findings"] == [] and code == 0


def test_valid_samples_together_only_repeat_themselves():
    """Across files the valid samples hold the same game and version twice, identical: the
    only findings of the whole run are those infos."""
    code, report = cli_json(*(str(p) for p in valid_samples()))
    assert code == 0
    rules = {f["rule"] for f in report["findings"]}
    assert rules <= {"identical-duplicate"}, report["findings"]


def test_batch_checks_run_with_several_workers():
    case = RULES_DIR / "game-version-not-exported.jsonl"
    lines = case.read_text().splitlines()
    others = [str(SAMPLES / n) for n in ("user-self.json", "banner.json", "version.json")]
    _code, report = cli_json("-j", "2", str(case), *others)
    assert len(lines) == 2
    assert [f["rule"] for f in report["findings"]] == ["game-version-not-exported"]
    assert report["summary"]["files"] == 4


def test_subprocess_reports_a_structural_rule(tmp_path):
    target = RULES_DIR / "round-duplicate-position.json"
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "quizkit", "validate", "--format", "json",
                           str(target)], capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    hit = [f for f in report["findings"] if f["rule"] == "duplicate-position"]
    assert hit and hit[0]["pointer"] == "/versions/0/rounds/1/position"
    assert hit[0]["line"] is not None and hit[0]["line"] > 1


def test_console_script_text_report():
    proc = run_script("validate", str(RULES_DIR / "game-unknown-version.json"))
    assert proc.returncode == 1
    assert b"R008" in proc.stdout or b"game-version-missing" in proc.stdout


# --- never crash on junk ---------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**63, max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(
        ["id", "versions", "rounds", "themes", "questions", "steps", "position", "price",
         "roundId", "themeId", "questionId", "versionId", "packageId", "createdAt",
         "updatedAt", "deletedAt", "payload", "media", "variants", "validation", "results",
         "entity", "history", "pkg", "idMaps", "user", "meta", "categories", "category",
         "categoryId", "slot", "current", "banner", "pkgCount", "completedAt", "stoppedAt",
         "gameId", "published", "banned", "banExpiresAt", "src", "size", "settings",
         "version", "x"]) | st.text(max_size=8), children, max_size=8),
    max_leaves=40,
)


def _mutations(doc, data):
    """A sample document with a few of its values replaced by junk."""
    for _ in range(data.draw(st.integers(1, 4))):
        node = doc
        path = []
        while isinstance(node, (dict, list)) and node and data.draw(st.booleans()):
            key = data.draw(st.sampled_from(list(node) if isinstance(node, dict)
                                            else range(len(node))))
            path.append((node, key))
            node = node[key]
        if path:
            parent, key = path[-1]
            parent[key] = data.draw(json_values)
    return doc


def _run_all_checks(doc):
    for kind in KIND_NAMES:
        check_document(doc, kind)
        facts = DocumentFacts(kind, doc, versions_of(kind, doc))
        for check in REGISTRY.of("rule", kind):
            check(facts, lambda *a: None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_no_check_raises_on_arbitrary_json(doc):
    _run_all_checks(doc)


_BASES = {p.name: json.loads(p.read_text()) for p in (
    SAMPLES / "game.json", SAMPLES / "version-created.json", SAMPLES / "user-self.json",
    SAMPLES / "banner.json", RULES_DIR / "theme-unknown-round.json")}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_BASES)), st.data())
def test_no_check_raises_on_damaged_samples(name, data):
    doc = _mutations(json.loads(json.dumps(_BASES[name])), data)
    _kind, _raw, facts = check_document(doc, None)
    assert all(isinstance(f, tuple) for _, f in facts)
    _run_all_checks(doc)


# --- the catalog and its page ----------------------------------------------------------------

def test_catalog_is_complete_and_consistent():
    rules = REGISTRY.rules
    assert len({r.code for r in rules}) == len(rules)
    for r in rules:
        assert r.name == r.name.lower() and " " not in r.name and "_" not in r.name
        assert r.summary.endswith(".") and "\n" not in r.summary
        assert r.explanation and r.group
        if r.group in STRUCTURAL_GROUPS:
            assert r.bad and r.good, r.code


def test_rules_page_is_generated_from_the_catalog():
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    result = cli("rules", "--format", "markdown")
    assert result.exit_code == 0
    assert page == result.output, "docs/rules.md drifted: run " \
        "`quizkit rules --format markdown > docs/rules.md`"


def test_rules_lists_and_explains():
    listing = cli("rules")
    assert listing.exit_code == 0
    assert len(listing.output.splitlines()) == len(REGISTRY.rules)
    assert "U002  duplicate-position" in listing.output
    as_json = json.loads(cli("rules", "--format", "json").output)
    assert {r["code"] for r in as_json} == {r.code for r in REGISTRY.rules}
    by_code = cli("rules", "r001")
    by_name = cli("rules", "unknown-round")
    assert by_code.exit_code == 0 and by_code.output == by_name.output
    assert "roundId" in by_code.output and "Bad:" in by_code.output
    one = json.loads(cli("rules", "T004", "--format", "json").output)
    assert one["name"] == "completed-and-stopped" and one["severity"] == "warning"
    missing = cli("rules", "no-such-rule")
    assert missing.exit_code == 2 and "no-such-rule" in missing.output


def test_time_parsing_handles_offsets_and_skips_bad_values():
    from quizkit.rules.navigate import parse_time

    a = parse_time("2026-01-16T21:30:00.000+03:00")
    b = parse_time("2026-01-16T18:30:00Z")
    assert a is not None and a == b
    assert parse_time("2026-01-16t18:30:00.123456789z") is not None
    for bad in ("2026-01-16", "2026-01-16T18:30:00", "22/11/2026 10:00:00+00:00", 5, None,
                "2026-02-30T10:00:00Z", "2026-06-30T23:59:60Z"):
        assert parse_time(bad) is None, bad


def test_damaged_file_in_the_right_place_is_skipped_not_doubled(tmp_path: Path):
    """Where the schema already reports a value, the structural rule stays quiet."""
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc["updatedAt"] = "yesterday"
    path = tmp_path / "banner.json"
    path.write_text(json.dumps(doc))
    code, report = cli_json(str(path))
    assert [f["rule"] for f in report["findings"]] == ["invalid-format"]
    assert code == 1


# --- fast paths agree with the exact paths -------------------------------------------------------

@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]),
                          st.integers(0, 5) | st.sampled_from([1.0, 2.5])), max_size=9))
def test_position_fast_path_agrees_with_exact_path(siblings):
    from quizkit.rules import uniqueness
    from quizkit.rules.navigate import DocumentFacts, versions_of
    from quizkit.rules.version_index import positions_clean

    items = [{"position": p, "questionId": q} for q, p in siblings]
    found = []
    version = {"id": "v1", "steps": items}
    exact = DocumentFacts("version", version, versions_of("version", version, fast=False))
    for rule_check in (uniqueness.duplicate_position, uniqueness.position_gap):
        rule_check(exact, lambda *a: found.append(a))
    clean = positions_clean(items, [q for q, _ in siblings])
    # The fast path may doubt a clean collection (integral floats) but never pass a bad one.
    assert not (clean and found)
    if all(type(p) is int for _, p in siblings):
        assert clean == (not found)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({
    "position": st.integers(0, 3) | st.just(0.5),
    "duration": st.integers(0, 60) | st.just(1.5),
    "payload": st.fixed_dictionaries({
        "media": st.none() | st.fixed_dictionaries({"src": st.sampled_from(["", " ", "a.png"])}),
        "backgroundMedia": st.none() | st.fixed_dictionaries(
            {"src": st.sampled_from(["", "b.mp3"]), "duration": st.integers(0, 9) | st.just(2.0)}),
        "variants": st.lists(st.sampled_from(["", " ", "Paris", "Rome"]), max_size=4),
    }),
}), max_size=5))
def test_step_fast_path_never_passes_a_bad_step(tmp_path_factory, steps):
    """Through the public API: the steps are put into the version sample among its clean
    ones, and the step rules report exactly what a plain reading of them says."""
    version = json.loads((SAMPLES / "version.json").read_text())
    expected = set()
    for i, step in enumerate(steps):
        where = f"/steps/{i}"
        version["steps"][i].update(step)
        for key in ("position", "duration"):
            if step[key] % 1:  # 2.0 is a whole number
                expected.add(("fractional-count", f"{where}/{key}"))
        payload = step["payload"]
        for key in ("media", "backgroundMedia"):
            if payload[key] is not None and not payload[key]["src"].strip():
                expected.add(("media-without-src", f"{where}/payload/{key}/src"))
        background = payload["backgroundMedia"]
        if background is not None and background["duration"] % 1:
            expected.add(("fractional-count", f"{where}/payload/backgroundMedia/duration"))
        seen = set()
        for j, variant in enumerate(payload["variants"]):
            if not variant.strip():
                expected.add(("empty-variant", f"{where}/payload/variants/{j}"))
            elif variant in seen:
                expected.add(("duplicate-variant", f"{where}/payload/variants/{j}"))
            else:
                seen.add(variant)
    path = tmp_path_factory.mktemp("steps") / "version.json"
    path.write_text(json.dumps(version))
    report = quizkit.validate([str(path)], jobs=1, config=False)
    step_rules = {"fractional-count", "media-without-src", "empty-variant", "duplicate-variant"}
    assert {(f.rule, f.pointer) for f in report.findings if f.rule in step_rules} == expected
