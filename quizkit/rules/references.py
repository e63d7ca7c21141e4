"""Referential integrity within one document: ids that must point somewhere, or agree."""

from __future__ import annotations

from operator import countOf, itemgetter

from quizkit.catalog.findings import Severity, json_text
from quizkit.catalog.rule import Rule, rule
from quizkit.model.entities import (
    COLLECTIONS,
    ENTITY_KINDS,
    QUESTIONS,
    STEP_KINDS,
    STEPS,
    THEMES,
    Entity,
)
from quizkit.rules.checks import Emit, RuleCheck, check
from quizkit.rules.navigate import (
    DocumentFacts,
    VersionFacts,
    as_dict,
    as_list,
    as_str,
)
from quizkit.rules.version_index import Collection

GROUP = "references"


_VERSION_ID = itemgetter("versionId")


def refs_resolve(child: Collection | None, parent: Collection | None) -> bool:
    """Fast path: every parent reference of ``child`` names an item of ``parent``."""
    return (child is not None and child.fast and parent is not None
            and child.parentset is not None and parent.idset is not None
            and child.parentset <= parent.idset)


def all_equal(items: list, getter: itemgetter, value: str, fast: bool = True) -> bool:
    """Fast path: every item has the key and its value equals ``value`` (counted in C, no
    list or set built: comparing equal strings is cheaper than hashing them)."""
    try:
        return fast and countOf(map(getter, items), value) == len(items)
    except (KeyError, TypeError, IndexError):  # not an object, or no such key
        return False


def _ids(items: list) -> set[str]:
    out = set()
    for item in items:
        if type(item) is dict:
            i = item.get("id")
            if type(i) is str:
                out.add(i)
    return out


def _dangling(v: VersionFacts, children: str, key: str, parents: str, r: Rule, what: str,
              emit: Emit) -> None:
    """Report the items of ``children`` whose ``key`` names no item of ``parents``."""
    items = as_list(v.version, children)
    if not items or refs_resolve(v.index.get(children), v.index.get(parents)):
        return
    targets = _ids(as_list(v.version, parents))
    for i, item in enumerate(items):
        ref = as_str(item, key)
        if ref is not None and ref not in targets:
            emit(r, f"{v.base}/{children}/{i}/{key}",
                 f"{key} {json_text(ref)} names no {what} of this version")


def _dangling_check(r: Rule, child: Entity, *kinds: str) -> RuleCheck:
    """The check of ``r``: in every version, the items of ``child`` whose parent reference
    names no item of the parent collection (the model's parent link of ``child``)."""
    assert child.parent is not None and child.parent_field is not None
    parents, key, what = child.parent, child.parent_field, COLLECTIONS[child.parent]

    @check(r, *kinds)
    def dangling(d: DocumentFacts, emit: Emit) -> None:
        for v in d.versions:
            _dangling(v, child.key, key, parents, r, what, emit)

    return dangling


UNKNOWN_ROUND = rule(
    "R001", "unknown-round", Severity.ERROR,
    "A theme's `roundId` names no round of its version.",
    "Every theme belongs to a round of the same version. A `roundId` that names no round of "
    "that version is a dangling reference: the theme would never be played.",
    bad='{"rounds": [{"id": "r1", ...}], "themes": [{"id": "t1", "roundId": "r9", ...}]}',
    good='{"rounds": [{"id": "r1", ...}], "themes": [{"id": "t1", "roundId": "r1", ...}]}',
    group=GROUP,
)
unknown_round = _dangling_check(UNKNOWN_ROUND, THEMES, *STEP_KINDS)


UNKNOWN_THEME = rule(
    "R002", "unknown-theme", Severity.ERROR,
    "A question's `themeId` names no theme of its version.",
    "Every question belongs to a theme of the same version (in the game view too). A `themeId` "
    "that names no theme of that version is a dangling reference.",
    bad='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t2", ...}]}',
    good='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t1", ...}]}',
    group=GROUP,
)
unknown_theme = _dangling_check(UNKNOWN_THEME, QUESTIONS, *ENTITY_KINDS)


