"""Checks across the files of one run, over typed facts gathered in the engine's one pass.

Fact collectors run in the worker that checks a document and yield ``(pointer, fact)`` pairs
(:mod:`quizkit.rules.facts`); quick content digests are computed there, and the engine
records where each fact is (path, record, pointer). Batch checks run once in the main process
over the facts of every document; the engine then finds the line and column of what they
report (:mod:`quizkit.checks.reread`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from quizkit.catalog.findings import Finding, Severity, json_text
from quizkit.catalog.rule import Rule, rule
from quizkit.rules.checks import batch_check, fact_collector
from quizkit.rules.facts import (
    Authored,
    Content,
    CurrentBanner,
    Fact,
    GameVersion,
    Located,
    PackageVersions,
    Place,
    ProfileBanner,
    ProfilePackageCount,
    digest,
    quick_digest,
)
from quizkit.rules.navigate import as_dict, as_list, as_str

GROUP = "batch"

CONFLICTING_DUPLICATE = rule(
    "B001", "conflicting-duplicate", Severity.ERROR,
    "The same package, version or game id appears in two documents with different content.",
    "Two exports of one run hold the same package, version or game (by id) but differ: one of "
    "them is stale, or two records collide on an id. Content is compared by a hash of the "
    "record with its keys sorted, so key order and whitespace do not matter. Versions are "
    "compared within one view (full package, version list or single version, created version). "
    "The finding is reported on the later of the two documents in input order and names the "
    "earlier one. Input order is the order of the paths on the command line; a directory is "
    "walked in name order, each directory's files before its subdirectories, so "
    "`quizkit validate DIR` and the same files listed in sorted order (`DIR/a/x.json DIR/b.json`)"
    " can report it on different files.",
    bad="exports/a.json and exports/b.json: package p1, names 'Capitals' and 'Capitals 2'",
    good="one export per package, or identical copies",
    group=GROUP,
)
IDENTICAL_DUPLICATE = rule(
    "B002", "identical-duplicate", Severity.INFO,
    "The same package, version or game appears twice in a run with identical content.",
    "Harmless, but the run checks (and an analysis would count) the same record twice. "
    "Reported on the later of the two documents in input order, as `conflicting-duplicate` "
    "explains.",
    bad="exports/p1.json and backup/p1.json, byte-for-byte the same package",
    good="exports/p1.json only",
    group=GROUP,
)
GAME_VERSION_NOT_EXPORTED = rule(
    "B003", "game-version-not-exported", Severity.WARNING,
    "A game's version is missing from its package's full export in the same run.",
    "The run holds the full export of the game's package, but that export has no version with "
    "the game's `versionId`: the export is older than the game, or the version was lost.",
    bad='game.json: {"packageId": "p1", "versionId": "v3", ...}; p1.json: versions v1, v2',
    good='game.json: {"packageId": "p1", "versionId": "v2", ...}; p1.json: versions v1, v2',
    group=GROUP,
)
MULTIPLE_CURRENT_BANNERS = rule(
    "B004", "multiple-current-banners", Severity.ERROR,
    "A user has more than one current banner in one slot.",
    "At most one banner record per user and slot is the active one (`current: true`).",
    bad='b1.json: {"userId": "u1", "slot": "top", "current": true, ...}; '
        'b2.json: {"userId": "u1", "slot": "top", "current": true, ...}',
    good='b2.json: {"userId": "u1", "slot": "top", "current": false, ...}',
    group=GROUP,
)
CURRENT_BANNER_MISMATCH = rule(
    "B005", "current-banner-mismatch", Severity.WARNING,
    "A user's current banner matches none of the user's current banner records in the run.",
    "A user profile carries the payload of the current banner. When the run holds current "
    "banner records of that user, the profile's banner is one of their payloads.",
    bad='user.json: {"user": {"id": "u1", "banner": {"value": "Hi"}, ...}}; '
        'banner.json: {"userId": "u1", "current": true, "payload": {"value": "Hello"}, ...}',
    good="the profile's banner payload equals the current banner record's payload",
    group=GROUP,
)
PKG_COUNT_MISMATCH = rule(
    "B006", "pkg-count-mismatch", Severity.INFO,
    "A user's `pkgCount` is less than the number of that user's packages in the run.",
    "Counted: distinct packages that are not deleted, from full packages and games' `pkg`, "
    "whose `userId` is the user. A run holding fewer packages than `pkgCount` is normal (a "
    "partial dump) and not reported; holding more means the count is stale. Info, because "
    "the service may count differently (for example drafts).",
    bad='user.json: {"user": {"id": "u1", "pkgCount": 3, ...}}; the run holds 4 packages of u1',
    good='user.json: {"user": {"id": "u1", "pkgCount": 4, ...}}',
    group=GROUP,
)


def _version_ids(versions: list) -> tuple[str, ...]:
    return tuple(v["id"] for v in versions if type(v) is dict and type(v.get("id")) is str)


# --- collectors -------------------------------------------------------------------------------

@fact_collector("package-full")
def package_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    if type(doc) is not dict:
        return
    pkg_id = as_str(doc, "id")
    versions = as_list(doc, "versions")
    for i, v in enumerate(versions):
        vid = as_str(v, "id")
        if vid is not None:
            yield f"/versions/{i}", Content("version", vid, "full", None, pkg_id)
    if pkg_id is None:
        return
    yield "", Content("package", pkg_id, "full", None)
    yield "/versions", PackageVersions(pkg_id, _version_ids(versions))
    author = as_str(doc, "userId")
    if author is not None:
        yield "/userId", Authored(author, pkg_id, doc.get("deletedAt") is not None)


@fact_collector("version-list")
def list_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    if type(doc) is list:
        for i, v in enumerate(doc):
            vid = as_str(v, "id")
            if vid is not None:
                yield f"/{i}", Content("version", vid, "list", quick_digest(v))


@fact_collector("version")
def version_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    vid = as_str(doc, "id")
    if vid is not None:
        yield "", Content("version", vid, "list", None)


@fact_collector("version-created")
def created_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    v = as_dict(doc, "version")
    vid = as_str(v, "id")
    if vid is not None:
        yield "/version", Content("version", vid, "created", quick_digest(v))


@fact_collector("game")
def game_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    gid = as_str(doc, "id")
    if gid is not None:
        yield "", Content("game", gid, "game", None)
    pkg_id = as_str(doc, "packageId")
    vid = as_str(doc, "versionId")
    pkg = as_dict(doc, "pkg")
    # A version missing from the game's own pkg is game-version-missing already.
    if pkg_id is not None and vid is not None and vid in _version_ids(as_list(pkg, "versions")):
        yield "/versionId", GameVersion(pkg_id, vid)
    author = as_str(pkg, "userId")
    pid = as_str(pkg, "id")
    if author is not None and pid is not None:
        yield "/pkg/userId", Authored(author, pid, pkg.get("deletedAt") is not None)


@fact_collector("banner")
def banner_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    if type(doc) is not dict:
        return
    user = as_str(doc, "userId")
    slot = doc.get("slot")
    if user is None or type(slot) is not str or doc.get("current") is not True:
        return
    payload = doc.get("payload")
    yield "/current", CurrentBanner(user, slot, as_str(doc, "id"),
                                    digest(payload) if type(payload) is dict else None)


@fact_collector("user-self")
def user_facts(doc: Any) -> Iterator[tuple[str, Fact]]:
    user = as_dict(doc, "user")
    uid = as_str(user, "id")
    if uid is None:
        return
    banner = user.get("banner")
    if type(banner) is dict:
        yield "/user/banner", ProfileBanner(uid, digest(banner))
    count = user.get("pkgCount")
    if type(count) in (int, float):
        yield "/user/pkgCount", ProfilePackageCount(uid, count)


# --- batch checks ------------------------------------------------------------------------------

def _finding(r: Rule, place: Place, message: str) -> Finding:
    return Finding(path=place.path, pointer=place.pointer, rule=r.name, severity=r.severity,
                   message=message, record=place.record, code=r.code)


def _where(first: Place, here: str) -> str:
    """Where the first of two occurrences is; its pointer only when it differs from ``here``
    (the finding's own pointer, which every report already shows once)."""
    at = f"{first.path} (record {first.record})" if first.record is not None else first.path
    if first.pointer == here:
        return f"{at}, at the same pointer" if first.pointer else at
    return f"{at} at {first.pointer}" if first.pointer else at


def _repeats(facts: Sequence[Located]) -> Iterator[tuple[Place, Content, Place, Content]]:
    """(first place, first, place, content) for each content fact whose id was met before,
    in input order: one dictionary pass, linear in the number of copies."""
    first: dict[tuple[str, str, str], tuple[Place, Content]] = {}
    for place, fact in facts:
        if type(fact) is not Content:
            continue
        seen = first.setdefault((fact.entity, fact.id, fact.view), (place, fact))
        if seen[1] is fact:
            continue
        if fact.entity == "version" and fact.parent is not None and \
                fact.parent == seen[1].parent:
            continue  # two copies of one package: the package comparison speaks for both
        yield seen[0], seen[1], place, fact


@batch_check(CONFLICTING_DUPLICATE)
def conflicting_duplicate(facts: Sequence[Located]) -> Iterator[Finding]:
    for seen_place, seen, place, fact in _repeats(facts):
        if fact.digest != seen.digest:
            yield _finding(CONFLICTING_DUPLICATE, place,
                           f"{fact.entity} {json_text(fact.id)} also appears, with different "
                           "content, "
                           f"in {_where(seen_place, place.pointer)}")


@batch_check(IDENTICAL_DUPLICATE)
def identical_duplicate(facts: Sequence[Located]) -> Iterator[Finding]:
    for seen_place, seen, place, fact in _repeats(facts):
        if fact.digest == seen.digest:
            yield _finding(IDENTICAL_DUPLICATE, place,
                           f"{fact.entity} {json_text(fact.id)} also appears, identical, in "
                           f"{_where(seen_place, place.pointer)}")


@batch_check(GAME_VERSION_NOT_EXPORTED)
def game_version_not_exported(facts: Sequence[Located]) -> Iterator[Finding]:
    exported: dict[str, set[str]] = {}
    for _place, fact in facts:
        if type(fact) is PackageVersions:
            exported.setdefault(fact.package_id, set()).update(fact.version_ids)
    if not exported:
        return
    for place, fact in facts:
        if type(fact) is GameVersion:
            versions = exported.get(fact.package_id)
            if versions is not None and fact.version_id not in versions:
                yield _finding(GAME_VERSION_NOT_EXPORTED, place,
                               f"version {json_text(fact.version_id)} is not among the versions of "
                               f"package {json_text(fact.package_id)} exported in this run")


@batch_check(MULTIPLE_CURRENT_BANNERS)
def multiple_current_banners(facts: Sequence[Located]) -> Iterator[Finding]:
    current: dict[tuple[str, str], list[tuple[Place, CurrentBanner]]] = defaultdict(list)
    for place, fact in facts:
        if type(fact) is CurrentBanner:
            group = current[(fact.user_id, fact.slot)]
            if fact.banner_id is None or all(b.banner_id != fact.banner_id for _, b in group):
                group.append((place, fact))
    for (user, slot), group in current.items():
        p0, b0 = group[0]
        for place, banner in group[1:]:
            yield _finding(MULTIPLE_CURRENT_BANNERS, place,
                           f"banner {json_text(banner.banner_id)} is current for user "
                           f"{json_text(user)} in slot "
                           f"{json_text(slot)}, and so is {json_text(b0.banner_id)} in "
                           f"{_where(p0, place.pointer)}")


@batch_check(CURRENT_BANNER_MISMATCH)
def current_banner_mismatch(facts: Sequence[Located]) -> Iterator[Finding]:
    payloads: dict[str, set[bytes | None]] = defaultdict(set)
    for _place, fact in facts:
        if type(fact) is CurrentBanner:
            payloads[fact.user_id].add(fact.payload_digest)
    for place, fact in facts:
        if type(fact) is ProfileBanner and fact.user_id in payloads and \
                fact.digest not in payloads[fact.user_id]:
            yield _finding(CURRENT_BANNER_MISMATCH, place,
                           f"the banner of user {json_text(fact.user_id)} matches none of the "
                           "user's current banner records in this run")


@batch_check(PKG_COUNT_MISMATCH)
def pkg_count_mismatch(facts: Sequence[Located]) -> Iterator[Finding]:
    packages: dict[str, set[str]] = defaultdict(set)
    for _place, fact in facts:
        if type(fact) is Authored and not fact.deleted:
            packages[fact.user_id].add(fact.package_id)
    for place, fact in facts:
        if type(fact) is ProfilePackageCount:
            held = packages.get(fact.user_id)
            if held and fact.count < len(held):
                yield _finding(PKG_COUNT_MISMATCH, place,
                               f"pkgCount is {fact.count:g} but the run holds {len(held)} "
                               f"package{'s' if len(held) != 1 else ''} by user "
                               f"{json_text(fact.user_id)}")
