"""Content warnings: empty containers, fractional counts, duplicate prices and variants, media
without a source, validation results about nothing, contradictory state flags.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from quizkit.catalog.findings import Severity, json_text
from quizkit.catalog.rule import Rule, rule
from quizkit.model.entities import (
    ENTITY_KINDS,
    QUESTIONS,
    STEP_KINDS,
    STEPS,
    THEMES,
    VERSION_KINDS,
    Entity,
)
from quizkit.rules.checks import Emit, RuleCheck, check
from quizkit.rules.navigate import (
    DocumentFacts,
    VersionFacts,
    as_dict,
    as_list,
)
from quizkit.rules.version_index import Collection

GROUP = "content"


def _fractional(obj: dict, key: str, base: str, emit: Emit) -> None:
    v = obj.get(key)
    if type(v) is float and not v.is_integer():
        emit(FRACTIONAL, f"{base}/{key}", f"{key} {v} is not a whole number")


def _ids(items: list, key: str) -> set[str]:
    """The string values of ``key`` among ``items``."""
    out = set()
    for item in items:
        if type(item) is dict:
            p = item.get(key)
            if type(p) is str:
                out.add(p)
    return out


def _empties(v: VersionFacts, parents: str, children: str, key: str, r: Rule, message: str,
             emit: Emit) -> None:
    """Report the items of ``parents`` that no item of ``children`` names in ``key``."""
    parent, child = v.index.get(parents), v.index.get(children)
    if parent is None:
        return
    if parent.fast and child is not None and parent.idset is not None and \
            child.parentset is not None and parent.idset <= child.parentset:
        return  # fast path: every parent is named
    used = _ids(child.items, key) if child is not None else set()
    for i, item in enumerate(parent.items):
        if type(item) is dict:
            x = item.get("id")
            if type(x) is str and x not in used:
                emit(r, f"{v.base}/{parents}/{i}", message.format(id=json_text(x)))


def _empties_check(r: Rule, child: Entity, message: str, *kinds: str) -> RuleCheck:
    """The check of ``r``: in every version, the items of the parent collection of ``child``
    (the model's parent link) that no item of ``child`` names; ``message`` takes ``{id}``."""
    assert child.parent is not None and child.parent_field is not None
    parents, key = child.parent, child.parent_field

    @check(r, *kinds)
    def empties(d: DocumentFacts, emit: Emit) -> None:
        for v in d.versions:
            _empties(v, parents, child.key, key, r, message, emit)

    return empties


def _prices_distinct(col: Collection) -> bool:
    """Fast path: no two questions of one theme at the same price."""
    prices = col.column("price")
    if not col.fast or col.parents is None or prices is None:
        return False
    try:
        return len(set(zip(col.parents, prices, strict=True))) == len(prices)
    except TypeError:  # an unhashable price
        return False


def _payload_member(step: Any, key: str) -> dict | None:
    return as_dict(as_dict(step, "payload"), key)


def _variants(d: DocumentFacts) -> Iterator[tuple[VersionFacts, int, int, str, bool]]:
    """(version, step, index, variant, seen before in its step) for every string answer
    variant of the steps that the fast path does not clear."""
    if d.proven:
        return
    for v in d.versions:
        steps = v.index.get("steps")
        if steps is None or v.index.payloads().variants:
            continue
        for i, step in enumerate(steps.items):
            variants = as_list(as_dict(step, "payload"), "variants")
            seen: set[str] = set()
            for j, variant in enumerate(variants):
                if type(variant) is str:
                    yield v, i, j, variant, variant in seen
                    if variant.strip():
                        seen.add(variant)


EMPTY_PACKAGE = rule(
    "C001", "empty-package", Severity.WARNING,
    "A package has no versions.",
    "A package without versions has no rounds to play. Checked on full packages and on a "
    "game's `pkg`.",
    bad='{"id": "p1", "versions": [], ...}',
    good='{"id": "p1", "versions": [{"id": "v1", "rounds": [...], ...}], ...}',
    group=GROUP,
)


@check(EMPTY_PACKAGE, "package-full", "game")
def empty_package(d: DocumentFacts, emit: Emit) -> None:
    holder, where = (d.doc, "/versions") if d.kind == "package-full" else \
        (as_dict(d.doc, "pkg"), "/pkg/versions")
    if type(holder) is dict and type(holder.get("versions")) is list and not holder["versions"]:
        emit(EMPTY_PACKAGE, where, "package has no versions")


EMPTY_VERSION = rule(
    "C002", "empty-version", Severity.WARNING,
    "A version has no rounds.",
    "A version without rounds cannot be played. (A created version's response carries no "
    "entity arrays and is not checked.)",
    bad='{"id": "v1", "rounds": [], "themes": [], ...}',
    good='{"id": "v1", "rounds": [{"id": "r1", ...}], ...}',
    group=GROUP,
)


@check(EMPTY_VERSION, *ENTITY_KINDS)
def empty_version(d: DocumentFacts, emit: Emit) -> None:
    for v in d.versions:
        rounds = v.version.get("rounds")
        if type(rounds) is list and not rounds:
            emit(EMPTY_VERSION, f"{v.base}/rounds", "version has no rounds")


EMPTY_ROUND = rule(
    "C003", "empty-round", Severity.WARNING,
    "A round has no themes.",
    "No theme of the version names this round in its `roundId`. Not checked in a game's view, "
    "whose themes carry no `roundId`.",
    bad='{"rounds": [{"id": "r1", ...}, {"id": "r2", ...}], '
        '"themes": [{"id": "t1", "roundId": "r1", ...}]}',
    good='{"rounds": [{"id": "r1", ...}], "themes": [{"id": "t1", "roundId": "r1", ...}]}',
    group=GROUP,
)
empty_round = _empties_check(EMPTY_ROUND, THEMES, "round {id} has no themes", *STEP_KINDS)


EMPTY_THEME = rule(
    "C004", "empty-theme", Severity.WARNING,
    "A theme has no questions.",
    "No question of the version names this theme in its `themeId`.",
    bad='{"themes": [{"id": "t1", ...}], "questions": []}',
    good='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t1", ...}]}',
    group=GROUP,
)
empty_theme = _empties_check(EMPTY_THEME, QUESTIONS, "theme {id} has no questions", *ENTITY_KINDS)


EMPTY_QUESTION = rule(
    "C005", "empty-question", Severity.WARNING,
    "A question has no steps.",
    "No step of the version names this question in its `questionId`. Not checked in a game's "
    "view, which carries no steps.",
    bad='{"questions": [{"id": "q1", ...}], "steps": []}',
    good='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q1", ...}]}',
    group=GROUP,
)
empty_question = _empties_check(EMPTY_QUESTION, STEPS, "question {id} has no steps", *STEP_KINDS)


FRACTIONAL = rule(
    "C006", "fractional-count", Severity.WARNING,
    "A count, position, price, duration, size, starts or slots value is fractional.",
    "These values count something. The interface types them as numbers without saying they are "
    "integers, so a fractional one is a warning rather than an error. (A negative one is "
    "`out-of-range`.) `2.0` is integral and fine.",
    bad='{"price": 150.5}', good='{"price": 150}',
    group=GROUP,
)


#: Where a document's counts outside its versions are: (pointer to an object, its keys).
_COUNTS: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "package-full": ((("meta",), ("starts",)),
                     (("meta", "size"), ("text", "images", "audio", "video"))),
    "game": ((("settings",), ("slots",)),),
    "user-self": ((("user",), ("pkgCount",)),),
    "banner": (((), ("position",)),),
    "banner-create": (((), ("position",)),),
}


