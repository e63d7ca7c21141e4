"""Pack files: the cache entries of one input directory's inputs, in one file.

A pack is a small self-describing container::

    blob blob ... blob | index (JSON) | trailer (24 bytes)

Each blob is one entry's bytes (:mod:`quizkit.cache.store` writes them as JSON and checks
every value it reads back). The index is JSON: ``{"magic", "format", "run", "pack",
"entries": {name: [offset, length, xxh3_64 of the blob]}}``. The trailer is
:data:`TRAILER_MAGIC`, the index's length and the index's xxh3_64, so a reader finds the
index from the end of the file with two reads, and then reads only the blobs it needs
(``pread``). A pack is data, never trusted: anything that does not add up (a short file, a
bad checksum, an index of another shape, run or pack, a blob outside the file) is
:class:`BadPack`, which the cache takes as a miss.

A pack is written once, to a temporary file beside it (created anew: ``O_EXCL``, links not
followed) that blobs are appended to as they come, holding only the index in memory; then
the index and trailer are added and the file is renamed over the pack (no fsync: a cache can
be made again). A reader sees a whole pack or none.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator
from typing import Any

import orjson
import xxhash

from quizkit.inputs.sources import ReadError, open_regular

#: The fixed end of a pack: magic, the index's length, the index's xxh3_64.
TRAILER = struct.Struct("<8sQQ")
TRAILER_MAGIC = b"QKPACK03"
#: The largest index read, and the largest blob (findings of one input are capped far below).
MAX_INDEX = 512 * 1024 * 1024
MAX_BLOB = 256 * 1024 * 1024
#: The most bytes of entries a writer holds before it writes them.
BUFFER = 256 * 1024
_TEMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0))


class BadPack(Exception):
    """A file at a pack's name that is no pack of this run (corrupt, truncated, foreign)."""


def checksum(data: bytes | memoryview) -> int:
    """The checksum of a blob or an index (xxh3_64)."""
    return xxhash.xxh3_64_intdigest(data)


def _pread(fd: int, length: int, offset: int) -> bytes:
    """Exactly ``length`` bytes at ``offset``; a short read (the file shrank) is
    :class:`BadPack`."""
    data = os.pread(fd, length, offset)
    while len(data) < length:
        more = os.pread(fd, length - len(data), offset + len(data))
        if not more:
            raise BadPack
        data += more
    return data


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class PackReader:
    """An open pack: its index, and its blobs read on demand."""

    def __init__(self, fd: int, entries: dict[str, list[int]]) -> None:
        self._fd = fd
        self.entries = entries

    @classmethod
    def open(cls, path: str, run: str, pack: str, magic: str) -> PackReader:
        """The pack at ``path`` of run key ``run`` and pack name ``pack``. Raises ``OSError``
        (no pack, or not a regular file: a link, FIFO or device is never opened) and
        :class:`BadPack`."""
        try:
            fd, st = open_regular(path, follow_links=False)
        except ReadError as exc:
            raise OSError(f"{path}: {exc}") from None
        try:
            entries = _read_index(fd, st.st_size, run, pack, magic)
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, entries)

    def get(self, name: str) -> bytes | None:
        """The blob of entry ``name``, if the pack has it and its checksum holds. Raises
        ``OSError`` and :class:`BadPack`."""
        where = self.entries.get(name)
        if where is None:
            return None
        offset, length, check = where
        data = _pread(self._fd, length, offset)
        return data if checksum(data) == check else None

    def blobs(self, skip: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
        """Every entry not in ``skip`` whose checksum holds, one blob at a time. Raises
        ``OSError``."""
        for name, (offset, length, check) in self.entries.items():
            if name in skip:
                continue
            try:
                blob = _pread(self._fd, length, offset)
            except BadPack:
                continue
            if checksum(blob) == check:
                yield name, blob

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _read_index(fd: int, size: int, run: str, pack: str, magic: str) -> dict[str, list[int]]:
    """The entries of the index of the pack open at ``fd``, every value checked."""
    if size < TRAILER.size:
        raise BadPack
    mark, length, check = TRAILER.unpack(_pread(fd, TRAILER.size, size - TRAILER.size))
    end = size - TRAILER.size - length  # where the blobs end
    if mark != TRAILER_MAGIC or length > min(MAX_INDEX, size - TRAILER.size):
        raise BadPack
    raw = _pread(fd, length, end)
    if checksum(raw) != check:
        raise BadPack
    try:
        index = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise BadPack from None
    if (type(index) is not dict or index.get("magic") != magic or index.get("run") != run
            or index.get("pack") != pack or type(index.get("entries")) is not dict):
        raise BadPack
    entries: dict[str, list[int]] = index["entries"]
    for where in entries.values():
        if (type(where) is not list or len(where) != 3
                or any(type(v) is not int for v in where)):
            raise BadPack
        offset, length, _check = where
        if offset < 0 or length <= 0 or length > MAX_BLOB or offset + length > end:
            raise BadPack
    return entries


class PackWriter:
    """A pack being written: blobs appended to a temporary file; in memory, only the index
    (name → offset, length, checksum) and at most :data:`BUFFER` bytes not yet written
    (small entries are written a few dozen at a time, one system call for many)."""

    def __init__(self, target: str) -> None:
        """Create the temporary file beside ``target`` (the pack's path). Raises
        ``OSError``. A caller that must never leave it behind defers stop signals around
        this and its own record of the writer."""
        self.target = target
        self.temp = f"{target}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
        self._fd = os.open(self.temp, _TEMP_FLAGS, 0o666)
        self.index: dict[str, list[int]] = {}
        self.size = 0
        self._buffer = bytearray()

    def add(self, name: str, blob: bytes) -> None:
        """Append entry ``name`` (a later one of the same name wins). Raises ``OSError``."""
        if len(self._buffer) + len(blob) > BUFFER:
            self._flush()
        if len(blob) > BUFFER:
            _write_all(self._fd, blob)
        else:
            self._buffer += blob
        self.index[name] = [self.size, len(blob), checksum(blob)]
        self.size += len(blob)

    def _flush(self) -> None:
        if self._buffer:
            _write_all(self._fd, self._buffer)
            self._buffer.clear()

    def seal(self, old: PackReader | None, fields: dict[str, Any]) -> None:
        """Copy the entries of ``old`` (the pack as it is now) that this writer does not
        hold, each checked, then write the index (``fields`` and the entries) and trailer.
        Raises ``OSError``."""
        if old is not None:
            for name, blob in old.blobs(self.index):
                self.add(name, blob)
        index = orjson.dumps({**fields, "entries": self.index})
        self._flush()
        _write_all(self._fd, index + TRAILER.pack(TRAILER_MAGIC, len(index), checksum(index)))
        os.close(self._fd)
        self._fd = -1

    def commit(self) -> None:
        """Rename the sealed temporary file over the pack (a link or anything else at the
        pack's name is replaced, never written through). Raises ``OSError``."""
        os.replace(self.temp, self.target)

    def discard(self) -> None:
        """Close and remove the temporary file (it is never left behind)."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
        with contextlib.suppress(OSError):
            os.unlink(self.temp)