UNKNOWN_QUESTION = rule(
    "R003", "unknown-question", Severity.ERROR,
    "A step's `questionId` names no question of its version.",
    "Every step belongs to a question of the same version. A `questionId` that names no "
    "question of that version is a dangling reference.",
    bad='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q7", ...}]}',
    good='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q1", ...}]}',
    group=GROUP,
)
unknown_question = _dangling_check(UNKNOWN_QUESTION, STEPS, *STEP_KINDS)


PACKAGE_MISMATCH = rule(
    "R004", "package-id-mismatch", Severity.ERROR,
    "A `packageId` differs from the id of the package it is part of.",
    "A version's `packageId`, `meta.packageId` and every `categories[].packageId` of a full "
    "package equal the package's `id`; the versions of a game's `pkg` carry `pkg.id`; the "
    "versions of one version list all carry the same `packageId` (the list is of one package).",
    bad='{"id": "p1", "meta": {"packageId": "p2", ...}, ...}',
    good='{"id": "p1", "meta": {"packageId": "p1", ...}, ...}',
    group=GROUP,
)


@check(PACKAGE_MISMATCH, "package-full", "game", "version-list")
def package_id_mismatch(d: DocumentFacts, emit: Emit) -> None:
    doc = d.doc
    if d.kind == "version-list":
        first: str | None = None
        for i, v in enumerate(doc if type(doc) is list else ()):
            got = as_str(v, "packageId")
            if got is None:
                continue
            if first is None:
                first = got
            elif got != first:
                emit(PACKAGE_MISMATCH, f"/{i}/packageId",
                     f"packageId {json_text(got)} differs from {json_text(first)} of the list's "
                     "first version")
        return
    for v in d.versions:
        got = v.version.get("packageId")
        if v.package_id is not None and type(got) is str and got != v.package_id:
            emit(PACKAGE_MISMATCH, f"{v.base}/packageId",
                 f"version packageId {json_text(got)} differs from the package id "
                 f"{json_text(v.package_id)}")
    if d.kind != "package-full" or type(doc) is not dict:
        return
    pkg_id = as_str(doc, "id")
    if pkg_id is None:
        return
    got = as_str(as_dict(doc, "meta"), "packageId")
    if got is not None and got != pkg_id:
        emit(PACKAGE_MISMATCH, "/meta/packageId",
             f"meta.packageId {json_text(got)} differs from the package id {json_text(pkg_id)}")
    for i, link in enumerate(as_list(doc, "categories")):
        got = as_str(link, "packageId")
        if got is not None and got != pkg_id:
            emit(PACKAGE_MISMATCH, f"/categories/{i}/packageId",
                 f"category link packageId {json_text(got)} differs from the package id "
                 f"{json_text(pkg_id)}")


CATEGORY_MISMATCH = rule(
    "R005", "category-id-mismatch", Severity.ERROR,
    "A category link's `category.id` differs from its `categoryId`.",
    "Each entry of a full package's `categories` links the package to one category: the "
    "embedded `category` is the one that `categoryId` names.",
    bad='{"categoryId": "c1", "category": {"id": "c2", ...}, ...}',
    good='{"categoryId": "c1", "category": {"id": "c1", ...}, ...}',
    group=GROUP,
)


@check(CATEGORY_MISMATCH, "package-full")
def category_id_mismatch(d: DocumentFacts, emit: Emit) -> None:
    for i, link in enumerate(as_list(d.doc, "categories")):
        cid = as_str(link, "categoryId")
        inner = as_str(as_dict(link, "category"), "id")
        if cid is not None and inner is not None and inner != cid:
            emit(CATEGORY_MISMATCH, f"/categories/{i}/category/id",
                 f"category.id {json_text(inner)} differs from categoryId {json_text(cid)}")


VERSION_MISMATCH = rule(
    "R006", "version-id-mismatch", Severity.ERROR,
    "An entity's `versionId` differs from the id of its enclosing version (full view).",
    "In the full-package view every round, theme, question and step carries the id of the "
    "version that holds it. (In list views entities carry no `versionId`; one there is an "
    "`unknown-field`.)",
    bad='{"id": "v2", "rounds": [{"id": "r1", "versionId": "v1", ...}], ...}',
    good='{"id": "v2", "rounds": [{"id": "r1", "versionId": "v2", ...}], ...}',
    group=GROUP,
)


