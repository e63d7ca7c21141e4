"""Realistic defects for broken corpus documents: one per document, with its expected finding.

Each defect knows the rule a validator should report and the JSON Pointer of the finding: the
value for type, format, range, reference and duplicate problems and for unknown fields, the
object for missing fields, ``""`` for a truncated file. Targets are chosen so that the defect
causes that one problem only: no ids or parent references are removed, positions are left
alone, and the top-level keys that tell a document's kind are never touched.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from quizkit.generate.clock import ms_of
from quizkit.model.entities import KINDS

# Rule names the validator is expected to use. The first five and invalid-json are in the
# catalog; dangling-reference and duplicate-id are proposed names for the structural checks.
WRONG_TYPE, MISSING, UNKNOWN, FORMAT, RANGE = (
    "wrong-type", "missing-field", "unknown-field", "invalid-format", "out-of-range")
DANGLING, DUPLICATE, INVALID_JSON = "dangling-reference", "duplicate-id", "invalid-json"

REQUEST_KINDS = {k.name for k in KINDS if k.request}
ENTITY_KINDS = {"package-full", "version-list", "version", "game"}
FREE_KEYS = {"multipliers", "timers", "membership", "idMaps"}  # objects whose keys are data
BOOL_KEYS = {"published", "explicit", "verified", "emailVerified", "anonymous", "prePlay",
             "teamMode", "current", "banned"}
COUNT_KEYS = {"duration", "starts", "slots", "pkgCount", "timestamp"}
TEXT_KEYS = {"caption", "about", "description", "text", "fingerprint", "source", "message",
             "communicationInviteUrl", "realname"}
REMOVABLE = {"name", "description", "type", "source", "caption", "variants", "text", "color",
             "explicit", "verified", "about", "realname", "published", "rating", "fingerprint",
             "emoji", "communicationInviteUrl", "visibility", "dumpArchiveFileKey", "duration",
             "role", "reputation", "emailVerified", "pkgCount", "backgroundMedia", "teamMode"}
DATE_KEYS = {"createdAt", "updatedAt", "deletedAt", "completedAt", "stoppedAt", "banExpiresAt"}
NEGATIVE_KEYS = {"price", "duration", "starts", "slots", "pkgCount", "text", "images", "audio",
                 "video"}
EXTRA_FIELDS = (("legacyId", "pkg_2019_0412"), ("notes", "check the audio levels"),
                ("archived", False), ("locale", "en-GB"), ("sortKey", 3))
WEIGHTS = {WRONG_TYPE: 15, MISSING: 14, UNKNOWN: 12, FORMAT: 12, RANGE: 12, DANGLING: 10,
           DUPLICATE: 10, INVALID_JSON: 15}


@dataclass(frozen=True)
class Defect:
    rule: str
    pointer: str
    what: str


@dataclass
class Slot:
    """A value in the document: its pointer, its container and its key in it."""

    pointer: str
    parent: Any
    key: Any
    value: Any
    parent_key: Any  # the key under which the container itself sits


def _walk(node: Any, pointer: str = "", parent_key: Any = None) -> Iterator[Slot]:
    if isinstance(node, dict):
        if parent_key in FREE_KEYS:
            return
        for key, value in node.items():
            p = f"{pointer}/{key}"
            yield Slot(p, node, key, value, parent_key)
            yield from _walk(value, p, key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            p = f"{pointer}/{i}"
            yield Slot(p, node, i, value, parent_key)
            yield from _walk(value, p, parent_key)


def _parent_pointer(pointer: str) -> str:
    return pointer.rsplit("/", 1)[0]


def _depth(pointer: str) -> int:
    return pointer.count("/")


def _wrong_type(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    slots = [s for s in _walk(doc) if isinstance(s.key, str) and (
        (s.key in BOOL_KEYS and isinstance(s.value, bool))
        or (s.key in COUNT_KEYS and type(s.value) is int)
        or (s.key in TEXT_KEYS and isinstance(s.value, str)))
        and not (kind in REQUEST_KINDS and s.value is None)]
    if not slots:
        return None
    s = rng.choice(slots)
    if isinstance(s.value, bool):
        s.parent[s.key] = "true" if s.value else "false"
        what = f"`{s.key}` is the string \"{s.parent[s.key]}\" instead of a boolean."
    elif isinstance(s.value, int):
        s.parent[s.key] = str(s.value)
        what = f"`{s.key}` is the string \"{s.value}\" instead of a number."
    else:
        s.parent[s.key] = None
        what = f"`{s.key}` is null instead of a string."
    return Defect(WRONG_TYPE, s.pointer, what)


def _missing(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    if kind in REQUEST_KINDS:
        return None
    slots = [s for s in _walk(doc) if s.key in REMOVABLE and _depth(s.pointer) >= 2
             and isinstance(s.parent, dict)]
    if not slots:
        return None
    s = rng.choice(slots)
    del s.parent[s.key]
    return Defect(MISSING, _parent_pointer(s.pointer), f"The object has no `{s.key}`.")


def _unknown(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    objects = [s for s in _walk(doc) if isinstance(s.value, dict)
               and s.key not in FREE_KEYS and s.parent_key not in FREE_KEYS]
    if not objects:
        return None
    if kind in ("version-list", "version"):
        entities = [s for s in objects if s.parent_key in ("rounds", "themes", "questions",
                                                           "steps")]
        if entities and rng.random() < 0.6:
            s = rng.choice(entities)
            s.value["versionId"] = f"{rng.getrandbits(96):024x}"
            return Defect(UNKNOWN, s.pointer + "/versionId",
                          "An entity of a version view carries `versionId`, "
                          "which only the full view has.")
    s = rng.choice(objects)
    key, value = rng.choice(EXTRA_FIELDS)
    if key in s.value:
        return None
    s.value[key] = value
    return Defect(UNKNOWN, f"{s.pointer}/{key}",
                  f"The object has a field `{key}` the interface does not "
                  "list.")


def _bad_date(rng: random.Random, text: str) -> str:
    ms = ms_of(text)
    date, time = text[:10], text[11:19]
    y, m, d = date.split("-")
    return rng.choice((
        f"{d}/{m}/{y} {time}",  # day/month/year
        date,  # a date only
        f"{date} {time}",  # no T, no offset
        f"{date}T{time}",  # no offset
        str(ms),  # epoch milliseconds as a string
        f"{y}-{m}-{d}T{time}.{ms % 1000:03d}+0000",  # offset without a colon
    ))


def _format(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    slots = [s for s in _walk(doc) if s.key in DATE_KEYS and isinstance(s.value, str)
             and not (kind == "user-self" and s.pointer == "/user/createdAt")]
    if not slots:
        return None
    s = rng.choice(slots)
    s.parent[s.key] = _bad_date(rng, s.value)
    return Defect(FORMAT, s.pointer, f"`{s.key}` is \"{s.parent[s.key]}\", not an RFC 3339 "
                  "date-time.")


def _negative(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    slots = [s for s in _walk(doc) if s.key in NEGATIVE_KEYS and type(s.value) is int]
    prices = [s for s in slots if s.key == "price" and s.value > 0]
    if prices and rng.random() < 0.6:
        slots = prices
    if not slots:
        return None
    s = rng.choice(slots)
    s.parent[s.key] = -s.value if s.value > 0 else -1
    return Defect(RANGE, s.pointer, f"`{s.key}` is negative ({s.parent[s.key]}).")


def _versions(kind: str, doc: Any) -> list[tuple[str, dict]]:
    if kind == "package-full":
        return [(f"/versions/{i}", v) for i, v in enumerate(doc["versions"])]
    if kind == "version-list":
        return [(f"/{i}", v) for i, v in enumerate(doc)]
    if kind == "version":
        return [("", doc)]
    if kind == "game":
        return [(f"/pkg/versions/{i}", v) for i, v in enumerate(doc["pkg"]["versions"])]
    return []


def _dangling(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    versions = [(p, v) for p, v in _versions(kind, doc) if v["questions"]]
    if not versions:
        return None
    ptr, v = rng.choice(versions)
    if kind == "game":
        index = rng.randrange(len(v["questions"]))
    else:  # the last question of its theme, so no gap opens in the theme's positions
        last: dict[str, int] = {}
        for i, q in enumerate(v["questions"]):
            if q["position"] >= v["questions"][last.get(q["themeId"], i)]["position"]:
                last[q["themeId"]] = i
        index = rng.choice(sorted(last.values()))
    v["questions"][index]["themeId"] = f"{rng.getrandbits(96):024x}"
    return Defect(DANGLING, f"{ptr}/questions/{index}/themeId",
                  "A question's themeId names no theme of its version.")


def _duplicate(rng: random.Random, kind: str, doc: Any) -> Defect | None:
    if kind == "game":
        if len(doc["history"]) < 2:
            return None
        k = rng.randrange(1, len(doc["history"]))
        doc["history"][k]["id"] = doc["history"][k - 1]["id"]
        return Defect(DUPLICATE, f"/history/{k}/id",
                      "Two history entries have the same id.")
    versions = [(p, v) for p, v in _versions(kind, doc) if len(v["steps"]) >= 2]
    if not versions:
        return None
    ptr, v = rng.choice(versions)
    k = rng.randrange(1, len(v["steps"]))
    v["steps"][k]["id"] = v["steps"][k - 1]["id"]
    return Defect(DUPLICATE, f"{ptr}/steps/{k}/id",
                  "A step has the same id as the step before it (the pointer is the second "
                  "occurrence).")


_MUTATIONS = {WRONG_TYPE: _wrong_type, MISSING: _missing, UNKNOWN: _unknown, FORMAT: _format,
              RANGE: _negative, DANGLING: _dangling, DUPLICATE: _duplicate}


def break_document(rng: random.Random, kind: str, doc: Any) -> tuple[Any, Defect | None]:
    """A broken copy of ``doc`` and its defect; ``(doc, None)`` means: truncate the bytes.

    ``doc`` itself is not changed (generated documents share sub-objects).
    """
    rules = [r for r in WEIGHTS if r != INVALID_JSON and (
        r not in (DANGLING, DUPLICATE) or kind in ENTITY_KINDS)]
    weights = [WEIGHTS[r] for r in rules]
    for _ in range(4):
        if rng.random() < WEIGHTS[INVALID_JSON] / 100:
            break
        rule = rng.choices(rules, weights)[0]
        copy = orjson.loads(orjson.dumps(doc))
        defect = _MUTATIONS[rule](rng, kind, copy)
        if defect is not None:
            return copy, defect
    return doc, None


def truncate(rng: random.Random, data: bytes) -> bytes:
    """Cut serialized JSON somewhere in its middle (a download that stopped)."""
    return data[: rng.randint(len(data) // 10, len(data) * 9 // 10)]


TRUNCATED_WHAT = "The document stops in the middle (truncated)."
