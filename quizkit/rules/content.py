"""Content warnings: empty containers, fractional counts, duplicate prices and variants, media
without a source, validation results about nothing, contradictory state flags.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from quizkit.findings import Severity
from quizkit.rules.catalog import rule
from quizkit.rules.checks import Emit, doc_check, version_check
from quizkit.rules.version_index import Collection, VersionIndex
from quizkit.rules.walk import VersionFacts, as_dict, as_list

GROUP = "content"

EMPTY_PACKAGE = rule(
    "C001", "empty-package", Severity.WARNING,
    "A package has no versions.",
    "A package without versions has no rounds to play. Checked on full packages and on a "
    "game's `pkg`.",
    bad='{"id": "p1", "versions": [], ...}',
    good='{"id": "p1", "versions": [{"id": "v1", "rounds": [...], ...}], ...}',
    group=GROUP,
)
EMPTY_VERSION = rule(
    "C002", "empty-version", Severity.WARNING,
    "A version has no rounds.",
    "A version without rounds cannot be played. (A created version's response carries no "
    "entity arrays and is not checked.)",
    bad='{"id": "v1", "rounds": [], "themes": [], ...}',
    good='{"id": "v1", "rounds": [{"id": "r1", ...}], ...}',
    group=GROUP,
)
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
EMPTY_THEME = rule(
    "C004", "empty-theme", Severity.WARNING,
    "A theme has no questions.",
    "No question of the version names this theme in its `themeId`.",
    bad='{"themes": [{"id": "t1", ...}], "questions": []}',
    good='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t1", ...}]}',
    group=GROUP,
)
EMPTY_QUESTION = rule(
    "C005", "empty-question", Severity.WARNING,
    "A question has no steps.",
    "No step of the version names this question in its `questionId`. Not checked in a game's "
    "view, which carries no steps.",
    bad='{"questions": [{"id": "q1", ...}], "steps": []}',
    good='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q1", ...}]}',
    group=GROUP,
)
FRACTIONAL = rule(
    "C006", "fractional-count", Severity.WARNING,
    "A count, position, price, duration, size, starts or slots value is fractional.",
    "These values count something. The interface types them as numbers without saying they are "
    "integers, so a fractional one is a warning rather than an error. (A negative one is "
    "`out-of-range`.) `2.0` is integral and fine.",
    bad='{"price": 150.5}', good='{"price": 150}',
    group=GROUP,
)
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
MEDIA_WITHOUT_SRC = rule(
    "C008", "media-without-src", Severity.WARNING,
    "A step's media or background media has an empty `src`.",
    "Media without a source cannot be shown. A step without media has `media: null`, which is "
    "fine; an object with an empty `src` is not.",
    bad='{"payload": {"media": {"type": "image", "src": "", "color": ""}, ...}}',
    good='{"payload": {"media": null, ...}}   # or a real src',
    group=GROUP,
)
EMPTY_VARIANT = rule(
    "C009", "empty-variant", Severity.WARNING,
    "An answer variant of a step is an empty (or blank) string.",
    "Players would see an empty choice.",
    bad='{"variants": ["Paris", "", "Rome"]}', good='{"variants": ["Paris", "Lyon", "Rome"]}',
    group=GROUP,
)
DUPLICATE_VARIANT = rule(
    "C010", "duplicate-variant", Severity.WARNING,
    "An answer variant of a step repeats an earlier one.",
    "Two identical choices cannot both be right, or both be wrong, in a meaningful way.",
    bad='{"variants": ["Paris", "Rome", "Paris"]}', good='{"variants": ["Paris", "Rome", "Oslo"]}',
    group=GROUP,
)
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
PUBLISHED_DELETED = rule(
    "C012", "published-deleted", Severity.WARNING,
    "A version is published and deleted.",
    "A deleted version (`deletedAt` set) is still marked `published: true`; players may be "
    "offered a version that no longer exists.",
    bad='{"published": true, "deletedAt": "2026-03-01T10:00:00Z", ...}',
    good='{"published": false, "deletedAt": "2026-03-01T10:00:00Z", ...}',
    group=GROUP,
)
BAN_EXPIRY_WITHOUT_BAN = rule(
    "C013", "ban-expiry-without-ban", Severity.WARNING,
    "An author record has `banExpiresAt` set but `banned: false`.",
    "A ban expiry only makes sense for a banned user: either the ban was lifted and the expiry "
    "left behind, or `banned` is wrong.",
    bad='{"banned": false, "banExpiresAt": "2026-05-01T00:00:00Z", ...}',
    good='{"banned": false, "banExpiresAt": null, ...}',
    group=GROUP,
)


def _fractional(obj: dict, key: str, base: str, emit: Emit) -> None:
    v = obj.get(key)
    if type(v) is float and not v.is_integer():
        emit(FRACTIONAL, f"{base}/{key}", f"{key} {v} is not a whole number")


def _parents(items: list, key: str) -> set[str]:
    out = set()
    for item in items:
        if type(item) is dict:
            p = item.get(key)
            if type(p) is str:
                out.add(p)
    return out


def _empties(items: list, used: set[str], base: str, r, message: str, emit: Emit) -> set[str]:
    """Report items whose id nobody uses; return the ids of ``items``."""
    ids = set()
    for i, item in enumerate(items):
        if type(item) is dict:
            x = item.get("id")
            if type(x) is str:
                ids.add(x)
                if x not in used:
                    emit(r, f"{base}/{i}", message.format(id=x))
    return ids


def _step_payload(payload: Any, base: str, emit: Emit) -> None:
    if type(payload) is not dict:
        return
    for key in ("media", "backgroundMedia"):
        media = payload.get(key)
        if type(media) is dict:
            src = media.get("src")
            if type(src) is str and not src.strip():
                emit(MEDIA_WITHOUT_SRC, f"{base}/payload/{key}/src", f"{key} has an empty src")
            if key == "backgroundMedia":
                _fractional(media, "duration", f"{base}/payload/{key}", emit)
    variants = payload.get("variants")
    if type(variants) is list and variants:
        seen: set[str] = set()
        for j, v in enumerate(variants):
            if type(v) is not str:
                continue
            if not v.strip():
                emit(EMPTY_VARIANT, f"{base}/payload/variants/{j}", "answer variant is empty")
            elif v in seen:
                emit(DUPLICATE_VARIANT, f"{base}/payload/variants/{j}",
                     f"answer variant {v!r} repeats an earlier one")
            else:
                seen.add(v)


@version_check("package-full", "version-list", "version", "game")
def version_content(v: VersionFacts, emit: Emit) -> None:
    base, version, view, pkg_id = v.base, v.version, v.view, v.package_id
    game = view == "game"
    ix = v.index
    rounds = as_list(version, "rounds")
    themes = as_list(version, "themes")
    questions = as_list(version, "questions")
    steps = as_list(version, "steps")
    if not rounds and type(version.get("rounds")) is list:
        emit(EMPTY_VERSION, f"{base}/rounds", "version has no rounds")
    if not game and not _all_used(ix.get("rounds"), ix.get("themes")):
        _empties(rounds, _parents(themes, "roundId"), f"{base}/rounds", EMPTY_ROUND,
                 "round {id!r} has no themes", emit)
    if not _all_used(ix.get("themes"), ix.get("questions")):
        _empties(themes, _parents(questions, "themeId"), f"{base}/themes", EMPTY_THEME,
                 "theme {id!r} has no questions", emit)
    if not _questions_clean(questions, ix.get("questions"), game):
        _questions(questions, f"{base}/questions", emit)
    if not game:
        if not _all_used(ix.get("questions"), ix.get("steps")):
            _empties(questions, _parents(steps, "questionId"), f"{base}/questions",
                     EMPTY_QUESTION, "question {id!r} has no steps", emit)
        if not _no_fraction(ix.get("rounds"), "position"):
            for i, r in enumerate(rounds):
                if type(r) is dict:
                    _fractional(r, "position", f"{base}/rounds/{i}", emit)
        if not _no_fraction(ix.get("themes"), "position"):
            for i, t in enumerate(themes):
                if type(t) is dict:
                    _fractional(t, "position", f"{base}/themes/{i}", emit)
        if not _steps_clean(steps, ix.get("steps")):
            for i, s in enumerate(steps):
                if type(s) is dict:
                    where = f"{base}/steps/{i}"
                    _fractional(s, "position", where, emit)
                    _fractional(s, "duration", where, emit)
                    _step_payload(s.get("payload"), where, emit)
    _validation_targets(base, version, pkg_id, ix, emit)
    if version.get("published") is True and type(version.get("deletedAt")) is str:
        emit(PUBLISHED_DELETED, f"{base}/published", "the version is published but deleted")


def _questions(questions: list, base: str, emit: Emit) -> None:
    """Positions and prices of questions (fractional), and duplicate prices within a theme."""
    prices: dict[tuple[str, int | float], int] = {}
    for i, q in enumerate(questions):
        if type(q) is not dict:
            continue
        _fractional(q, "position", f"{base}/{i}", emit)
        price = q.get("price")
        tp = type(price)
        if tp is not int and tp is not float:
            continue
        if tp is float and not price.is_integer():
            emit(FRACTIONAL, f"{base}/{i}/price", f"price {price} is not a whole number")
        theme = q.get("themeId")
        if type(theme) is str:
            first = prices.setdefault((theme, price), i)
            if first != i:
                emit(DUPLICATE_PRICE, f"{base}/{i}/price",
                     f"price {price} is also used by {base}/{first} in theme {theme!r}")


_COLLECTION = {"round": "rounds", "theme": "themes", "question": "questions", "step": "steps"}


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


def _validation_targets(base: str, version: dict, pkg_id: str | None,
                        ix: VersionIndex | None, emit: Emit) -> None:
    results = as_list(as_dict(version, "validation"), "results")
    if not results:
        return
    for i, res in enumerate(results):
        if type(res) is not dict:
            continue
        entity = res.get("entity")
        target = res.get("id")
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
            if ix is None:
                continue
            col = ix.get(_COLLECTION[entity])
            if col is None:  # the view carries no such collection
                continue
            ids = col.idset if col.idset is not None else _parents(col.items, "id")
            ok = target in ids
        else:
            continue
        if not ok and not _held_as_other(version, pkg_id, target):
            emit(UNKNOWN_VALIDATION_TARGET, f"{base}/validation/results/{i}/id",
                 f"validation result names {entity} {target!r}, which this version does "
                 f"not hold")


_PAYLOAD = itemgetter("payload")


def _no_fraction(col: Collection | None, key: str) -> bool:
    """Fast path: no item of the collection has a fractional ``key`` (an absent collection
    has no item)."""
    return col is None or col.no_fraction(key)


def _all_used(parent: Collection | None, child: Collection | None) -> bool:
    """Fast path: every item of ``parent`` is named by some item of ``child``."""
    return (parent is not None and parent.fast and child is not None
            and parent.idset is not None and child.parentset is not None
            and parent.idset <= child.parentset)


def _questions_clean(questions: list, col: Collection | None, game: bool) -> bool:
    """Fast path: whole prices (and positions), no price twice within a theme."""
    if col is None or col.parents is None or not col.no_fraction("price"):
        return False
    if not game and not col.no_fraction("position"):
        return False
    prices = col.column("price")
    try:
        return len(set(zip(col.parents, prices, strict=True))) == len(prices)  # type: ignore
    except TypeError:
        return False


def _steps_clean(steps: list, col: Collection | None = None) -> bool:
    """Fast path: whole positions and durations, media with a src, distinct non-blank
    variants. Any doubt (a wrong type included) sends the steps down the exact path.
    ``col``: the steps' collection in the version index (its columns are shared)."""
    if col is None or col.items is not steps:
        col = Collection(steps, None)
    if not (col.no_fraction("position") and col.no_fraction("duration")):
        return False
    try:
        for p in map(_PAYLOAD, steps):
            m = p["media"]
            if m is not None and not m["src"].strip():
                return False
            b = p["backgroundMedia"]
            if b is not None and (not b["src"].strip() or type(b["duration"]) is float):
                return False
            vs = p["variants"]
            if vs and (len(set(vs)) != len(vs) or not all(map(str.strip, vs))):
                return False
    except (KeyError, TypeError, AttributeError):
        return False
    return True


