"""Checks across the files of one run.

Fact collectors run in the worker that checks a document and yield small picklable tuples;
batch checks run once in the main process over the facts of every document. Fact tuples start
with a tag:

* ``("content", entity, id, view, digest, parent)``: a package, version or game, found at the
  fact's pointer. Versions are compared within one view only (a full package's versions carry
  ``versionId`` on their entities, a list's do not), and two versions inside two copies of the
  same package (``parent``) are left to the package comparison. ``digest`` (a hash of the
  content) is ``None`` — :data:`LATER` — for documents that can be read again: it is computed
  only when the id repeats (see :func:`duplicates`), so the common case, ids that appear once,
  costs no serialisation at all. The engine fills it in at once (:func:`settle`) for stdin.
* ``("package", package_id, version_ids)``: a full package export and its versions.
* ``("game", package_id, version_id)``: what a game is played with.
* ``("authored", user_id, package_id, deleted)``: a package by a user.
* ``("banner", user_id, slot, current, banner_id, payload_digest)``: a banner record.
* ``("user", user_id, pkg_count, banner_digest)``: a user profile.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from quizkit.findings import Finding, Severity, json_text
from quizkit.parsing import split_pointer
from quizkit.rules.catalog import Rule, rule
from quizkit.rules.checks import LocatedFact, batch_check, fact_collector, reread
from quizkit.rules.walk import as_dict, as_list, as_str

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


def digest(value: Any) -> bytes:
    """A stable content hash (same in every process): key order and whitespace ignored."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits
        data = repr(value).encode()
    return hashlib.sha1(data, usedforsecurity=False).digest()[:16]


#: The digest of a content fact, not computed yet (computed if and when the id repeats).
LATER = None


def _version_ids(versions: list) -> tuple[str, ...]:
    return tuple(v["id"] for v in versions if type(v) is dict and type(v.get("id")) is str)


# --- collectors -------------------------------------------------------------------------------

@fact_collector("package-full")
def package_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    if type(doc) is not dict:
        return
    pkg_id = as_str(doc, "id")
    versions = as_list(doc, "versions")
    for i, v in enumerate(versions):
        vid = as_str(v, "id")
        if vid is not None:
            yield f"/versions/{i}", ("content", "version", vid, "full", LATER, pkg_id)
    if pkg_id is None:
        return
    yield "", ("content", "package", pkg_id, "full", LATER, None)
    yield "/versions", ("package", pkg_id, _version_ids(versions))
    author = as_str(doc, "userId")
    if author is not None:
        yield "/userId", ("authored", author, pkg_id, doc.get("deletedAt") is not None)


@fact_collector("version-list")
def list_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    if type(doc) is list:
        for i, v in enumerate(doc):
            vid = as_str(v, "id")
            if vid is not None:
                yield f"/{i}", ("content", "version", vid, "list", LATER, None)


@fact_collector("version")
def version_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    vid = as_str(doc, "id")
    if vid is not None:
        yield "", ("content", "version", vid, "list", LATER, None)


@fact_collector("version-created")
def created_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    v = as_dict(doc, "version")
    vid = as_str(v, "id")
    if vid is not None:
        yield "/version", ("content", "version", vid, "created", LATER, None)


@fact_collector("game")
def game_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    gid = as_str(doc, "id")
    if gid is not None:
        yield "", ("content", "game", gid, "game", LATER, None)
    pkg_id = as_str(doc, "packageId")
    vid = as_str(doc, "versionId")
    pkg = as_dict(doc, "pkg")
    # A version missing from the game's own pkg is game-version-missing already.
    if pkg_id is not None and vid is not None and vid in _version_ids(as_list(pkg, "versions")):
        yield "/versionId", ("game", pkg_id, vid)
    author = as_str(pkg, "userId")
    pid = as_str(pkg, "id")
    if author is not None and pid is not None:
        yield "/pkg/userId", ("authored", author, pid, pkg.get("deletedAt") is not None)


def _at(doc: Any, pointer: str) -> Any:
    """The value at a fact's pointer (one the collectors made: it exists), or :data:`_MISSING`."""
    for part in split_pointer(pointer):
        if type(doc) is dict and part in doc:
            doc = doc[part]
        elif type(doc) is list and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            return _MISSING
    return doc


_MISSING = object()


