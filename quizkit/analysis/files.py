"""A cheap look inside each file a load reads, for DuckDB.

Only the first bytes of each file are read here (decompressed for ``.gz``), to tell a top-level
array (a version list) from an object and to find files that cannot be read at all (why is the
validation's word: :func:`quizkit.analysis.load_read.judged`). The listing is the walker's
(:mod:`quizkit.analysis.load_inputs`), the parsing DuckDB's.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from quizkit.checks.documents import is_record
from quizkit.inputs.sources import ReadError, open_regular

LINE_SUFFIXES = (".jsonl", ".ndjson")


class InputError(Exception):
    """A path given by the user does not exist or holds no export files."""


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One export file. ``container`` is how DuckDB must read it."""

    path: str  # absolute
    container: str  # "json" (one document), "json-array" (array of documents), "jsonl"
    compressed: bool
    size: int  # on disk
    content_size: int  # uncompressed (from the gzip trailer, modulo 4 GiB, for .gz)


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


def _gzip_content_size(path: str) -> int:
    """The uncompressed size a gzip file records in its last four bytes (ISIZE, mod 2**32)."""
    with open(path, "rb") as fh:
        fh.seek(-4, os.SEEK_END)
        return int.from_bytes(fh.read(4), "little")


def _first_byte(path: str, compressed: bool) -> tuple[int | None, int]:
    """The first byte that is not whitespace or a BOM (None for an empty file), and the size.

    Plain files are read with ``os.open``/``os.read``: the buffered ``open`` costs more than
    the read on small files.
    """
    if compressed:
        fd, st = open_regular(path)
        with os.fdopen(fd, "rb") as raw, gzip.open(raw, "rb") as fh:
            return _first_of(fh.read), st.st_size
    fd, st = open_regular(path)  # never blocks on a FIFO, never reads /dev/zero
    try:
        size = st.st_size
        return _first_of(lambda n: os.read(fd, n)), size
    finally:
        os.close(fd)


def _first_of(read: Callable[[int], bytes]) -> int | None:
    head = read(4096)
    while head:
        stripped = head.lstrip(b" \t\r\n")
        if stripped.startswith(b"\xef\xbb\xbf"):
            stripped = stripped[3:].lstrip(b" \t\r\n")
        if stripped:
            return stripped[0]
        head = read(4096)
    return None


def _inspect_one(path: str) -> ExportFile | Skipped:
    lower = path.lower()
    compressed = lower.endswith(".gz")
    base = lower[:-3] if compressed else lower
    try:
        first, size = _first_byte(path, compressed)
        content = _gzip_content_size(path) if compressed else size
    except ReadError as exc:
        return Skipped(path, str(exc))
    except (OSError, EOFError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return Skipped(path, f"cannot be read: {reason}")
    if first is None:
        return Skipped(path, "is empty")
    if base.endswith(LINE_SUFFIXES):
        container = "jsonl"
    elif first == ord("["):
        container = "json-array"
    else:
        container = "json"
    return ExportFile(path, container, compressed, size, content)


@dataclass(frozen=True, slots=True)
class Lines:
    """What one pass over a JSON Lines file tells before DuckDB reads it: its records
    (:func:`quizkit.checks.documents.is_record`), numbered as ``validate`` numbers them:
    how many there are, (n, line) for each n-th one that is not on line n (none unless a
    blank line comes before a record), and the length of its longest line in bytes (what
    DuckDB must be able to hold as one document)."""

    count: int = 0
    moved: tuple[tuple[int, int], ...] = ()
    longest: int = 0


#: How much of a file :func:`record_lines` reads at a time.
_CHUNK = 1 << 20
#: How much of a line :func:`record_lines` first asks :func:`is_record` about.
_HEAD = 64


def _holds_text(part: bytes) -> bool:
    """:func:`is_record` of a line or part of one, asked of its head first: a long line is
    stripped whole only when its head is blank."""
    return is_record(part[:_HEAD]) or (len(part) > _HEAD and is_record(part))


def record_lines(path: str, compressed: bool) -> Lines:
    """The :class:`Lines` of a JSON Lines file, read a chunk at a time (decompressed for
    ``.gz``), so memory does not grow with the file; a file that cannot be read here gives
    what was read of it.

    Each chunk is split at its newlines at once, and only the head of each line is asked
    whether it is a record (the rest when the head is blank; a line split between chunks is
    one when any part is): a long line is not stripped, nor read in pieces, which took 6
    times as long on lines of 33 KB.
    """
    count = longest = number = length = 0
    record = False  # whether the line read so far is a record
    moved: list[tuple[int, int]] = []
    try:
        fd, _st = open_regular(path)
        with os.fdopen(fd, "rb") as raw, (gzip.open(raw, "rb") if compressed else raw) as fh:
            while chunk := fh.read(_CHUNK):
                *lines, rest = chunk.split(b"\n")
                for line in lines:
                    number += 1
                    length += len(line) + 1
                    if record or _holds_text(line):
                        count += 1
                        if number != count:
                            moved.append((count, number))
                    if length > longest:
                        longest = length
                    length, record = 0, False
                length += len(rest)
                record = record or _holds_text(rest)
            if length:  # the last line, without a newline
                number += 1
                longest = max(longest, length)
                if record:
                    count += 1
                    if number != count:
                        moved.append((count, number))
    except (ReadError, OSError, EOFError, zlib.error):
        pass
    return Lines(count, tuple(moved), longest)


def inspect(paths: list[str]) -> tuple[list[ExportFile], list[Skipped]]:
    """Sort files into ones DuckDB can read and ones it cannot (with a reason).

    (Threads do not help here: with a warm page cache the reads take microseconds.)
    """
    outcomes = [_inspect_one(p) for p in paths]
    ok = [o for o in outcomes if isinstance(o, ExportFile)]
    skipped = [o for o in outcomes if isinstance(o, Skipped)]
    return ok, skipped
