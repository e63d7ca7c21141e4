"""One model of the export: ``validate`` and ``load`` tell every document's kind alike.

Every sample, every document of a generated corpus (with defects) and a set of hand-made near
misses is written to a file of its own, once as a JSON file and once as the one line of a JSON
Lines file (where a version list is a line holding an array), then checked with ``quizkit
validate --format json`` and loaded with ``quizkit load``; the kind each gives for each file
must be the same.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from quizkit.model import entities as model
from tests.conftest import ROOT, SAMPLES, cli, cli_json

SCHEMAS = ROOT / "quizkit/schemas"

BANNER = {"id": "b1", "createdAt": "2026-01-02T03:04:05Z", "updatedAt": "2026-01-02T03:04:05Z",
          "userId": "u1", "position": 1, "payload": {"type": "t", "value": "v", "color": "c"},
          "slot": "top", "current": True}
PROFILE = json.loads((SAMPLES / "user-self.json").read_text())["user"]
VERSION = json.loads((SAMPLES / "version.json").read_text())
PACKAGE = json.loads((SAMPLES / "package-full.json").read_text())
GAME = json.loads((SAMPLES / "game.json").read_text())
VERSIONS = json.loads((SAMPLES / "version-list.json").read_text())


def _without(doc: dict, *keys: str) -> dict:
    return {k: v for k, v in doc.items() if k not in keys}


#: (name, document, the kind both must give: None when the shape does not decide).
NEAR_MISSES: list[tuple[str, Any, str | None]] = [
    ("user-update-with-extra", {"user": {"username": "ann"}, "note": 1}, "user-update"),
    ("banner-without-id-created", _without(BANNER, "id", "createdAt"), "banner"),
    ("banner-create-current-position", {"current": True, "position": 2}, "banner-create"),
    ("banner-create-wrong-types", {"slot": 5, "position": "2", "current": "yes"},
     "banner-create"),
    ("banner-id-null", {**BANNER, "id": None}, "banner"),
    ("banner-create-payload-only", {"payload": {"value": "v"}}, "banner-create"),
    ("user-self-without-settings", {"user": PROFILE}, "user-self"),
    ("user-update-image-only", {"user": {"image": {"src": "a.png"}}}, "user-update"),
    ("user-self-without-user", {"settings": {"language": "en", "userId": "u1"}}, "user-self"),
    ("version-created-only-maps", {"idMaps": {"rounds": {}, "steps": {}}}, "version-created"),
    ("user-update-user-null", {"user": None}, None),
    ("user-update-user-array", {"user": []}, "user-update"),
    ("user-update-user-string", {"user": "ann"}, "user-update"),
    ("game-settings-number", {**GAME, "settings": 5}, "game"),
    ("version-created-without-maps", {"version": _without(VERSION, "rounds", "themes",
                                                          "questions", "steps")},
     "version-created"),
    ("version-without-steps-published", _without(VERSION, "steps", "published"), "version"),
    ("version-rounds-wrong-type", {**VERSION, "rounds": {"r1": {}}, "published": "yes"},
     "version"),
    ("package-without-meta", _without(PACKAGE, "meta", "categories"), "package-full"),
    ("package-versions-string", {**PACKAGE, "versions": "none"}, "package-full"),
    ("package-with-game-field", {**PACKAGE, "visibility": "public"}, "package-full"),
    ("game-without-pkg-history", _without(GAME, "pkg", "history"), "game"),
    ("empty-object", {}, None),
    ("only-id", {"id": "x"}, None),
    ("unknown-fields-only", {"title": "Capitals", "entries": []}, None),
    ("empty-array", [], "version-list"),
    ("array-one-version-field", [{"packageId": "p1"}], "version-list"),
    ("array-version-then-string", [{"packageId": "p1"}, "x"], "version-list"),
    ("array-banner-then-version", [{"id": "b1", "slot": "top"}, {"published": True}],
     "version-list"),
    ("array-of-users", [{"id": "u1", "username": "ann"}], None),
    ("array-of-numbers", [1, 2], None),
]


def _write(root: Path, name: str, doc: Any) -> None:
    """``doc`` as ``name.json``, and as the one line of ``name.jsonl``."""
    (root / f"{name}.json").write_bytes(orjson.dumps(doc))
    (root / f"{name}.jsonl").write_bytes(orjson.dumps(doc) + b"\n")


def _split(src: Path, root: Path, prefix: str) -> None:
    """Every document under ``src`` as a file of its own in ``root``."""
    for path in sorted(src.rglob("*")):
        if not path.is_file() or "invalid" in path.relative_to(src).parts:
            continue
        stem = prefix + "-" + "-".join(path.relative_to(src).parts)
        if path.name.endswith((".jsonl", ".ndjson")):
            for i, line in enumerate(path.read_bytes().splitlines()):
                try:
                    _write(root, f"{stem}-{i}", orjson.loads(line))
                except orjson.JSONDecodeError:
                    continue
        elif path.name.endswith(".json"):
            try:
                _write(root, stem, orjson.loads(path.read_bytes()))
            except orjson.JSONDecodeError:
                continue


def _validate_kinds(root: Path) -> dict[str, str | None]:
    _code, report = cli_json(str(root))
    return {Path(f["path"]).name: f["kind"] for f in report["files"]}


def _load_kinds(root: Path, db: Path) -> dict[str, str | None]:
    result = cli("load", str(root), "--db", str(db), "--no-findings")
    assert result.exit_code in (0, 1), result.output
    out = cli("query", "SELECT file, kind FROM files", "--db", str(db), "--format", "json")
    assert out.exit_code == 0, out.output
    return {Path(row["file"]).name: row["kind"] for row in json.loads(out.output)}


@pytest.fixture(scope="module")
def kinds_both_ways(tmp_path_factory: pytest.TempPathFactory
                    ) -> tuple[dict[str, str | None], dict[str, str | None]]:
    work = tmp_path_factory.mktemp("kinds")
    root = work / "docs"
    root.mkdir()
    _split(SAMPLES, root, "sample")
    corpus = work / "corpus"
    result = cli("samples", "generate", "--packages", "30", "--seed", "7", "--broken", "0.3",
                 "--out", str(corpus))
    assert result.exit_code == 0, result.output
    _split(corpus, root, "corpus")
    for name, doc, _ in NEAR_MISSES:
        _write(root, f"near-{name}", doc)
    for name, doc in (("empty-array", []), ("versions", VERSIONS), ("banner", BANNER)):
        (root / f"gz-{name}.json.gz").write_bytes(gzip.compress(orjson.dumps(doc)))
    return _validate_kinds(root), _load_kinds(root, work / "kinds.duckdb")


def test_validate_and_load_give_every_document_the_same_kind(kinds_both_ways) -> None:
    by_validate, by_load = kinds_both_ways
    assert len(by_validate) > 250 and by_validate.keys() == by_load.keys()
    differ = {name: (by_validate[name], by_load[name]) for name in by_validate
              if by_validate[name] != by_load[name]}
    assert not differ
    assert [by_load[f"gz-{n}.json.gz"] for n in ("empty-array", "versions", "banner")] == [
        "version-list", "version-list", "banner"]
    assert {k for k in by_validate.values() if k} >= {
        "package-full", "version-list", "version", "version-created", "game", "user-self",
        "user-update", "banner", "banner-create"}


@pytest.mark.parametrize("name,doc,kind", NEAR_MISSES, ids=[n for n, _, _ in NEAR_MISSES])
def test_near_misses_get_the_kind_their_shape_says(kinds_both_ways, name, doc, kind) -> None:
    by_validate, by_load = kinds_both_ways
    for suffix in (".json", ".jsonl"):
        assert by_validate[f"near-{name}{suffix}"] == kind
        assert by_load[f"near-{name}{suffix}"] == kind


def test_a_json_lines_line_holding_a_version_list_is_one_in_both(tmp_path: Path) -> None:
    """A line may hold any document, a version list (an array) too; ``load`` keeps its
    versions, as it does for a ``.json`` file holding the list."""
    path = tmp_path / "lists.jsonl"
    path.write_bytes(b"".join(orjson.dumps(doc) + b"\n" for doc in (VERSIONS, [], VERSIONS)))
    code, report = cli_json(str(path))
    assert (code, report["files"][0]["kind"], report["files"][0]["documents"]) == (
        0, "version-list", 3)
    db = tmp_path / "lists.duckdb"
    assert cli("load", str(path), "--db", str(db)).exit_code in (0, 1)
    out = cli("query", "SELECT (SELECT list(kind) FROM files) AS kinds, "
              "(SELECT count(*) FROM versions) AS versions, "
              "(SELECT sum(unknown_documents) FROM files) AS unknown",
              "--db", str(db), "--format", "json")
    assert json.loads(out.output) == [{"kinds": ["version-list"], "versions": len(VERSIONS),
                                       "unknown": 0}]


@pytest.mark.parametrize("name,text", [
    ("empty.json", b"[ ]"), ("empty.json.gz", gzip.compress(b"[]")),
    ("empties.jsonl", b"[]\n\n [ ] \n"), ("empties.jsonl.gz", gzip.compress(b"[]\n"))])
def test_a_file_of_empty_arrays_alone_is_one_kind_in_both(tmp_path: Path, name: str,
                                                         text: bytes) -> None:
    """A load of nothing but a file holding an empty array (or lines of them), which give no
    document to type, reads it and tells its kind and documents as ``validate`` does."""
    path = tmp_path / name
    path.write_bytes(text)
    code, report = cli_json(str(path))
    assert code == 0
    db = tmp_path / "empty.duckdb"
    loaded = cli("load", str(path), "--db", str(db))
    assert loaded.exit_code == 0, loaded.output
    out = cli("query", "SELECT kind, documents FROM files", "--db", str(db), "--format", "json")
    assert json.loads(out.output) == [{"kind": report["files"][0]["kind"],
                                       "documents": report["files"][0]["documents"]}]


@pytest.mark.parametrize("name,text", [
    ("two-objects.json", orjson.dumps(BANNER) + b"\n" + orjson.dumps({**BANNER, "id": "b2"})),
    ("two-objects.json.gz", gzip.compress(orjson.dumps(BANNER) + orjson.dumps(BANNER))),
    ("list-then-object.json", orjson.dumps(VERSIONS) + b" " + orjson.dumps(BANNER)),
    ("object-then-list.json", orjson.dumps(VERSION) + b"\n" + orjson.dumps(VERSIONS)),
])
def test_a_json_file_of_several_documents_is_unreadable_to_both(tmp_path: Path, name: str,
                                                                 text: bytes) -> None:
    """Not JSON Lines, so one JSON value: ``validate`` finds text after its end, and
    ``load`` (whose reader would split it) skips the file, loading nothing of it; both exit 3."""
    path = tmp_path / name
    path.write_bytes(text)
    code, report = cli_json(str(path))
    assert code == 3
    assert (report["files"][0]["readable"], report["files"][0]["kind"]) == (False, None)
    assert [f["rule"] for f in report["findings"]] == ["invalid-json"]
    db = tmp_path / "several.duckdb"
    loaded = cli("load", str(path), "--db", str(db))
    assert loaded.exit_code == 3, loaded.output
    assert f"{path}:" in loaded.output and "P002 invalid-json" in loaded.output
    out = cli("query", "SELECT (SELECT count(*) FROM files) AS files, "
              "(SELECT count(*) FROM banners) + (SELECT count(*) FROM versions) AS rows, "
              "(SELECT list(rule) FROM findings) AS findings",
              "--db", str(db), "--format", "json")
    assert json.loads(out.output) == [{"files": 0, "rows": 0, "findings": ["invalid-json"]}]
    lines = tmp_path / (name.split(".")[0] + ".jsonl")  # the same documents as JSON Lines
    lines.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in (BANNER, VERSIONS)))
    assert cli_json(str(lines))[1]["files"][0]["documents"] == 2


def test_a_record_missing_its_identifying_fields_is_that_record(tmp_path: Path) -> None:
    doc = tmp_path / "banner.json"
    doc.write_bytes(orjson.dumps(_without(BANNER, "id", "createdAt")))
    code, report = cli_json(str(doc))
    assert code == 1 and report["files"][0]["kind"] == "banner"
    missing = sorted(f["message"] for f in report["findings"] if f["rule"] == "missing-field")
    assert len(missing) == 2 and "createdAt" in missing[0] and "id" in missing[1]


def test_a_valid_request_body_is_never_an_unknown_kind(tmp_path: Path) -> None:
    doc = tmp_path / "body.json"
    doc.write_text('{"current": true, "position": 2}')
    code, report = cli_json(str(doc))
    assert (code, report["findings"], report["files"][0]["kind"]) == (0, [], "banner-create")


@pytest.mark.parametrize("text,kinds", [
    ("{}", ["user-update", "banner-create"]),
    ('{"id": "x"}', ["banner"]),
])
def test_an_undecided_shape_names_the_close_kinds_and_the_option(tmp_path: Path, text: str,
                                                                 kinds: list[str]) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(text)
    code, report = cli_json(str(doc))
    [finding] = report["findings"]
    assert code == 1 and finding["rule"] == "unknown-kind"
    for kind in kinds:
        assert kind in finding["message"]
    assert f"--kind {kinds[0]}" in finding["message"]
    forced = cli_json("--kind", kinds[0], str(doc))[1]
    assert forced["files"][0]["kind"] == kinds[0]


def _object_schema(path: Path, pointer: str = "") -> tuple[dict, Path]:
    """The object schema at ``path#pointer``, following ``$ref`` and array ``items``."""
    schema = json.loads(path.read_text())
    for part in [p for p in pointer.split("/") if p]:
        schema = schema[part]
    while True:
        if "$ref" in schema:
            target, _, inner = schema["$ref"].partition("#")
            return _object_schema((path.parent / target).resolve() if target else path, inner)
        if schema.get("type") == "array":
            schema = schema["items"]
            continue
        return schema, path