@version_check("version-created")
def created_content(v: VersionFacts, emit: Emit) -> None:
    base, version = v.base, v.version
    if version.get("published") is True and type(version.get("deletedAt")) is str:
        emit(PUBLISHED_DELETED, f"{base}/published", "the version is published but deleted")
    _validation_targets(base, version, None, None, emit)


@doc_check("package-full")
def package_content(doc: Any, emit: Emit) -> None:
    if type(doc) is not dict:
        return
    if type(doc.get("versions")) is list and not doc["versions"]:
        emit(EMPTY_PACKAGE, "/versions", "package has no versions")
    meta = as_dict(doc, "meta")
    if meta is not None:
        _fractional(meta, "starts", "/meta", emit)
        size = as_dict(meta, "size")
        if size is not None:
            for key in ("text", "images", "audio", "video"):
                _fractional(size, key, "/meta/size", emit)
    user = as_dict(doc, "user")
    if user is not None and user.get("banned") is False and \
            type(user.get("banExpiresAt")) is str:
        emit(BAN_EXPIRY_WITHOUT_BAN, "/user/banExpiresAt",
             "banExpiresAt is set but the user is not banned")


@doc_check("game")
def game_content(doc: Any, emit: Emit) -> None:
    if type(doc) is not dict:
        return
    pkg = as_dict(doc, "pkg")
    if pkg is not None and type(pkg.get("versions")) is list and not pkg["versions"]:
        emit(EMPTY_PACKAGE, "/pkg/versions", "package has no versions")
    settings = as_dict(doc, "settings")
    if settings is not None:
        _fractional(settings, "slots", "/settings", emit)
    for i, entry in enumerate(as_list(doc, "history")):
        if type(entry) is dict:
            _fractional(entry, "duration", f"/history/{i}", emit)


@doc_check("user-self")
def user_content(doc: Any, emit: Emit) -> None:
    user = as_dict(doc, "user")
    if user is not None:
        _fractional(user, "pkgCount", "/user", emit)


@doc_check("banner", "banner-create")
def banner_content(doc: Any, emit: Emit) -> None:
    if type(doc) is dict:
        _fractional(doc, "position", "", emit)
