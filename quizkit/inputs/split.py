"""One big JSON Lines file shared by all workers: cut at line boundaries into pieces.

Each worker checks the pieces it is given, and the engine merges their outcomes into the one
a single worker gives for the whole file (the same findings, record numbers, lines and
columns, in the same order: records are line numbers of the file, and every piece knows the
line it starts at). No piece is pickled or sent through a pipe:

* A plain file is read by the run's own process once, a piece at a time
  (:func:`scan_pieces`): each piece is handed to a worker as soon as it is cut, its first
  line numbered and its bytes added to the file's digest (the result cache's stamp). The
  worker reads its piece from the file itself (:func:`read_piece`), after checking that the
  file is still the one that was cut (:class:`Identity`).
* A compressed file is decompressed here once into one block of shared memory
  (:func:`share`), cut (:func:`cut`), and each worker copies out its piece (:func:`piece`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO, NamedTuple, Protocol

from quizkit.inputs.sources import ReadError, Source, open_regular

if TYPE_CHECKING:  # imported only by the runs that share a text (a .gz file)
    from multiprocessing import shared_memory

#: A JSON Lines file of at least this many bytes (decompressed, estimated for ``.gz``) is
#: cut into pieces when a run has workers.
SPLIT_AT = 4 * 1024 * 1024
#: A ``.gz`` file's text is estimated at this many times its size on disk.
GZIP_RATIO = 8
#: The smallest piece worth a round trip to a worker.
MIN_PIECE = 1024 * 1024
#: The largest piece: a worker holds its piece's text while it checks it, so the size of the
#: file must not set the size of a piece (bounded memory at any size).
MAX_PIECE = 8 * 1024 * 1024
#: A piece is at most this share of what is left of the file per worker: pieces shrink
#: towards the end of the file (guided self-scheduling), so that the workers end together
#: without paying a round trip per small piece all the way through.
SHARE_PER_JOB = 2


def piece_size(left: int, jobs: int) -> int:
    """How many bytes the next piece takes (then up to its line's end), ``left`` bytes of
    text still to cut for ``jobs`` workers."""
    return min(MAX_PIECE, max(MIN_PIECE, -(-left // (max(1, jobs) * SHARE_PER_JOB))))


def splittable(source: Source) -> bool:
    """Whether ``source`` is a JSON Lines file large enough to share between workers."""
    if source.is_stdin or source.error is not None or not source.is_lines:
        return False
    return source.size() * (GZIP_RATIO if source.compressed else 1) >= SPLIT_AT


def cut(text: bytes, jobs: int) -> list[tuple[int, int, int]]:
    """(start, end, first line) of each piece of ``text``: consecutive runs of whole lines,
    each of :func:`piece_size` bytes of what is left, up to the end of its last line."""
    pieces = []
    start, line = 0, 1
    while start < len(text):
        size = piece_size(len(text) - start, jobs)
        end = text.find(b"\n", min(start + size, len(text)) - 1)
        end = len(text) if end < 0 else end + 1
        pieces.append((start, end, line))
        line += text.count(b"\n", start, end)
        start = end
    return pieces


class Changed(Exception):
    """The file is not the one that was cut: replaced, grown, shrunk or written since."""


class Identity(NamedTuple):
    """What tells that a file is the one that was cut: its device, inode, size and
    modification time, checked by each worker before and after it reads its piece."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Identity:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Digest(Protocol):
    def update(self, data: bytes | memoryview, /) -> None: ...


#: The file is read here in blocks of this size, into one buffer.
_BLOCK = 1024 * 1024
#: Line breaks found one by one in a block before the rest of it is counted at once: a
#: search per line is quicker over the long lines of an export, a count over short ones.
_FINDS = 64


def _newlines(buf: bytearray, start: int, end: int) -> int:
    """How many line breaks ``buf[start:end]`` holds."""
    found = 0
    at = buf.find(b"\n", start, end)
    while at >= 0:
        found += 1
        if found == _FINDS:
            return found + buf.count(b"\n", at + 1, end)
        at = buf.find(b"\n", at + 1, end)
    return found


#: What :func:`scan_pieces` tells of each block it reads: its offset in the file, the line
#: the block's first byte is on, and the block's bytes (valid only during the call).
OnBlock = Callable[[int, int, memoryview], None]


def scan_pieces(fh: BinaryIO, skip: int, size: int, jobs: int, digest: Digest,
                on_block: OnBlock | None = None, block: int = _BLOCK
                ) -> Iterator[tuple[int, int, int]]:
    """(start, end, first line) of each piece of the open plain file ``fh`` of ``size``
    bytes, whose text starts after its first ``skip`` bytes (a byte order mark), cut as
    :func:`cut` cuts the text; offsets are the file's.

    Reads every byte once, in order, block by block into one buffer, adding it to
    ``digest`` and telling ``on_block`` of it (so that a line can later be read again from
    the blocks that hold it alone); a piece is given as soon as its end is read. Raises
    :class:`Changed` when the file ends before ``size``.
    """
    buf = bytearray(_BLOCK)
    view = memoryview(buf)
    at = 0  # the file's offset of buf[0]
    start, line, newlines = skip, 1, 0  # the piece being read: where, its first line
    while at < size:
        got = fh.readinto(view[:min(block, size - at)])
        if not got:
            raise Changed
        digest.update(view[:got])
        if on_block is not None:
            on_block(at, line + newlines, view[:got])
        done = max(0, start - at)  # of the block, what belongs to earlier pieces
        while done < got:
            # The piece ends at the first line break from here:
            boundary = start + piece_size(size - start, jobs) - 1 - at
            end = buf.find(b"\n", max(done, boundary), got) if boundary < got else -1
            if end < 0:
                newlines += _newlines(buf, done, got)
                break
            newlines += _newlines(buf, done, end + 1)
            yield start, at + end + 1, line
            start, line, newlines = at + end + 1, line + newlines, 0
            done = end + 1
        at += got
    if start < size:
        yield start, size, line


def read_piece(path: str, start: int, end: int, identity: Identity) -> bytes:
    """Bytes ``start:end`` of the file ``path`` (in a worker), which must be the file that
    was cut (``identity``) before and after the read; else :class:`Changed`."""
    try:
        fd, st = open_regular(path)
    except ReadError:
        raise Changed from None
    try:
        if Identity.of(st) != identity:
            raise Changed
        parts = []
        at = start
        while at < end:
            data = os.pread(fd, end - at, at)
            if not data:
                raise Changed
            parts.append(data)
            at += len(data)
        if Identity.of(os.fstat(fd)) != identity:
            raise Changed
    except OSError:
        raise Changed from None
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def share(text: bytes) -> shared_memory.SharedMemory:
    """A block of shared memory holding ``text`` (freed by :func:`release`)."""
    from multiprocessing import shared_memory

    block = shared_memory.SharedMemory(create=True, size=max(1, len(text)))
    block.buf[:len(text)] = text
    return block


def piece(name: str, start: int, end: int) -> bytes:
    """Bytes ``start:end`` of the shared block ``name`` (in a worker)."""
    from multiprocessing import shared_memory

    block = shared_memory.SharedMemory(name=name)
    try:
        return bytes(block.buf[start:end])
    finally:
        block.close()


def release(block: shared_memory.SharedMemory) -> None:
    """Free a block made by :func:`share` (once its pieces are checked, or the run stops)."""
    block.close()
    block.unlink()


__all__ = ["Changed", "Identity", "cut", "piece", "read_piece", "release", "scan_pieces",
           "share", "splittable"]
