"""Inputs → sources: paths, directories (recursive), stdin, ``.gz``, JSON Lines.

A :class:`Source` knows how to read its bytes; reading happens in the worker that checks it,
so a parallel run never ships file contents between processes.
"""

from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

SUFFIXES = (".json", ".jsonl", ".ndjson")
LINE_SUFFIXES = (".jsonl", ".ndjson")
STDIN = "-"
#: Default limit on the decompressed size of one ``.gz`` input.
DEFAULT_MAX_DECOMPRESSED = 2 * 1024**3


class ReadError(Exception):
    """The source could not be read (the message says why)."""


class MissingPath(Exception):
    """A path named on the command line does not exist."""


def is_candidate(name: str) -> bool:
    """Whether a file found in a directory is an export quizkit reads."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    return lower.endswith(SUFFIXES)


@dataclass(frozen=True, slots=True)
class Source:
    """One input: a file path as the user will see it, or ``-`` for stdin."""

    path: str

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    @property
    def display(self) -> str:
        return "<stdin>" if self.is_stdin else self.path

    @property
    def compressed(self) -> bool:
        return self.path.lower().endswith(".gz")

    @property
    def is_lines(self) -> bool:
        name = self.path.lower()
        if name.endswith(".gz"):
            name = name[:-3]
        return name.endswith(LINE_SUFFIXES)

    def size(self) -> int:
        if self.is_stdin:
            return 0
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def read(self, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
        """The source's bytes, decompressed. Raises :class:`ReadError`."""
        try:
            if self.is_stdin:
                data = sys.stdin.buffer.read()
            else:
                with open(self.path, "rb") as fh:
                    data = fh.read()
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc)) from None
        if self.compressed or (self.is_stdin and data[:2] == b"\x1f\x8b"):
            return gunzip(data, max_decompressed)
        return data


def gunzip(data: bytes, limit: int) -> bytes:
    """Decompress gzip data, refusing to produce more than ``limit`` bytes."""
    d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ReadError(f"not valid gzip data ({exc})") from None
    if len(out) > limit:
        raise ReadError(f"decompressed size exceeds the limit of {limit} bytes")
    if not d.eof:
        raise ReadError("truncated gzip data")
    return out


def expand(paths: Iterable[str], exclude: Iterable[str] = ()) -> Iterator[Source]:
    """Sources for the given paths, directories walked recursively in sorted order.

    ``exclude`` holds glob patterns matched against each name below a walked directory and
    against the path relative to it; like linters do, they never drop a file named
    explicitly. Raises :class:`MissingPath` for a path that does not exist.
    """
    exclude = tuple(exclude)
    for raw in paths:
        if raw == STDIN:
            yield Source(STDIN)
            continue
        p = Path(raw)
        if p.is_dir():
            yield from _walk(p, exclude)
        elif p.exists() or p.is_symlink():
            yield Source(raw)
        else:
            raise MissingPath(raw)


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    parts = rel.split(os.sep)
    return any(fnmatch(rel, p) or any(fnmatch(part, p) for part in parts) for p in patterns)


def _walk(root: Path, exclude: tuple[str, ...]) -> Iterator[Source]:
    seen: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:  # a symlink loop
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if is_candidate(name) and not _excluded(os.path.relpath(path, root), exclude):
                yield Source(path)


__all__ = ["DEFAULT_MAX_DECOMPRESSED", "MissingPath", "ReadError", "Source", "expand", "gunzip"]

