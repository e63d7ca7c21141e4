"""Referential integrity within one document: ids that must point somewhere, or agree."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from quizkit.findings import Severity
from quizkit.rules.catalog import rule
from quizkit.rules.checks import Emit, doc_check, version_check
from quizkit.rules.version_index import Collection, column
from quizkit.rules.walk import VersionFacts, as_dict, as_list, as_str

GROUP = "references"

UNKNOWN_ROUND = rule(
    "R001", "unknown-round", Severity.ERROR,
    "A theme's `roundId` names no round of its version.",
    "Every theme belongs to a round of the same version. A `roundId` that names no round of "
    "that version is a dangling reference: the theme would never be played.",
    bad='{"rounds": [{"id": "r1", ...}], "themes": [{"id": "t1", "roundId": "r9", ...}]}',
    good='{"rounds": [{"id": "r1", ...}], "themes": [{"id": "t1", "roundId": "r1", ...}]}',
    group=GROUP,
)
UNKNOWN_THEME = rule(
    "R002", "unknown-theme", Severity.ERROR,
    "A question's `themeId` names no theme of its version.",
    "Every question belongs to a theme of the same version (in the game view too). A `themeId` "
    "that names no theme of that version is a dangling reference.",
    bad='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t2", ...}]}',
    good='{"themes": [{"id": "t1", ...}], "questions": [{"id": "q1", "themeId": "t1", ...}]}',
    group=GROUP,
)
UNKNOWN_QUESTION = rule(
    "R003", "unknown-question", Severity.ERROR,
    "A step's `questionId` names no question of its version.",
    "Every step belongs to a question of the same version. A `questionId` that names no "
    "question of that version is a dangling reference.",
    bad='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q7", ...}]}',
    good='{"questions": [{"id": "q1", ...}], "steps": [{"id": "s1", "questionId": "q1", ...}]}',
    group=GROUP,
)
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
CATEGORY_MISMATCH = rule(
    "R005", "category-id-mismatch", Severity.ERROR,
    "A category link's `category.id` differs from its `categoryId`.",
    "Each entry of a full package's `categories` links the package to one category: the "
    "embedded `category` is the one that `categoryId` names.",
    bad='{"categoryId": "c1", "category": {"id": "c2", ...}, ...}',
    good='{"categoryId": "c1", "category": {"id": "c1", ...}, ...}',
    group=GROUP,
)
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
GAME_PACKAGE = rule(
    "R007", "game-package-mismatch", Severity.ERROR,
    "A game's `packageId` differs from the id of its `pkg`.",
    "A game record embeds the package it is played with; its `packageId` names that package.",
    bad='{"packageId": "p1", "pkg": {"id": "p2", ...}, ...}',
    good='{"packageId": "p1", "pkg": {"id": "p1", ...}, ...}',
    group=GROUP,
)
GAME_VERSION = rule(
    "R008", "game-version-missing", Severity.ERROR,
    "A game's `versionId` is not one of its `pkg.versions`.",
    "A game is played with one version of its package; the embedded package lists its "
    "versions, and the game's version must be among them.",
    bad='{"versionId": "v3", "pkg": {"versions": [{"id": "v1", ...}], ...}, ...}',
    good='{"versionId": "v1", "pkg": {"versions": [{"id": "v1", ...}], ...}, ...}',
    group=GROUP,
)
HISTORY_GAME = rule(
    "R009", "history-game-mismatch", Severity.ERROR,
    "A game history entry's `gameId` differs from the game's `id`.",
    "The `history` of a game lists runs of that game only.",
    bad='{"id": "g1", "history": [{"id": "h1", "gameId": "g2", ...}], ...}',
    good='{"id": "g1", "history": [{"id": "h1", "gameId": "g1", ...}], ...}',
    group=GROUP,
)
AUTHOR_MISMATCH = rule(
    "R011", "author-mismatch", Severity.ERROR,
    "A full package's `user.id` differs from its `userId`.",
    "The `user` of a full package is the author record of the package, and `userId` names the "
    "author: the two agree.",
    bad='{"userId": "u1", "user": {"id": "u2", ...}, ...}',
    good='{"userId": "u1", "user": {"id": "u1", ...}, ...}',
    group=GROUP,
)


_VERSION_ID = itemgetter("versionId")


def refs_resolve(child: Collection | None, parent: Collection | None) -> bool:
    """Fast path: every parent reference of ``child`` names an item of ``parent``."""
    return (child is not None and child.fast and parent is not None
            and child.parentset is not None and parent.idset is not None
            and child.parentset <= parent.idset)


def values_within(items: list, getter: itemgetter, allowed: set, fast: bool = True) -> bool:
    """Fast path: every item has the key and its value is in ``allowed``."""
    values = column(items, getter)
    try:
        return fast and values is not None and set(values) <= allowed
    except TypeError:  # an unhashable value
        return False


def _ids(items: list) -> set[str]:
    out = set()
    for item in items:
        if type(item) is dict:
            i = item.get("id")
            if type(i) is str:
                out.add(i)
    return out


def _check_refs(items: list, key: str, targets: set[str], base: str, collection: str,
                r, what: str, emit: Emit) -> None:
    for i, item in enumerate(items):
        if type(item) is dict:
            ref = item.get(key)
            if type(ref) is str and ref not in targets:
                emit(r, f"{base}/{collection}/{i}/{key}",
                     f"{key} {ref!r} names no {what} of this version")


@version_check("package-full", "version-list", "version", "game")
def entity_references(v: VersionFacts, emit: Emit) -> None:
    base, version, view = v.base, v.version, v.view
    ix = v.index
    rounds = as_list(version, "rounds")
    themes = as_list(version, "themes")
    questions = as_list(version, "questions")
    if questions and not refs_resolve(ix.get("questions"), ix.get("themes")):
        _check_refs(questions, "themeId", _ids(themes), base, "questions", UNKNOWN_THEME,
                    "theme", emit)
    if view == "game":  # reduced themes carry no roundId, and there are no steps
        return
    if themes and not refs_resolve(ix.get("themes"), ix.get("rounds")):
        _check_refs(themes, "roundId", _ids(rounds), base, "themes", UNKNOWN_ROUND, "round",
                    emit)
    steps = as_list(version, "steps")
    if steps and not refs_resolve(ix.get("steps"), ix.get("questions")):
        _check_refs(steps, "questionId", _ids(questions), base, "steps", UNKNOWN_QUESTION,
                    "question", emit)


@version_check("package-full", "game")
def version_package(v: VersionFacts, emit: Emit) -> None:
    base, version, pkg_id = v.base, v.version, v.package_id
    got = version.get("packageId")
    if pkg_id is not None and type(got) is str and got != pkg_id:
        emit(PACKAGE_MISMATCH, f"{base}/packageId",
             f"version packageId {got!r} differs from the package id {pkg_id!r}")


@version_check("package-full")
def entity_version_ids(v: VersionFacts, emit: Emit) -> None:
    base, version = v.base, v.version
    vid = version.get("id")
    if type(vid) is not str:
        return
    allowed = {vid}
    for collection in ("rounds", "themes", "questions", "steps"):
        items = as_list(version, collection)
        if values_within(items, _VERSION_ID, allowed, v.index.fast):
            continue
        for i, item in enumerate(items):
            if type(item) is dict:
                got = item.get("versionId")
                if type(got) is str and got != vid:
                    emit(VERSION_MISMATCH, f"{base}/{collection}/{i}/versionId",
                         f"versionId {got!r} differs from the enclosing version {vid!r}")


@doc_check("version-list")
def list_package(doc: Any, emit: Emit) -> None:
    if type(doc) is not list:
        return
    first: str | None = None
    for i, v in enumerate(doc):
        got = as_str(v, "packageId")
        if got is None:
            continue
        if first is None:
            first = got
        elif got != first:
            emit(PACKAGE_MISMATCH, f"/{i}/packageId",
                 f"packageId {got!r} differs from {first!r} of the list's first version")


@doc_check("package-full")
def package_links(doc: Any, emit: Emit) -> None:
    if type(doc) is not dict:
        return
    pkg_id = as_str(doc, "id")
    if pkg_id is not None:
        got = as_str(as_dict(doc, "meta"), "packageId")
        if got is not None and got != pkg_id:
            emit(PACKAGE_MISMATCH, "/meta/packageId",
                 f"meta.packageId {got!r} differs from the package id {pkg_id!r}")
    for i, link in enumerate(as_list(doc, "categories")):
        if type(link) is not dict:
            continue
        got = link.get("packageId")
        if pkg_id is not None and type(got) is str and got != pkg_id:
            emit(PACKAGE_MISMATCH, f"/categories/{i}/packageId",
                 f"category link packageId {got!r} differs from the package id {pkg_id!r}")
        cid = link.get("categoryId")
        inner = as_str(as_dict(link, "category"), "id")
        if type(cid) is str and inner is not None and inner != cid:
            emit(CATEGORY_MISMATCH, f"/categories/{i}/category/id",
                 f"category.id {inner!r} differs from categoryId {cid!r}")
    author = as_str(doc, "userId")
    user_id = as_str(as_dict(doc, "user"), "id")
    if author is not None and user_id is not None and author != user_id:
        emit(AUTHOR_MISMATCH, "/user/id",
             f"user.id {user_id!r} differs from the package's userId {author!r}")


@doc_check("game")
def game_links(doc: Any, emit: Emit) -> None:
    if type(doc) is not dict:
        return
    pkg = as_dict(doc, "pkg")
    pkg_id = as_str(pkg, "id")
    got = as_str(doc, "packageId")
    if got is not None and pkg_id is not None and got != pkg_id:
        emit(GAME_PACKAGE, "/packageId",
             f"game packageId {got!r} differs from pkg.id {pkg_id!r}")
    vid = as_str(doc, "versionId")
    versions = pkg.get("versions") if pkg is not None else None
    if vid is not None and type(versions) is list and vid not in _ids(versions):
        emit(GAME_VERSION, "/versionId", f"versionId {vid!r} is not one of pkg.versions")
    gid = as_str(doc, "id")
    if gid is None:
        return
    for i, entry in enumerate(as_list(doc, "history")):
        got = as_str(entry, "gameId")
        if got is not None and got != gid:
            emit(HISTORY_GAME, f"/history/{i}/gameId",
                 f"history gameId {got!r} differs from the game id {gid!r}")
