"""``quizkit validate --format service`` / ``service-jsonl`` through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from quizkit.model.schemas import BASE_URI, SchemaBook
from tests.conftest import INVALID, ROOT, SAMPLES, cli, cli_json, valid_samples

STALE = INVALID / "service" / "package-stale-validation.json"
VALIDATION = {"$ref": f"{BASE_URI}records/validation.json"}


def blocks_of(*args: str) -> tuple[int, list[dict]]:
    result = cli("validate", "--format", "service", *args)
    return result.exit_code, json.loads(result.output)


def assert_valid_blocks(blocks: list[dict], profile=()) -> None:
    validator = jsonschema.Draft202012Validator(VALIDATION, registry=SchemaBook(profile).registry)
    for b in blocks:
        assert set(b) == {"packageId", "versionId", "validation"}
        assert list(validator.iter_errors(b["validation"])) == []


def versions_in(path: Path) -> list[tuple[str, str]]:
    """(packageId, versionId) of every version of a sample, read independently."""
    doc = json.loads(path.read_text())
    if isinstance(doc, list):
        return [(v["packageId"], v["id"]) for v in doc]
    if "versions" in doc:
        return [(doc["id"], v["id"]) for v in doc["versions"]]
    if "pkg" in doc:
        return [(doc["pkg"]["id"], v["id"]) for v in doc["pkg"]["versions"]]
    if "idMaps" in doc:
        return [(doc["version"]["packageId"], doc["version"]["id"])]
    if "rounds" in doc:
        return [(doc["packageId"], doc["id"])]
    return []


def test_one_block_per_checked_version_of_every_kind():
    paths = [p for p in valid_samples() if p.suffix == ".json"]
    before = time.time_ns() // 1_000_000
    code, blocks = blocks_of(*map(str, paths))
    after = time.time_ns() // 1_000_000
    assert code == 0
    expected = list(dict.fromkeys(v for p in paths for v in versions_in(p)))
    assert len(expected) >= 4
    assert [(b["packageId"], b["versionId"]) for b in blocks] == expected
    assert_valid_blocks(blocks)
    stamps = {b["validation"]["timestamp"] for b in blocks}
    assert len(stamps) == 1 and before <= stamps.pop() <= after  # the run's time, in ms
    # The run has one cross-file info (version.json repeats a version of version-list.json):
    # it is about the set of exports, not a version's content, so no block carries it.
    _, report = cli_json(*map(str, paths))
    assert [f["rule"] for f in report["findings"]] == ["identical-duplicate"]
    assert all(b["validation"]["results"] == [] for b in blocks)


def test_findings_land_in_their_versions_block():
    code, blocks = blocks_of(str(STALE))
    assert code == 1
    doc = json.loads(STALE.read_text())
    v = doc["versions"][1]
    by_version = {b["versionId"]: b["validation"]["results"] for b in blocks}
    assert by_version[v["id"]] == [{"level": "error", "entity": "question",
                                    "id": v["questions"][3]["id"],
                                    "message": "-200 is less than the minimum of 0"}]
    # The stale-validation warning is about the old report: not in the block replacing it.
    assert all(r["level"] == "error" for rs in by_version.values() for r in rs)
    assert by_version[doc["versions"][0]["id"]] == []
    assert_valid_blocks(blocks)


def test_service_jsonl_writes_one_block_per_line(tmp_path: Path):
    out = tmp_path / "blocks.jsonl"
    result = cli("validate", "--format", "service-jsonl", "-o", str(out), str(STALE),
                 str(SAMPLES / "version-list.json"))
    assert result.exit_code == 1
    lines = out.read_text().splitlines()
    blocks = [json.loads(line) for line in lines]
    # The list repeats the package's three versions: one block per version, merged.
    assert len(lines) == 3
    _, as_array = blocks_of(str(STALE), str(SAMPLES / "version-list.json"))
    assert [b["validation"]["results"] for b in blocks] == \
        [b["validation"]["results"] for b in as_array]


def test_profile_names_levels_and_entities(tmp_path: Path):
    profile = tmp_path / "profile.toml"
    profile.write_text(
        '[enums]\nvalidationLevel = ["ERROR", "WARNING", "INFO"]\n'
        'validationEntity = ["PACKAGE", "VERSION", "ROUND", "THEME", "QUESTION", "STEP"]\n'
        '[service]\nlevel = {error = "ERROR", warning = "WARNING", info = "INFO"}\n'
        'entity = {package = "PACKAGE", version = "VERSION", round = "ROUND", '
        'theme = "THEME", question = "QUESTION", step = "STEP"}\n')
    # The samples' own reports say "error", "round", …: with the enums closed they would be
    # findings themselves, so check the crafted case with its levels rewritten.
    doc = json.loads(STALE.read_text())
    for v in doc["versions"]:
        for r in v["validation"]["results"]:
            r["level"], r["entity"] = r["level"].upper(), r["entity"].upper()
    path = tmp_path / "pkg.json"
    path.write_text(json.dumps(doc))
    code, blocks = blocks_of("--profile", str(profile), str(path))
    assert code == 1
    results = [r for b in blocks for r in b["validation"]["results"]]
    assert [(r["level"], r["entity"]) for r in results] == [("ERROR", "QUESTION")]
    closed = (("validationEntity", ("PACKAGE", "VERSION", "ROUND", "THEME", "QUESTION",
                                    "STEP")), ("validationLevel", ("ERROR", "WARNING", "INFO")))
    assert_valid_blocks(blocks, closed)
    # The embedded checks read the upper-case report through the same names: still stale.
    json_result = cli("validate", "--format", "json", "--profile", str(profile), str(path))
    rules = [f["rule"] for f in json.loads(json_result.output)["findings"]]
    assert rules.count("stale-validation") == 1 and "unknown-enum-value" not in rules


@pytest.mark.parametrize("text,words", [
    ('[service]\nlevel = {fatal = "F"}\n', "unknown level"),
    ('[enums]\nvalidationLevel = ["E"]\n[service]\nlevel = {error = "ERROR"}\n',
     "is not one of"),
    ("[colour]\n", "unknown table"),
])
def test_a_bad_service_table_is_a_usage_error(tmp_path: Path, text: str, words: str):
    profile = tmp_path / "p.toml"
    profile.write_text(text)
    result = cli("validate", "--format", "service", "--profile", str(profile),
                 str(SAMPLES / "version.json"))
    assert result.exit_code == 2 and words in result.output


def test_stdin_and_odd_names_give_the_same_blocks_as_a_plain_file(tmp_path: Path):
    """Blocks come from the engine's one pass, not from reading the inputs again by their
    display names: standard input and a file whose name holds a newline keep their blocks."""
    stale = STALE.read_bytes()
    odd = tmp_path / "new\nline.json"
    odd.write_bytes(stale)
    runs = []
    for args, data in ((["-"], stale), ([str(odd)], None), ([str(STALE)], None)):
        proc = subprocess.run([sys.executable, "-m", "quizkit", "validate", "--format",
                               "service", *args], input=data, capture_output=True, cwd=ROOT,
                              timeout=120)
        assert proc.returncode == 1, proc.stderr.decode()
        blocks = json.loads(proc.stdout)
        assert_valid_blocks(blocks)
        runs.append([(b["packageId"], b["versionId"], [(r["level"], r["entity"], r["id"])
                                                        for r in b["validation"]["results"]])
                     for b in blocks])
    assert runs[0] == runs[1] == runs[2]
    assert any(results for _p, _v, results in runs[0])


def test_real_subprocess_parallel_run(tmp_path: Path):
    out = tmp_path / "blocks.json"
    paths = [str(p) for p in sorted((INVALID / "service").glob("*.json"))
             if p.name != "manifest.json.txt"]
    proc = subprocess.run([sys.executable, "-m", "quizkit", "validate", "--format", "service",
                           "-o", str(out), "--jobs", "2", *paths],
                          capture_output=True, cwd=ROOT, timeout=180)
    assert proc.returncode == 1, proc.stderr.decode()
    blocks = json.loads(out.read_text())
    assert_valid_blocks(blocks)
    errors = [(b["versionId"], r["entity"]) for b in blocks for r in b["validation"]["results"]]
    game = json.loads((INVALID / "service" / "game-stale-validation.json").read_text())
    created = json.loads((INVALID / "service" / "version-created-stale-validation.json")
                         .read_text())
    assert (game["pkg"]["versions"][2]["id"], "question") in errors
    assert (created["version"]["id"], "version") in errors
