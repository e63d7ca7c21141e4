"""Enum profiles: inference, enforcement, and exported schemas that agree with quizkit."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
import referencing
from referencing.jsonschema import DRAFT202012

from quizkit import api
from quizkit.model.entities import KIND_NAMES
from tests.conftest import ROOT, SAMPLES, cli, cli_json, run_script, valid_samples

# Where each enum lives, written by hand from INTERFACE.md (independent of the schemas).
VERSION_ENUMS = {
    "packageType": ["changes.type"], "difficulty": ["changes.difficulty"],
    "validationLevel": ["validation.results.*.level"],
    "validationEntity": ["validation.results.*.entity"],
}
ENTITY_ENUMS = {
    "roundType": ["rounds.*.type"], "questionType": ["questions.*.type"],
    "stepType": ["steps.*.type"],
    "mediaType": ["steps.*.payload.media.type", "steps.*.payload.backgroundMedia.type"],
}


def _prefixed(prefix: str, table: dict) -> dict:
    return {k: [f"{prefix}{p}" for p in v] for k, v in table.items()}


def _merge(*tables: dict) -> dict:
    out: dict[str, list[str]] = {}
    for t in tables:
        for k, v in t.items():
            out.setdefault(k, []).extend(v)
    return out


WHERE = {
    "package-full": _merge({"packageType": ["type"], "difficulty": ["difficulty"]},
                           _prefixed("versions.*.", VERSION_ENUMS),
                           _prefixed("versions.*.", ENTITY_ENUMS)),
    "version-list": _merge(_prefixed("*.", VERSION_ENUMS), _prefixed("*.", ENTITY_ENUMS)),
    "version": _merge(VERSION_ENUMS, ENTITY_ENUMS),
    "version-created": _prefixed("version.", VERSION_ENUMS),
    "game": _merge({"visibility": ["visibility"], "packageType": ["pkg.type"],
                    "difficulty": ["pkg.difficulty"]}, _prefixed("pkg.versions.*.", VERSION_ENUMS)),
    "user-self": {"provider": ["user.socialLinks.*.provider"],
                  "chatPlatform": ["user.membership.<key>"],
                  "bannerType": ["user.banner.type"], "language": ["settings.language"],
                  "pkgsLanguage": ["settings.pkgsLanguages", "settings.pkgsLanguages.*"]},
    "user-update": {"provider": ["user.socialLinks.*.provider"]},
    "banner": {"bannerType": ["payload.type"], "bannerSlot": ["slot"]},
    "banner-create": {"bannerType": ["payload.type"], "bannerSlot": ["slot"]},
}


def _walk(node, steps):
    if not steps:
        if isinstance(node, str):
            yield node
        return
    head, rest = steps[0], steps[1:]
    if head == "*" and isinstance(node, list):
        for item in node:
            yield from _walk(item, rest)
    elif head == "<key>" and isinstance(node, dict):
        yield from node
    elif isinstance(node, dict) and head in node:
        yield from _walk(node[head], rest)


def _expected_values() -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for path in valid_samples():
        _, report = cli_json(str(path))
        kind = report["files"][0]["kind"]
        lines = path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]
        for text in filter(str.strip, lines):
            doc = json.loads(text)
            for enum, places in WHERE[kind].items():
                for place in places:
                    seen.setdefault(enum, set()).update(_walk(doc, place.split(".")))
    return {k: v for k, v in seen.items() if v}


def test_inference_finds_exactly_the_values_in_the_samples(tmp_path):
    result = cli("enums", "infer", "--format", "json", *map(str, valid_samples()))
    assert result.exit_code == 0
    inferred = json.loads(result.output)["enums"]
    got = {name: {v["value"] for v in values} for name, values in inferred.items()}
    assert got == _expected_values()
    for values in inferred.values():
        for v in values:
            assert v["count"] >= 1 and "#/" in v["example"]


def test_profile_file_round_trip_and_enforcement(tmp_path):
    profile = tmp_path / "profile.toml"
    result = cli("enums", "infer", "-o", str(profile), *map(str, valid_samples()))
    assert result.exit_code == 0
    data = tomllib.loads(profile.read_text())
    assert {k: set(v) for k, v in data["enums"].items()} == _expected_values()
    clean = cli("validate", "--profile", str(profile), *map(str, valid_samples()))
    assert clean.exit_code == 0, clean.output

    doc = json.loads((SAMPLES / "package-full.json").read_text())
    allowed = data["enums"]["difficulty"]
    doc["versions"][0]["changes"]["difficulty"] = allowed[0].upper() + "x"
    bad = tmp_path / "package.json"
    bad.write_text(json.dumps(doc, indent=2))
    code, report = cli_json("--profile", str(profile), str(bad))
    assert code == 1
    [f] = report["findings"]
    assert f["rule"] == "unknown-enum-value"
    assert f["pointer"] == "/versions/0/changes/difficulty"
    assert all(json.dumps(v) in f["message"] for v in allowed)
    # Without the profile the enum is open again.
    assert cli_json(str(bad))[0] == 0


def test_near_miss_suggestion(tmp_path):
    profile = tmp_path / "p.toml"
    profile.write_text('[enums]\nbannerSlot = ["profile", "header"]\n')
    doc = json.loads((SAMPLES / "banner.json").read_text())
    doc["slot"] = "Header"
    bad = tmp_path / "banner.json"
    bad.write_text(json.dumps(doc))
    _, report = cli_json("--profile", str(profile), str(bad))
    assert "did you mean \"header\"?" in report["findings"][0]["message"]


@pytest.mark.parametrize("text,needle", [
    ('[enums]\nnope = ["x"]\n', "unknown enum 'nope'"),
    ('[enums]\ndifficulty = "easy"\n', "must be an array of strings"),
    ('[other]\n', "unknown table"),
    ('[enums\n', "not valid TOML"),
])
def test_bad_profile_is_a_usage_error(tmp_path, text, needle):
    profile = tmp_path / "p.toml"
    profile.write_text(text)
    result = cli("validate", "--profile", str(profile), str(SAMPLES / "banner.json"))
    assert result.exit_code == 2 and needle in result.output


def _exported_validator(root: Path, kind: str) -> jsonschema.Draft202012Validator:
    resources = []
    for path in root.rglob("*.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], DRAFT202012.create_resource(schema)))
    reg = referencing.Registry().with_resources(resources)
    schema = json.loads((root / "documents" / f"{kind}.json").read_text())
    return jsonschema.Draft202012Validator(
        schema, registry=reg, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_exported_schemas_with_profile_agree_with_quizkit(tmp_path):
    profile = tmp_path / "p.toml"
    profile.write_text('[enums]\ndifficulty = ["easy", "hard"]\nbannerSlot = ["profile"]\n')
    out = tmp_path / "exported"
    result = cli("schema", "export", "--out", str(out), "--profile", str(profile))
    assert result.exit_code == 0
    assert len(list(out.rglob("*.json"))) == len(list((ROOT / "schemas").rglob("*.json")))
    enums = json.loads((out / "records/enums.json").read_text())["$defs"]
    assert enums["difficulty"]["enum"] == ["easy", "hard"] and "enum" not in enums["language"]
    for path in [p for p in valid_samples() if p.suffix == ".json"]:
        _, report = cli_json("--profile", str(profile), str(path))
        kind = report["files"][0]["kind"]
        ours = any(f["code"].startswith("S") for f in report["findings"])
        theirs = not _exported_validator(out, kind).is_valid(json.loads(path.read_text()))
        assert ours == theirs, path.name
    # The samples use "medium" and the "header" slot: the profile rejects both, in both tools.
    _, report = cli_json("--profile", str(profile), str(SAMPLES / "package-full.json"))
    assert any(f["rule"] == "unknown-enum-value" for f in report["findings"])


def test_editor_mapping_points_at_existing_schemas():
    result = cli("schema", "editor", "--match", "game=exports/games/*.json")
    settings = json.loads(result.output)["json.schemas"]
    assert len(settings) == 9
    for entry in settings:
        assert (ROOT / entry["url"]).exists()
        assert entry["fileMatch"]
    game = next(e for e in settings if e["url"].endswith("/game.json"))
    assert game["fileMatch"] == ["exports/games/*.json"]
    assert cli("schema", "editor", "--match", "nokind=x").exit_code == 2


def test_infer_as_a_subprocess():
    proc = run_script("enums", "infer", "samples/", "--exclude", "invalid", "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "mediaType" in json.loads(proc.stdout)["enums"]


def _matches(patterns: list[str], path: str) -> bool:
    """VS Code's fileMatch: some pattern matches, and no ``!`` pattern."""
    import pathspec

    def hit(glob: str) -> bool:
        return pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path)

    return (any(hit(p) for p in patterns if not p.startswith("!"))
            and not any(hit(p[1:]) for p in patterns if p.startswith("!")))


def test_the_default_editor_globs_match_the_generators_and_the_samples_names(tmp_path):
    """Every file the generator writes, and every valid sample, maps to its own kind's
    schema and to no other."""
    import orjson

    from quizkit.model.kinds import detect_kind

    api.generate(tmp_path / "dump", packages=20, seed=3)
    files = list((tmp_path / "dump").rglob("*.json"))
    files += [p for p in valid_samples() if p.suffix == ".json"]
    settings = api.editor_settings()["json.schemas"]
    seen = set()
    for path in files:
        kind = detect_kind(orjson.loads(path.read_bytes()))
        mapped = [entry["url"].rsplit("/", 1)[1].removesuffix(".json") for entry in settings
                  if _matches(entry["fileMatch"], path.as_posix())]
        assert mapped == [kind], path
        seen.add(kind)
    assert seen == set(KIND_NAMES)
