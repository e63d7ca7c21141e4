"""What identifies the content of an input between runs: its ``stat`` and a digest of its bytes.

The stat (size, modification and change times, inode) is the fast path: when all of it is as
the cache recorded it, the file is taken as unchanged without being read. When any of it
differs, or when the file was modified too close to the moment it was read (a "racy" file,
as git calls it: a second write within the file system's timestamp granularity would leave
the modification time as it was), the bytes are read and their digest decides.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

import xxhash

#: A file modified less than this long before it was read is confirmed by its digest next
#: time (2 s: the coarsest timestamp granularity of common file systems, FAT's).
RACY_NS = 2_000_000_000


class Stamp(NamedTuple):
    """An input as it was when it was read for a check."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    #: When the file was read (``time.time_ns``), to tell a racy stamp.
    read_at_ns: int
    #: XXH3-128 of the bytes the check read (after decompression).
    digest: bytes

    def same_stat(self, st: os.stat_result) -> bool:
        """Whether ``st`` is the stat this stamp recorded."""
        return (st.st_size == self.size and st.st_mtime_ns == self.mtime_ns
                and st.st_ctime_ns == self.ctime_ns and st.st_ino == self.inode)

    @property
    def racy(self) -> bool:
        """Modified so shortly before it was read that its stat alone cannot be trusted."""
        return self.mtime_ns >= self.read_at_ns - RACY_NS


def stat_before_read(path: str) -> tuple[os.stat_result, int] | None:
    """The stat of ``path`` and the time, taken before its bytes are read (``None``: not a
    file that can be stated)."""
    try:
        return os.stat(path), time.time_ns()
    except (OSError, ValueError):
        return None


def digest(data: bytes) -> bytes:
    """The digest of an input's bytes (128 bits of XXH3: a cache key, not a signature)."""
    return xxhash.xxh3_128_digest(data)


def digester() -> xxhash.xxh3_128:
    """:func:`digest` taken block by block (``update``, then ``digest``): the same value."""
    return xxhash.xxh3_128()


def stamp(before: tuple[os.stat_result, int], data: bytes) -> Stamp:
    """The stamp of an input stated (:func:`stat_before_read`) and then read as ``data``."""
    return stamped(before, digest(data))


def stamped(before: tuple[os.stat_result, int], digested: bytes) -> Stamp:
    """The stamp of an input stated (:func:`stat_before_read`) and then read, its bytes'
    :func:`digest` being ``digested``."""
    st, now = before
    return Stamp(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, now, digested)