@check(FRACTIONAL, "package-full", "version-list", "version", "game", "user-self", "banner",
       "banner-create")
def fractional_count(d: DocumentFacts, emit: Emit) -> None:
    if d.proven:
        return
    for path, keys in _COUNTS.get(d.kind, ()):
        holder = d.doc
        for key in path:
            holder = as_dict(holder, key)
        if type(holder) is dict:
            for key in keys:
                _fractional(holder, key, "".join(f"/{k}" for k in path), emit)
    if d.kind == "game":
        for i, entry in enumerate(as_list(d.doc, "history")):
            if type(entry) is dict:
                _fractional(entry, "duration", f"/history/{i}", emit)
    for v in d.versions:
        game = v.view == "game"
        for collection, keys in (("rounds", ("position",)), ("themes", ("position",)),
                                 ("questions", ("price",) if game else ("position", "price")),
                                 ("steps", ("position", "duration"))):
            if game and collection in ("rounds", "themes", "steps"):
                continue
            col = v.index.get(collection)
            if col is None:
                continue
            for key in keys:
                if col.no_fraction(key):
                    continue
                for i, item in enumerate(col.items):
                    if type(item) is dict:
                        _fractional(item, key, f"{v.base}/{collection}/{i}", emit)
        steps = v.index.get("steps")
        if not game and steps is not None and not v.index.payloads().background_whole:
            for i, step in enumerate(steps.items):
                media = _payload_member(step, "backgroundMedia")
                if media is not None:
                    _fractional(media, "duration", f"{v.base}/steps/{i}/payload/backgroundMedia",
                                emit)


