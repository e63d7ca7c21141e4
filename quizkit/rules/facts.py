"""Typed facts for the cross-file checks, gathered in the engine's one pass.

A fact collector looks at one parsed document and yields ``(pointer, fact)`` pairs: the
pointer is where a finding about the fact would point. The engine keeps each fact with its
path, record and pointer only; the line, column and source lines of the few facts a batch
check reports are found after the checks, by reading their input again
(:mod:`quizkit.checks.reread`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson
import xxhash


def _serialised(value: Any) -> bytes:
    """The value as orjson writes it compact with sorted keys: key order and whitespace of
    the input do not matter."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
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


def _quick(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits
        return repr(value).encode()


def quick_digest(value: Any) -> bytes:
    """A cheap content hash: the value as orjson writes it compact, keys in their order.

    Equal quick digests mean equal values (up to hash collisions); different ones may still
    be equal values with their keys in another order, which :func:`digest` settles (only
    for the few ids met twice with different quick digests: see
    :func:`quizkit.checks.reread.settle`). Writing compact without sorting costs about a third of
    :func:`digest`.
    """
    return _hash(_quick(value))


def text_digest(text: bytes) -> bytes:
    """The quick digest of a whole document: a hash of its bytes (surrounding whitespace
    aside). Equal bytes are equal values; the same value written otherwise (indented,
    keys reordered) is told by :func:`digest` when the two are compared."""
    return _hash(text.strip())


class Content(NamedTuple):
    """A package, version or game, by id, with a quick digest of its content.

    ``digest``: :func:`quick_digest` of a part of a document; ``None`` from a collector for
    a whole document (the engine gives it :func:`text_digest` of the document's bytes) and
    for a full package's versions (compared across packages only, which is rare). When two
    copies are compared and their digests differ or are missing, :func:`digest` of both
    settles it (:func:`quizkit.checks.reread.settle`).

    Versions are compared within one ``view`` only (a full package's versions carry
    ``versionId`` on their entities, a list's do not); ``parent`` is the package that holds a
    full package's version (two copies of one package are left to the package comparison).
    """

    entity: str
    id: str
    view: str
    digest: bytes | None
    parent: str | None = None


class PackageVersions(NamedTuple):
    """A full package export and the ids of its versions (no finding points at it)."""

    package_id: str
    version_ids: tuple[str, ...]


class GameVersion(NamedTuple):
    """The package and version a game is played with (the version is in the game's pkg)."""

    package_id: str
    version_id: str


class Authored(NamedTuple):
    """A package by a user (no finding points at it)."""

    user_id: str
    package_id: str
    deleted: bool


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
    """Where a fact is: file, JSON Lines record and pointer (its line and column are found
    only when a finding is reported there)."""

    path: str
    record: int | None
    pointer: str


class Located(NamedTuple):
    """A fact and its place."""

    place: Place
    fact: Fact


__all__ = ["Authored", "Content", "CurrentBanner", "Fact", "GameVersion", "Located",
           "PackageVersions", "Place", "ProfileBanner", "ProfilePackageCount", "digest",
           "quick_digest", "text_digest"]
