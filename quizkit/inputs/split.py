"""One big JSON Lines file shared by all workers: cut at line boundaries into pieces.

The run's own process reads (and decompresses) the file once, copies its text into one
block of shared memory (:func:`share`) and cuts it into pieces of whole lines; each worker
copies out only its piece (:func:`piece`: no piece is pickled or sent through a pipe), checks
it, and the engine merges their outcomes into the one
a single worker gives for the whole file (the same findings, record numbers, lines and
columns, in the same order: records are line numbers of the file, and every piece knows the
line it starts at).
"""

from __future__ import annotations

from multiprocessing import shared_memory

from quizkit.inputs.sources import Source

#: A JSON Lines file of at least this many bytes (decompressed, estimated for ``.gz``) is
#: cut into pieces when a run has workers.
SPLIT_AT = 4 * 1024 * 1024
#: A ``.gz`` file's text is estimated at this many times its size on disk.
GZIP_RATIO = 8
#: The smallest piece worth a round trip to a worker.
MIN_PIECE = 1024 * 1024
#: Pieces per worker: enough to balance the workers' ends, few enough to cost little.
PIECES_PER_JOB = 4


def splittable(source: Source) -> bool:
    """Whether ``source`` is a JSON Lines file large enough to share between workers."""
    if source.is_stdin or source.error is not None or not source.is_lines:
        return False
    return source.size() * (GZIP_RATIO if source.compressed else 1) >= SPLIT_AT


def cut(text: bytes, jobs: int) -> list[tuple[int, int, int]]:
    """(start, end, first line) of each piece of ``text``: consecutive runs of whole lines,
    about ``jobs * PIECES_PER_JOB`` of them, each at least :data:`MIN_PIECE` bytes (but the
    last)."""
    size = max(MIN_PIECE, -(-len(text) // (max(1, jobs) * PIECES_PER_JOB)))
    pieces = []
    start, line = 0, 1
    while start < len(text):
        end = text.find(b"\n", min(start + size, len(text)) - 1)
        end = len(text) if end < 0 else end + 1
        pieces.append((start, end, line))
        line += text.count(b"\n", start, end)
        start = end
    return pieces


def share(text: bytes) -> shared_memory.SharedMemory:
    """A block of shared memory holding ``text`` (freed by :func:`release`)."""
    block = shared_memory.SharedMemory(create=True, size=max(1, len(text)))
    block.buf[:len(text)] = text
    return block


def piece(name: str, start: int, end: int) -> bytes:
    """Bytes ``start:end`` of the shared block ``name`` (in a worker)."""
    block = shared_memory.SharedMemory(name=name)
    try:
        return bytes(block.buf[start:end])
    finally:
        block.close()


def release(block: shared_memory.SharedMemory) -> None:
    """Free a block made by :func:`share` (once its pieces are checked, or the run stops)."""
    block.close()
    block.unlink()


__all__ = ["cut", "piece", "release", "share", "splittable"]