DUPLICATE_PRICE = rule(
    "C007", "duplicate-price", Severity.WARNING,
    "Two questions of one theme have the same price.",
    "Prices tell the questions of a theme apart on the board; two at the same price are usually "
    "a copy-paste slip.",
    bad='{"questions": [{"themeId": "t1", "price": 100, ...}, {"themeId": "t1", "price": 100, '
        '...}]}',
    good='{"questions": [{"themeId": "t1", "price": 100, ...}, {"themeId": "t1", "price": 200, '
         '...}]}',
    group=GROUP,
)


@check(DUPLICATE_PRICE, *ENTITY_KINDS)
def duplicate_price(d: DocumentFacts, emit: Emit) -> None:
    for v in d.versions:
        col = v.index.get("questions")
        if col is None or _prices_distinct(col):
            continue
        base = f"{v.base}/questions"
        prices: dict[tuple[str, int | float], int] = {}
        for i, q in enumerate(col.items):
            if type(q) is not dict:
                continue
            price, theme = q.get("price"), q.get("themeId")
            if type(price) not in (int, float) or type(theme) is not str:
                continue
            first = prices.setdefault((theme, price), i)
            if first != i:
                emit(DUPLICATE_PRICE, f"{base}/{i}/price",
                     f"price {price} is also used by {base}/{first} in theme {json_text(theme)}")


MEDIA_WITHOUT_SRC = rule(
    "C008", "media-without-src", Severity.WARNING,
    "A step's media or background media has an empty `src`.",
    "Media without a source cannot be shown. A step without media has `media: null`, which is "
    "fine; an object with an empty `src` is not.",
    bad='{"payload": {"media": {"type": "image", "src": "", "color": ""}, ...}}',
    good='{"payload": {"media": null, ...}}   # or a real src',
    group=GROUP,
)


@check(MEDIA_WITHOUT_SRC, *STEP_KINDS)
def media_without_src(d: DocumentFacts, emit: Emit) -> None:
    if d.proven:
        return
    for v in d.versions:
        steps = v.index.get("steps")
        if steps is None or v.index.payloads().sources:
            continue
        for i, step in enumerate(steps.items):
            for key in ("media", "backgroundMedia"):
                media = _payload_member(step, key)
                src = media.get("src") if media is not None else None
                if type(src) is str and not src.strip():
                    emit(MEDIA_WITHOUT_SRC, f"{v.base}/steps/{i}/payload/{key}/src",
                         f"{key} has an empty src")


EMPTY_VARIANT = rule(
    "C009", "empty-variant", Severity.WARNING,
    "An answer variant of a step is an empty (or blank) string.",
    "Players would see an empty choice.",
    bad='{"variants": ["Paris", "", "Rome"]}', good='{"variants": ["Paris", "Lyon", "Rome"]}',
    group=GROUP,
)


@check(EMPTY_VARIANT, *STEP_KINDS)
def empty_variant(d: DocumentFacts, emit: Emit) -> None:
    for v, i, j, variant, _seen in _variants(d):
        if not variant.strip():
            emit(EMPTY_VARIANT, f"{v.base}/steps/{i}/payload/variants/{j}",
                 "answer variant is empty")


DUPLICATE_VARIANT = rule(
    "C010", "duplicate-variant", Severity.WARNING,
    "An answer variant of a step repeats an earlier one.",
    "Two identical choices cannot both be right, or both be wrong, in a meaningful way.",
    bad='{"variants": ["Paris", "Rome", "Paris"]}', good='{"variants": ["Paris", "Rome", "Oslo"]}',
    group=GROUP,
)


@check(DUPLICATE_VARIANT, *STEP_KINDS)
def duplicate_variant(d: DocumentFacts, emit: Emit) -> None:
    for v, i, j, variant, seen in _variants(d):
        if variant.strip() and seen:
            emit(DUPLICATE_VARIANT, f"{v.base}/steps/{i}/payload/variants/{j}",
                 f"answer variant {json_text(variant)} repeats an earlier one")