def settle(doc: Any, facts: list[tuple[str, tuple]]) -> list[tuple[str, tuple]]:
    """``facts`` of ``doc`` with every digest computed (for a document that cannot be read
    again, such as stdin)."""
    out = []
    for pointer, fact in facts:
        if fact[0] == "content" and fact[4] is LATER:
            value = _at(doc, pointer)
            if value is not _MISSING:
                fact = (*fact[:4], digest(value), fact[5])
        out.append((pointer, fact))
    return out


@fact_collector("banner")
def banner_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    if type(doc) is not dict:
        return
    user = as_str(doc, "userId")
    slot = doc.get("slot")
    if user is None or type(slot) is not str or doc.get("current") is not True:
        return
    payload = doc.get("payload")
    yield "/current", ("banner", user, slot, True, as_str(doc, "id"),
                       digest(payload) if type(payload) is dict else None)


@fact_collector("user-self")
def user_facts(doc: Any) -> Iterator[tuple[str, tuple]]:
    user = as_dict(doc, "user")
    uid = as_str(user, "id")
    if uid is None:
        return
    count = user.get("pkgCount")
    if type(count) not in (int, float):
        count = None
    banner = user.get("banner")
    yield "/user", ("user", uid, count, digest(banner) if type(banner) is dict else None)


# --- batch checks ------------------------------------------------------------------------------

def _finding(r: Rule, path: str, record: int | None, pointer: str, message: str) -> Finding:
    return Finding(path=path, pointer=pointer, rule=r.name, severity=r.severity,
                   message=message, record=record, code=r.code)


def _where(path: str, record: int | None, pointer: str, here: str) -> str:
    """Where the first of two occurrences is; its pointer only when it differs from ``here``
    (the finding's own pointer, which every report already shows once)."""
    at = f"{path} (record {record})" if record is not None else path
    if pointer == here:
        return f"{at}, at the same pointer" if pointer else at
    return f"{at} at {pointer}" if pointer else at


class _Content:
    """A content fact with its place, and its digests once known."""

    __slots__ = ("digest", "parent", "path", "pointer", "raw", "record")

    def __init__(self, path: str, record: int | None, pointer: str, digest: bytes | None,
                 parent: str | None) -> None:
        self.path = path
        self.record = record
        self.pointer = pointer
        self.digest = digest  # of the value at pointer; LATER until computed
        self.parent = parent
        self.raw: bytes | None = None  # hash of the whole document's bytes, when read again


def _pairs(facts: list[LocatedFact]) -> list[tuple[str, str, _Content, _Content]]:
    """(entity, id, first, later) for each content fact whose id was met before, in order.

    No document is read here: this only finds which facts must be compared.
    """
    first: dict[tuple[str, str, str], _Content] = {}
    pairs = []
    for path, record, pointer, fact in facts:
        if fact[0] != "content":
            continue
        _, entity, ident, view, dig, parent = fact
        content = _Content(path, record, pointer, dig, parent)
        seen = first.setdefault((entity, ident, view), content)
        if seen is content:
            continue
        if entity == "version" and parent is not None and parent == seen.parent:
            continue  # two copies of one package: the package comparison speaks for both
        pairs.append((entity, ident, seen, content))
    return pairs


def _by_file(contents: Iterable[_Content]) -> dict[str, list[_Content]]:
    """Contents grouped by file, files in the order first met, so each file is read once."""
    grouped: dict[str, list[_Content]] = {}
    for c in contents:
        grouped.setdefault(c.path, []).append(c)
    return grouped


def _hash_documents(contents: Iterable[_Content]) -> None:
    """Set ``raw`` of each content: its document's bytes hashed (no parse)."""
    for group in _by_file(contents).values():
        for c in group:
            data = reread(c.path, c.record)
            c.raw = None if data is None else hashlib.sha1(data, usedforsecurity=False).digest()


def _hash_values(contents: Iterable[_Content]) -> None:
    """Set ``digest`` of each content still :data:`LATER`: the value at its pointer, parsed
    from its document read again (once per document), as the worker would have hashed it."""
    for group in _by_file(contents).values():
        record: Any = _MISSING  # the document parsed last; a file's facts come in order
        doc: Any = _MISSING
        for c in group:
            if c.record != record or doc is _MISSING:
                record = c.record
                data = reread(c.path, c.record)
                try:
                    doc = orjson.loads(data) if data is not None else _MISSING
                except orjson.JSONDecodeError:
                    doc = _MISSING
            value = _at(doc, c.pointer)
            c.digest = None if value is _MISSING else digest(value)


