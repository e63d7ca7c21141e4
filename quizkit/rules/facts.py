"""Typed facts for the cross-file checks, gathered in the engine's one pass.

A fact collector looks at one parsed document and yields ``(pointer, fact)`` pairs: the
pointer is where a finding about the fact would point. The engine places each fact (path,
record, line, column and, for reports that show them, the source lines) while the document's
text is still at hand, so the batch checks never read an input again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson
import xxhash

from quizkit.catalog.findings import Snippet


def _serialised(value: Any) -> bytes:
    """The value as orjson writes it with sorted keys, indented by two spaces: key order and
    whitespace of the input do not matter, and the number of lines is the value's own in an
    orjson-indented text (sorting keys moves lines, it does not add any)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits
        return repr(value).encode()


def _hash(data: bytes) -> bytes:
    """128 bits of XXH3: about 50 times faster than SHA-1 here (0.03 against 1.2 ms per MB of
    serialised content), and every package, version and game is hashed in the one pass. Not
    cryptographic: a crafted collision could at worst call a conflicting duplicate identical,
    and both copies are still reported."""
    return xxhash.xxh3_128_digest(data)


def digest(value: Any) -> bytes:
    """A stable content hash (same in every process): key order and whitespace ignored."""
    return _hash(_serialised(value))


def digest_with_parts(value: dict, key: str) -> tuple[bytes, list[bytes], list[int]]:
    """The digest of an object, and the digest of each element of its array ``key`` with the
    line count of each element but the last, serialising each element once: the object's
    digest covers its other members and its elements' digests.

    Equal objects get equal digests, and (up to hash collisions) only equal objects do; the
    digest differs from :func:`digest` of the same object, so digests of one kind of
    content must all come from one function. The line counts place the elements in an
    orjson-indented text without searching it (see :class:`Below`): element ``i`` starts
    ``1 + sum(lines[:i])`` lines below the array's line, so the last element's count is not
    needed (counting newlines is about a fifth of the digests' instructions, and most
    packages have one to three versions).
    """
    items = value.get(key)
    if type(items) is not list:
        return digest(value), [], []
    texts = [_serialised(item) for item in items]
    parts = [_hash(t) for t in texts]
    rest = digest({k: v for k, v in value.items() if k != key})
    lines = [t.count(b"\n") + 1 for t in texts[:-1]]
    return _hash(rest + b"".join(parts)), parts, lines


class Below(NamedTuple):
    """Where an element of an array is, for a text orjson wrote indented (the service's
    exports): ``lines`` lines below the line that opens the array at ``array``, at the
    element's indentation. The engine uses it only for such texts, and locates ``pointer``
    in any other."""

    pointer: str
    array: str
    lines: int


class Content(NamedTuple):
    """A package, version or game, by id, with a digest of its content.

    Versions are compared within one ``view`` only (a full package's versions carry
    ``versionId`` on their entities, a list's do not); ``parent`` is the package that holds a
    full package's version (two copies of one package are left to the package comparison).
    """

    entity: str
    id: str
    view: str
    digest: bytes
    parent: str | None = None


class PackageVersions(NamedTuple):
    """A full package export and the ids of its versions (no finding points at it)."""

    package_id: str
    version_ids: tuple[str, ...]
    located = False


class GameVersion(NamedTuple):
    """The package and version a game is played with (the version is in the game's pkg)."""

    package_id: str
    version_id: str


class Authored(NamedTuple):
    """A package by a user (no finding points at it)."""

    user_id: str
    package_id: str
    deleted: bool
    located = False


class CurrentBanner(NamedTuple):
    """A current banner record of a user in a slot."""

    user_id: str
    slot: str
    banner_id: str | None
    payload_digest: bytes | None


class ProfileBanner(NamedTuple):
    """The banner payload a user profile carries."""

    user_id: str
    digest: bytes


class ProfilePackageCount(NamedTuple):
    """The package count a user profile carries."""

    user_id: str
    count: int | float


Fact = (Content | PackageVersions | GameVersion | Authored | CurrentBanner | ProfileBanner
        | ProfilePackageCount)


@dataclass(frozen=True, slots=True)
class Place:
    """Where a fact is: file, JSON Lines record, pointer, and the position of the value."""

    path: str
    record: int | None
    pointer: str
    line: int | None = None
    column: int | None = None
    snippet: Snippet | None = None


class Located(NamedTuple):
    """A fact and its place."""

    place: Place
    fact: Fact


__all__ = ["Authored", "Below", "Content", "CurrentBanner", "Fact", "GameVersion", "Located",
           "PackageVersions", "Place", "ProfileBanner", "ProfilePackageCount", "digest",
           "digest_with_parts"]