UNKNOWN_VALIDATION_TARGET = rule(
    "C011", "unknown-validation-target", Severity.WARNING,
    "A `validation.results` entry names an entity the version does not hold.",
    "Each result names an entity kind and id: `package` the package id, `version` the version "
    "id, `round`/`theme`/`question`/`step` an item of that collection of the version. A result "
    "about an id the version does not hold is stale. An id the version holds as another kind of "
    "entity is `validation-entity-mismatch` instead. Results with other entity kinds, and "
    "collections a view does not carry (steps in a game, all entities in a created version), "
    "are not checked.",
    bad='{"id": "v1", "validation": {"results": [{"entity": "question", "id": "q99", ...}]}, '
        '"questions": [{"id": "q1", ...}], ...}',
    good='{"id": "v1", "validation": {"results": [{"entity": "question", "id": "q1", ...}]}, '
         '"questions": [{"id": "q1", ...}], ...}',
    group=GROUP,
)


_COLLECTION = {"round": "rounds", "theme": "themes", "question": "questions", "step": "steps"}


@check(UNKNOWN_VALIDATION_TARGET, *VERSION_KINDS)
def unknown_validation_target(d: DocumentFacts, emit: Emit) -> None:
    for v in d.versions:
        version, pkg_id = v.version, v.package_id
        results = as_list(as_dict(version, "validation"), "results")
        for i, res in enumerate(results):
            if type(res) is not dict:
                continue
            entity, target = res.get("entity"), res.get("id")
            if type(entity) is not str or type(target) is not str:
                continue
            entity = entity.lower()
            if entity == "package":
                expected = pkg_id if pkg_id is not None else version.get("packageId")
                ok = type(expected) is not str or target == expected
            elif entity == "version":
                vid = version.get("id")
                ok = type(vid) is not str or target == vid
            elif entity in _COLLECTION:
                if v.view == "created":  # a created version's response holds no entities
                    continue
                col = v.index.get(_COLLECTION[entity])
                if col is None:  # the view carries no such collection
                    continue
                ok = target in (col.idset if col.idset is not None else _ids(col.items, "id"))
            else:
                continue
            if not ok and not _held_as_other(version, pkg_id, target):
                emit(UNKNOWN_VALIDATION_TARGET, f"{v.base}/validation/results/{i}/id",
                     f"validation result names {entity} {json_text(target)}, which this version "
                     "does "
                     f"not hold")


def _held_as_other(version: dict, pkg_id: str | None, target: str) -> bool:
    """Whether the version holds ``target`` as some entity: then the result names the wrong
    kind of entity, which validation-entity-mismatch (V003) reports, not this rule."""
    if target in (pkg_id, version.get("packageId"), version.get("id")):
        return True
    for collection in _COLLECTION.values():
        items = version.get(collection)
        if type(items) is list and any(type(i) is dict and i.get("id") == target
                                       for i in items):
            return True
    return False


PUBLISHED_DELETED = rule(
    "C012", "published-deleted", Severity.WARNING,
    "A version is published and deleted.",
    "A deleted version (`deletedAt` set) is still marked `published: true`; players may be "
    "offered a version that no longer exists.",
    bad='{"published": true, "deletedAt": "2026-03-01T10:00:00Z", ...}',
    good='{"published": false, "deletedAt": "2026-03-01T10:00:00Z", ...}',
    group=GROUP,
)


@check(PUBLISHED_DELETED, *VERSION_KINDS)
def published_deleted(d: DocumentFacts, emit: Emit) -> None:
    for v in d.versions:
        if v.version.get("published") is True and type(v.version.get("deletedAt")) is str:
            emit(PUBLISHED_DELETED, f"{v.base}/published",
                 "the version is published but deleted")


BAN_EXPIRY_WITHOUT_BAN = rule(
    "C013", "ban-expiry-without-ban", Severity.WARNING,
    "An author record has `banExpiresAt` set but `banned: false`.",
    "A ban expiry only makes sense for a banned user: either the ban was lifted and the expiry "
    "left behind, or `banned` is wrong.",
    bad='{"banned": false, "banExpiresAt": "2026-05-01T00:00:00Z", ...}',
    good='{"banned": false, "banExpiresAt": null, ...}',
    group=GROUP,
)


@check(BAN_EXPIRY_WITHOUT_BAN, "package-full")
def ban_expiry_without_ban(d: DocumentFacts, emit: Emit) -> None:
    user = as_dict(d.doc, "user")
    if user is not None and user.get("banned") is False and \
            type(user.get("banExpiresAt")) is str:
        emit(BAN_EXPIRY_WITHOUT_BAN, "/user/banExpiresAt",
             "banExpiresAt is set but the user is not banned")