def _byte_identical(a: _Content, b: _Content) -> bool:
    """Same pointer in documents with the same bytes (a backup of a file): same content."""
    return a.pointer == b.pointer and a.raw is not None and a.raw == b.raw


@batch_check
def duplicates(facts: list[LocatedFact]) -> Iterator[Finding]:
    """Ids met twice, compared by content. Linear in the number of copies: the digests that
    were left for later are computed file by file, each document read at most twice (its
    bytes hashed, then, only where bytes differ, parsed), never once per comparison."""
    pairs = _pairs(facts)
    later = {id(c): c for _, _, a, b in pairs for c in (a, b) if c.digest is LATER}
    _hash_documents(later.values())
    _hash_values({id(c): c for _, _, a, b in pairs if not _byte_identical(a, b)
                  for c in (a, b) if c.digest is LATER}.values())
    for entity, ident, seen, content in pairs:
        if _byte_identical(seen, content):
            same = True
        elif seen.digest is None or content.digest is None:
            continue  # a file changed or vanished during the run: cannot be told any more
        else:
            same = seen.digest == content.digest
        where = _where(seen.path, seen.record, seen.pointer, content.pointer)
        if same:
            yield _finding(IDENTICAL_DUPLICATE, content.path, content.record, content.pointer,
                           f"{entity} {json_text(ident)} also appears, identical, in {where}")
        else:
            yield _finding(CONFLICTING_DUPLICATE, content.path, content.record, content.pointer,
                           f"{entity} {json_text(ident)} also appears, with different content, in "
                           f"{where}")


@batch_check
def games_and_packages(facts: list[LocatedFact]) -> Iterator[Finding]:
    exported: dict[str, set[str]] = {}
    for _path, _record, _pointer, fact in facts:
        if fact[0] == "package":
            exported.setdefault(fact[1], set()).update(fact[2])
    if not exported:
        return
    for path, record, pointer, fact in facts:
        if fact[0] == "game":
            _, pkg_id, vid = fact
            versions = exported.get(pkg_id)
            if versions is not None and vid not in versions:
                yield _finding(GAME_VERSION_NOT_EXPORTED, path, record, pointer,
                               f"version {json_text(vid)} is not among the versions of package "
                               f"{json_text(pkg_id)} exported in this run")


@batch_check
def banners_and_users(facts: list[LocatedFact]) -> Iterator[Finding]:
    current: dict[tuple[str, str], list[tuple[str, int | None, str, str | None]]] = \
        defaultdict(list)
    payloads: dict[str, set[bytes | None]] = defaultdict(set)
    packages: dict[str, set[str]] = defaultdict(set)
    users = []
    for located in facts:
        fact = located[3]
        tag = fact[0]
        if tag == "banner":
            _, user, slot, _current, banner_id, dig = fact
            group = current[(user, slot)]
            if banner_id is None or all(b[3] != banner_id for b in group):
                group.append((located[0], located[1], located[2], banner_id))
            payloads[user].add(dig)
        elif tag == "authored":
            _, user, pkg_id, deleted = fact
            if not deleted:
                packages[user].add(pkg_id)
        elif tag == "user":
            users.append(located)
    for (user, slot), group in current.items():
        for path, record, pointer, banner_id in group[1:]:
            p0, r0, ptr0, id0 = group[0]
            yield _finding(MULTIPLE_CURRENT_BANNERS, path, record, pointer,
                           f"banner {json_text(banner_id)} is current for user {json_text(user)} "
                           f"in slot {json_text(slot)}, and so is {json_text(id0)} in "
                           f"{_where(p0, r0, ptr0, pointer)}")
    for path, record, pointer, (_, uid, count, dig) in users:
        if uid in payloads and dig is not None and dig not in payloads[uid]:
            yield _finding(CURRENT_BANNER_MISMATCH, path, record, f"{pointer}/banner",
                           f"the banner of user {json_text(uid)} matches none of the user's "
                           "current banner records in this run")
        held = packages.get(uid)
        if held and count is not None and count < len(held):
            yield _finding(PKG_COUNT_MISMATCH, path, record, f"{pointer}/pkgCount",
                           f"pkgCount is {count:g} but the run holds {len(held)} "
                           f"package{'s' if len(held) != 1 else ''} by user {json_text(uid)}")