@check(VERSION_MISMATCH, "package-full")
def version_id_mismatch(d: DocumentFacts, emit: Emit) -> None:
    for v in d.versions:
        vid = v.version.get("id")
        if type(vid) is not str:
            continue
        for collection in ("rounds", "themes", "questions", "steps"):
            items = as_list(v.version, collection)
            if all_equal(items, _VERSION_ID, vid, v.index.fast):
                continue
            for i, item in enumerate(items):
                got = as_str(item, "versionId")
                if got is not None and got != vid:
                    emit(VERSION_MISMATCH, f"{v.base}/{collection}/{i}/versionId",
                         f"versionId {json_text(got)} differs from the enclosing version "
                         f"{json_text(vid)}")


GAME_PACKAGE = rule(
    "R007", "game-package-mismatch", Severity.ERROR,
    "A game's `packageId` differs from the id of its `pkg`.",
    "A game record embeds the package it is played with; its `packageId` names that package.",
    bad='{"packageId": "p1", "pkg": {"id": "p2", ...}, ...}',
    good='{"packageId": "p1", "pkg": {"id": "p1", ...}, ...}',
    group=GROUP,
)


@check(GAME_PACKAGE, "game")
def game_package_mismatch(d: DocumentFacts, emit: Emit) -> None:
    pkg_id = as_str(as_dict(d.doc, "pkg"), "id")
    got = as_str(d.doc, "packageId")
    if got is not None and pkg_id is not None and got != pkg_id:
        emit(GAME_PACKAGE, "/packageId", f"game packageId {json_text(got)} differs from pkg.id "
                                         f"{json_text(pkg_id)}")


GAME_VERSION = rule(
    "R008", "game-version-missing", Severity.ERROR,
    "A game's `versionId` is not one of its `pkg.versions`.",
    "A game is played with one version of its package; the embedded package lists its "
    "versions, and the game's version must be among them.",
    bad='{"versionId": "v3", "pkg": {"versions": [{"id": "v1", ...}], ...}, ...}',
    good='{"versionId": "v1", "pkg": {"versions": [{"id": "v1", ...}], ...}, ...}',
    group=GROUP,
)


@check(GAME_VERSION, "game")
def game_version_missing(d: DocumentFacts, emit: Emit) -> None:
    vid = as_str(d.doc, "versionId")
    pkg = as_dict(d.doc, "pkg")
    versions = pkg.get("versions") if pkg is not None else None
    if vid is not None and type(versions) is list and vid not in _ids(versions):
        emit(GAME_VERSION, "/versionId", f"versionId {json_text(vid)} is not one of pkg.versions")


HISTORY_GAME = rule(
    "R009", "history-game-mismatch", Severity.ERROR,
    "A game history entry's `gameId` differs from the game's `id`.",
    "The `history` of a game lists runs of that game only.",
    bad='{"id": "g1", "history": [{"id": "h1", "gameId": "g2", ...}], ...}',
    good='{"id": "g1", "history": [{"id": "h1", "gameId": "g1", ...}], ...}',
    group=GROUP,
)


@check(HISTORY_GAME, "game")
def history_game_mismatch(d: DocumentFacts, emit: Emit) -> None:
    gid = as_str(d.doc, "id")
    if gid is None:
        return
    for i, entry in enumerate(as_list(d.doc, "history")):
        got = as_str(entry, "gameId")
        if got is not None and got != gid:
            emit(HISTORY_GAME, f"/history/{i}/gameId",
                 f"history gameId {json_text(got)} differs from the game id {json_text(gid)}")


AUTHOR_MISMATCH = rule(
    "R011", "author-mismatch", Severity.ERROR,
    "A full package's `user.id` differs from its `userId`.",
    "The `user` of a full package is the author record of the package, and `userId` names the "
    "author: the two agree.",
    bad='{"userId": "u1", "user": {"id": "u2", ...}, ...}',
    good='{"userId": "u1", "user": {"id": "u1", ...}, ...}',
    group=GROUP,
)


@check(AUTHOR_MISMATCH, "package-full")
def author_mismatch(d: DocumentFacts, emit: Emit) -> None:
    author = as_str(d.doc, "userId")
    user_id = as_str(as_dict(d.doc, "user"), "id")
    if author is not None and user_id is not None and author != user_id:
        emit(AUTHOR_MISMATCH, "/user/id",
             f"user.id {json_text(user_id)} differs from the package's userId {json_text(author)}")
