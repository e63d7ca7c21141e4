"""The bundled samples are valid: every field present, no extra field, references resolve.

The checks here are written from INTERFACE.md and DESIGN.md directly, independently of the
generator that wrote the samples and of quizkit's own validator, so that a mistake in either
cannot hide itself. ``tests/test_generate.py`` reuses :func:`problems` on generated corpora.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

# --- field specifications, straight from INTERFACE.md -------------------------------------
S, N, B, INT = "string", "number", "boolean", "count"  # count: non-negative integer
DT, DT_NULL, S_NULL = "date-time", "date-time|null", "string|null"
NUM_MAP = ("map", N)
IMAGE = {"src": S, "color": S}
I18N = {"name": S, "description": S, "image": IMAGE}
SETTINGS = {"multipliers": NUM_MAP, "timers": NUM_MAP}
PAYLOAD = {"type": S, "value": S, "color": S}
SOCIAL = ("array", {"provider": S, "url": S})
PACKAGE_RECORD = {
    "id": S, "name": S, "i18n": I18N, "description": S, "image": IMAGE, "type": S,
    "settings": SETTINGS, "difficulty": S, "rating": N, "explicit": B, "verified": B,
    "createdAt": DT, "updatedAt": DT, "userId": S, "deletedAt": DT_NULL,
}
CHANGES = {"categories": ("array", {"categoryId": S}),
           **{k: v for k, v in PACKAGE_RECORD.items()}}
VERSION_HEADER = {
    "id": S, "packageId": S, "createdAt": DT, "updatedAt": DT, "deletedAt": DT_NULL,
    "published": B, "changes": CHANGES,
    "validation": {"results": ("array", {"level": S, "entity": S, "id": S, "message": S}),
                   "timestamp": INT},
}
ROUND = {"id": S, "name": S, "type": S, "position": INT}
THEME = {"id": S, "name": S, "description": S, "position": INT, "roundId": S}
QUESTION = {"id": S, "type": S, "position": INT, "price": INT, "source": S, "themeId": S}
STEP = {"id": S, "type": S, "position": INT, "duration": INT, "questionId": S,
        "payload": {"media": {"type": S, "src": S, "color": S},
                    "backgroundMedia": {"type": S, "src": S, "duration": INT},
                    "text": S, "caption": S, "variants": ("array", S)}}


def _entities(full: bool) -> dict[str, Any]:
    extra = {"versionId": S} if full else {}
    return {"rounds": ("array", {**ROUND, **extra}), "themes": ("array", {**THEME, **extra}),
            "questions": ("array", {**QUESTION, **extra}), "steps": ("array", {**STEP, **extra})}


VERSION_FULL = {**VERSION_HEADER, **_entities(True)}
VERSION = {**VERSION_HEADER, **_entities(False)}
VERSION_GAME = {**VERSION_HEADER, "rounds": ("array", {"id": S, "name": S}),
                "themes": ("array", {"id": S, "name": S}),
                "questions": ("array", {"id": S, "price": INT, "themeId": S})}
AUTHOR = {
    "id": S, "image": IMAGE, "verified": B, "email": S, "emailVerified": B, "username": S,
    "realname": S, "about": S, "role": S, "banned": B, "banReason": S_NULL,
    "banExpiresAt": DT_NULL, "anonymous": B, "reputation": N, "createdAt": DT, "updatedAt": DT,
}
PACKAGE_FULL = {
    **PACKAGE_RECORD, "versions": ("array", VERSION_FULL), "user": AUTHOR,
    "meta": {"updatedAt": DT, "packageId": S, "fingerprint": S, "starts": INT,
             "size": {"text": INT, "images": INT, "audio": INT, "video": INT}},
    "categories": ("array", {"packageId": S, "categoryId": S, "category": {
        "id": S, "name": S, "i18n": {"name": S}, "createdAt": DT, "emoji": S, "color": S}}),
}
GAME = {
    "id": S, "name": S, "settings": {"slots": INT, "prePlay": B, "teamMode": B},
    "createdAt": DT, "userId": S, "visibility": S, "communicationInviteUrl": S, "packageId": S,
    "versionId": S, "completedAt": DT_NULL, "stoppedAt": DT_NULL,
    "history": ("array", {"id": S, "gameId": S, "createdAt": DT, "duration": INT,
                          "dumpArchiveFileKey": S}),
    "pkg": {**PACKAGE_RECORD, "versions": ("array", VERSION_GAME)},
}
USER_SELF = {
    "user": {"id": S, "username": S, "realname": S, "image": IMAGE, "about": S, "verified": B,
             "banned": B, "anonymous": B, "socialLinks": SOCIAL, "membership": ("map", B),
             "banner": PAYLOAD, "pkgCount": INT, "createdAt": DT},
    "settings": {"language": S, "pkgsLanguages": ("one-or-many", S), "userId": S},
}
BANNER = {"id": S, "createdAt": DT, "updatedAt": DT, "userId": S, "position": INT,
          "payload": PAYLOAD, "slot": S, "current": B}
ID_MAP = ("map", S)
SPECS: dict[str, Any] = {
    "package-full": PACKAGE_FULL,
    "version-list": ("array", VERSION),
    "version": VERSION,
    "version-created": {"version": VERSION_HEADER, "idMaps": {
        "rounds": ID_MAP, "themes": ID_MAP, "questions": ID_MAP, "steps": ID_MAP}},
    "game": GAME,
    "user-self": USER_SELF,
    "user-update": {"user": {"image": IMAGE, "username": S, "about": S, "socialLinks": SOCIAL,
                             "realname": S}},
    "banner-create": {"slot": S, "payload": PAYLOAD, "current": B, "position": INT},
    "banner": BANNER,
}
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def _conform(value: Any, spec: Any, ptr: str, out: list[str]) -> None:
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            out.append(f"{ptr}: expected object")
            return
        for key in spec.keys() - value.keys():
            out.append(f"{ptr}: missing {key}")
        for key in value.keys() - spec.keys():
            out.append(f"{ptr}/{key}: unknown {key}")
        for key in spec.keys() & value.keys():
            _conform(value[key], spec[key], f"{ptr}/{key}", out)
    elif isinstance(spec, tuple):
        shape, inner = spec
        if shape == "one-or-many":
            for item in value if isinstance(value, list) else [value]:
                _conform(item, inner, ptr, out)
        elif shape == "array":
            if not isinstance(value, list):
                out.append(f"{ptr}: expected array")
                return
            for i, item in enumerate(value):
                _conform(item, inner, f"{ptr}/{i}", out)
        elif not isinstance(value, dict):
            out.append(f"{ptr}: expected object (map)")
        else:
            for key, item in value.items():
                _conform(item, inner, f"{ptr}/{key}", out)
    elif value is None:
        if "null" not in spec:
            out.append(f"{ptr}: null")
    elif spec in (S, S_NULL):
        if not isinstance(value, str):
            out.append(f"{ptr}: expected string")
    elif spec in (DT, DT_NULL):
        if not (isinstance(value, str) and DATE_TIME.match(value)):
            out.append(f"{ptr}: expected date-time")
    elif spec == B:
        if not isinstance(value, bool):
            out.append(f"{ptr}: expected boolean")
    elif spec == N:
        if isinstance(value, bool) or not isinstance(value, int | float):
            out.append(f"{ptr}: expected number")
    elif spec == INT and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        out.append(f"{ptr}: expected non-negative integer")


# --- references, positions, prices, timestamps --------------------------------------------
def _check_version(v: dict, ptr: str, package_id: str, package_created: str, full: bool,
                   reduced: bool, out: list[str]) -> None:
    if v["packageId"] != package_id:
        out.append(f"{ptr}/packageId: not the package")
    if v["changes"]["id"] != package_id:
        out.append(f"{ptr}/changes/id: not the package")
    if not package_created <= v["createdAt"] <= v["updatedAt"]:
        out.append(f"{ptr}: createdAt/updatedAt out of order")
    if v["deletedAt"] is not None and v["deletedAt"] < v["createdAt"]:
        out.append(f"{ptr}/deletedAt: before creation")
    held: dict[str, set[str]] = {"package": {package_id}, "version": {v["id"]}}
    for kind in ("round", "theme", "question", "step"):
        held[kind] = {e["id"] for e in v.get(kind + "s", [])}
    for kind in ("round", "theme", "question", "step"):
        for i, e in enumerate(v.get(kind + "s", [])):
            if full and e.get("versionId") != v["id"]:
                out.append(f"{ptr}/{kind}s/{i}/versionId: not the version")
    parents = [] if reduced else [("themes", "roundId", "round"), ("steps", "questionId",
                                                                    "question")]
    for arr, ref, kind in [*parents, ("questions", "themeId", "theme")]:
        for i, e in enumerate(v[arr]):
            if e[ref] not in held[kind]:
                out.append(f"{ptr}/{arr}/{i}/{ref}: dangling")
    if not reduced:
        groups = [("rounds", None), ("themes", "roundId"), ("questions", "themeId"),
                  ("steps", "questionId")]
        for arr, ref in groups:
            siblings: dict[Any, list[int]] = defaultdict(list)
            for e in v[arr]:
                siblings[e[ref] if ref else None].append(e["position"])
            for parent, positions in siblings.items():
                if sorted(positions) != list(range(len(positions))):
                    out.append(f"{ptr}/{arr}: positions of {parent} not 0..n-1")
    prices: dict[str, list[int]] = defaultdict(list)
    for q in v["questions"]:
        prices[q["themeId"]].append(q["price"])
    for theme, ps in prices.items():
        if len(ps) != len(set(ps)):
            out.append(f"{ptr}/questions: duplicate price in theme {theme}")
    for i, r in enumerate(v["validation"]["results"]):
        if r["id"] not in held.get(r["entity"], set()):
            out.append(f"{ptr}/validation/results/{i}/id: names no {r['entity']} of the version")


def _ids(doc: Any) -> list[str]:
    """Every ``id`` of a record in the document (not ``changes``, which repeats the package)."""
    found: list[str] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("id"), str) and "level" not in node:
                found.append(node["id"])
            stack.extend(v for k, v in node.items() if k != "changes")
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _unique_ids(ids: list[str], out: list[str]) -> None:
    dup = [i for i, n in Counter(ids).items() if n > 1]
    if dup:
        out.append(f"duplicate ids: {dup[:5]}")


def _check_package_like(p: dict, out: list[str], *, full: bool, reduced: bool) -> None:
    if not p["createdAt"] <= p["updatedAt"]:
        out.append("package: createdAt after updatedAt")
    for i, v in enumerate(p["versions"]):
        _check_version(v, f"/versions/{i}", p["id"], p["createdAt"], full, reduced, out)


def references(kind: str, doc: Any) -> list[str]:
    """Cross-reference problems of a document that already conforms to its spec."""
    out: list[str] = []
    if kind == "package-full":
        _unique_ids(_ids({k: v for k, v in doc.items() if k not in ("categories", "user")}),
                    out)
        _check_package_like(doc, out, full=True, reduced=False)
        if doc["meta"]["packageId"] != doc["id"]:
            out.append("/meta/packageId: not the package")
        if doc["user"]["id"] != doc["userId"]:
            out.append("/user/id: not the author")
        for i, c in enumerate(doc["categories"]):
            if c["packageId"] != doc["id"] or c["categoryId"] != c["category"]["id"]:
                out.append(f"/categories/{i}: wrong ids")
    elif kind in ("version-list", "version"):
        versions = doc if kind == "version-list" else [doc]
        _unique_ids(_ids(versions), out)
        package_id = versions[0]["packageId"] if versions else ""
        for i, v in enumerate(versions):
            ptr = f"/{i}" if kind == "version-list" else ""
            _check_version(v, ptr, package_id, v["changes"]["createdAt"], False, False, out)
    elif kind == "version-created":
        v, maps = doc["version"], doc["idMaps"]
        news = [n for m in maps.values() for n in m.values()]
        olds = [o for m in maps.values() for o in m]
        _unique_ids([*news, *olds, v["id"]], out)
        held = {"package": {v["packageId"]}, "version": {v["id"]},
                **{kind[:-1]: set(m.values()) for kind, m in maps.items()}}
        for i, r in enumerate(v["validation"]["results"]):
            if r["id"] not in held.get(r["entity"], set()):
                out.append(f"/version/validation/results/{i}/id: names nothing")
    elif kind == "game":
        pkg = doc["pkg"]
        _unique_ids([doc["id"], *(h["id"] for h in doc["history"]), *_ids(pkg)], out)
        _check_package_like(pkg, out, full=False, reduced=True)
        if doc["packageId"] != pkg["id"]:
            out.append("/packageId: not pkg.id")
        if doc["versionId"] not in {v["id"] for v in pkg["versions"]}:
            out.append("/versionId: not a version of pkg")
        for i, h in enumerate(doc["history"]):
            if h["gameId"] != doc["id"] or h["createdAt"] < doc["createdAt"]:
                out.append(f"/history/{i}: wrong gameId or before the game")
        for key in ("completedAt", "stoppedAt"):
            if doc[key] is not None and doc[key] < doc["createdAt"]:
                out.append(f"/{key}: before the game")
    elif kind == "user-self":
        if doc["settings"]["userId"] != doc["user"]["id"]:
            out.append("/settings/userId: not the user")
    elif kind == "banner" and doc["createdAt"] > doc["updatedAt"]:
        out.append("banner: createdAt after updatedAt")
    return out


def problems(kind: str, doc: Any) -> list[str]:
    """Everything wrong with ``doc`` as a document of ``kind`` (empty when valid)."""
    out: list[str] = []
    _conform(doc, SPECS[kind], "", out)
    return out or references(kind, doc)


# --- the samples --------------------------------------------------------------------------
KIND_OF_FILE = {
    "package-full.json": "package-full", "version-list.json": "version-list",
    "version.json": "version", "version-created.json": "version-created",
    "game.json": "game", "user-self.json": "user-self", "user-update.json": "user-update",
    "banner-create.json": "banner-create", "banner.json": "banner",
    "banners.jsonl": "banner", "games.jsonl": "game",
}


def test_every_kind_has_a_sample() -> None:
    assert set(KIND_OF_FILE.values()) == set(SPECS)
    present = {p.name for p in SAMPLES.iterdir() if p.is_file()}
    assert set(KIND_OF_FILE) <= present, set(KIND_OF_FILE) - present


@pytest.mark.parametrize("name", sorted(KIND_OF_FILE))
def test_sample_is_valid(name: str) -> None:
    path = SAMPLES / name
    kind = KIND_OF_FILE[name]
    if name.endswith(".jsonl"):
        lines = path.read_bytes().splitlines()
        assert len(lines) >= 3
        records = [orjson.loads(line) for line in lines]
    else:
        records = [orjson.loads(path.read_bytes())]
    for record in records:
        assert problems(kind, record) == []


@pytest.mark.parametrize("name", sorted(n for n in KIND_OF_FILE if n.endswith(".json")))
def test_sample_is_pretty_printed(name: str) -> None:
    raw = (SAMPLES / name).read_bytes()
    assert raw == orjson.dumps(orjson.loads(raw), option=orjson.OPT_INDENT_2) + b"\n"


def test_samples_tell_one_story() -> None:
    """The game, list and single views are of the package in package-full."""
    full = orjson.loads((SAMPLES / "package-full.json").read_bytes())
    versions = orjson.loads((SAMPLES / "version-list.json").read_bytes())
    single = orjson.loads((SAMPLES / "version.json").read_bytes())
    game = orjson.loads((SAMPLES / "game.json").read_bytes())
    user = orjson.loads((SAMPLES / "user-self.json").read_bytes())
    ids = [v["id"] for v in full["versions"]]
    assert [v["id"] for v in versions] == ids
    assert single["id"] in ids and single["published"] is True
    assert game["packageId"] == full["id"] and game["versionId"] in ids
    assert [v["id"] for v in game["pkg"]["versions"]] == ids
    assert user["user"]["id"] == full["userId"]
    states = {(v["published"], v["deletedAt"] is not None) for v in full["versions"]}
    assert states == {(True, False), (False, False), (False, True)}  # published, draft, deleted
    kinds = {s["payload"]["media"]["type"] for v in full["versions"] for s in v["steps"]}
    assert kinds == {"image", "audio", "video"}


def test_checker_catches_problems() -> None:
    """The checker itself fails on broken documents (so a passing test means something)."""
    doc = orjson.loads((SAMPLES / "version.json").read_bytes())
    doc["questions"][0]["themeId"] = "000000000000000000000000"
    doc["rounds"][0]["versionId"] = doc["id"]
    doc["steps"][0]["position"] = "0"
    found = problems("version", doc)
    assert any("unknown versionId" in p for p in found)
    assert any("steps/0/position" in p for p in found)
    doc["rounds"][0].pop("versionId")
    doc["steps"][0]["position"] = 0
    assert any("themeId: dangling" in p for p in problems("version", doc))