@pytest.mark.parametrize("kind", model.KINDS, ids=lambda k: k.name)
def test_the_model_lists_the_fields_of_each_kinds_schema(kind: model.Kind) -> None:
    schema, where = _object_schema(SCHEMAS / kind.schema)
    assert kind.fields == tuple(schema["properties"])
    assert kind.required == tuple(schema.get("required", ()))
    for outer, fields in kind.inner:
        sub = schema["properties"][outer]
        if "$ref" in sub:
            target, _, inner = sub["$ref"].partition("#")
            sub, _ = _object_schema((where.parent / target).resolve(), inner)
        assert fields == tuple(sub["properties"]), (kind.name, outer)
    assert set(kind.marks) <= set(kind.fields)


def _property(schema: dict, where: Path, name: str) -> tuple[dict, Path]:
    """The object schema of property ``name`` (through ``$ref`` and array ``items``)."""
    sub = schema["properties"][name]
    while "$ref" in sub or sub.get("type") == "array":
        if "$ref" in sub:
            target, _, inner = sub["$ref"].partition("#")
            return _object_schema((where.parent / target).resolve() if target else where, inner)
        sub = sub["items"]
    return sub, where


@pytest.mark.parametrize("kind", [k for k in model.KINDS if k.versions is not None],
                         ids=lambda k: k.name)
def test_the_model_places_versions_and_entities_as_the_schemas_do(kind: model.Kind) -> None:
    schema, where = _object_schema(SCHEMAS / kind.schema)
    if kind.container == "array":
        assert kind.versions == ()
    for key in kind.versions or ():
        schema, where = _property(schema, where, key)
    every = {e.key for e in model.VERSION_ENTITIES}
    assert {e.key for e in kind.version_entities} == every & set(schema["properties"])
    for entity in kind.version_entities:
        record, _ = _property(schema, where, entity.key)
        assert entity.id_field in record["properties"]
        if entity.parent_field:
            assert entity.parent_field in record["properties"], (kind.name, entity.key)
    top, top_where = _object_schema(SCHEMAS / kind.schema)
    for entity in kind.entities:
        record, _ = _property(top, top_where, entity.key)
        assert {entity.id_field, entity.parent_field} <= set(record["properties"])


def test_the_readme_table_of_kinds_is_the_model() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")
            and line.split("`")[1] in model.KIND_NAMES]
    assert sorted(rows) == sorted(f"| `{k.name}` | {k.what} |" for k in model.KINDS)
