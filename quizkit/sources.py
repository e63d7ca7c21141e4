"""Inputs → sources: paths, directories (recursive), stdin, ``.gz``, JSON Lines.

A :class:`Source` knows how to read its bytes; reading happens in the worker that checks it,
so a parallel run never ships file contents between processes.

Hostile file systems are expected: reading never blocks on a FIFO or a device, never reads
more than the size limits allow, and a path that cannot be printed as-is (a newline, bytes
that are not UTF-8) is shown escaped. See ``docs/limits.md``.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch

from quizkit import remote
from quizkit.limits import DEFAULT_MAX_DECOMPRESSED, DEFAULT_MAX_FILE_SIZE, format_size

SUFFIXES = (".json", ".jsonl", ".ndjson")
LINE_SUFFIXES = (".jsonl", ".ndjson")
STDIN = "-"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_CLOEXEC", 0)


class ReadError(Exception):
    """The source could not be read (the message says why).

    ``limit`` is true when the input was refused for exceeding a size limit.
    """

    def __init__(self, message: str, limit: bool = False) -> None:
        super().__init__(message)
        self.limit = limit


class MissingPath(Exception):
    """A path named on the command line does not exist."""


def is_candidate(name: str) -> bool:
    """Whether a file found in a directory is an export quizkit reads."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    return lower.endswith(SUFFIXES)


def printable(path: str) -> str:
    """``path`` safe to print on one line: control characters and undecodable bytes escaped.

    File names are bytes; Python keeps bytes that are not UTF-8 as lone surrogates, which no
    UTF-8 stream can write. They are shown as ``\\xNN``, control characters as ``\\n`` etc.
    """
    if path.isprintable():
        return path
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # surrogateescape'd byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return "".join(out)


def file_type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


@dataclass(frozen=True, slots=True)
class Source:
    """One input: a file path, or ``-`` for stdin.

    ``path`` is the real name (it may hold undecodable bytes); ``display`` is what reports
    show. ``error`` is set when listing already found the source unreadable (a directory that
    could not be opened while walking).
    """

    path: str
    error: str | None = None

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    @property
    def display(self) -> str:
        return "<stdin>" if self.is_stdin else printable(self.path)

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
        if self.is_stdin or remote.is_url(self.path):
            return 0
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def read(self, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
             max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> bytes:
        """The source's bytes, decompressed. Raises :class:`ReadError`, never blocks."""
        if self.error is not None:
            raise ReadError(self.error)
        if self.is_stdin:
            read = _read_stdin
        elif remote.is_url(self.path):
            read = functools.partial(_read_remote, self.path)
        else:
            read = functools.partial(_read_file, self.path)
        data = read(max_file_size)
        if self.compressed or (self.is_stdin and data[:2] == b"\x1f\x8b"):
            return gunzip(data, max_decompressed)
        return data


def _too_large(limit: int) -> ReadError:
    return ReadError(f"file size exceeds the limit of {format_size(limit)} (--max-file-size)",
                     limit=True)


def _read_stdin(limit: int) -> bytes:
    try:
        data = sys.stdin.buffer.read(limit + 1)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise _too_large(limit)
    return data


def _read_remote(url: str, limit: int) -> bytes:
    """Read an object of object storage (quizkit.remote)."""
    try:
        data = remote.read(url, limit)
    except remote.RemoteError as exc:
        raise ReadError(str(exc)) from None
    if len(data) > limit:
        raise _too_large(limit)
    return data


def _read_file(path: str, limit: int) -> bytes:
    """Read a regular file. Opened non-blocking, so a FIFO swapped in after listing cannot
    hang the run; anything but a regular file is refused before a byte is read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    except ValueError:  # a NUL byte: no file can have this name
        raise ReadError("the name holds a NUL byte") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            hint = "; to read a stream, pipe it to stdin (-)" if stat.S_ISFIFO(st.st_mode) else ""
            raise ReadError(f"{file_type(st.st_mode)}, not a regular file{hint}")
        if st.st_size > limit:
            raise _too_large(limit)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            # Ask for the size fstat gave (and one byte more): asking for the limit itself
            # would have Python allocate a buffer of that size (512 MB) for every file.
            want = st.st_size + 1
            data = fh.read(want)
            if len(data) == want:  # the file grew after fstat (or fstat says 0, as in /proc)
                data += fh.read(limit + 1 - len(data))
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(limit)
    return data


def gunzip(data: bytes, limit: int) -> bytes:
    """Decompress gzip data (all members), refusing to produce more than ``limit`` bytes.

    The output is capped while decompressing, so a gzip bomb costs at most ``limit`` bytes
    of memory before it is refused.
    """
    if data[:2] != b"\x1f\x8b":
        raise ReadError("not gzip data (the name ends in .gz but the file has no gzip header)")
    parts: list[bytes] = []
    produced = 0
    while data:
        d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(data, limit - produced + 1)
        except zlib.error as exc:
            raise ReadError(f"not valid gzip data ({exc})") from None
        produced += len(out)
        if produced > limit:
            raise ReadError(f"decompressed size exceeds the limit of {format_size(limit)} "
                            "(--max-decompressed-size)", limit=True)
        if not d.eof:
            raise ReadError("truncated gzip data")
        parts.append(out)
        data = d.unused_data
        if data.strip(b"\x00") == b"":  # padding after the last member, as gzip(1) allows
            break
    return b"".join(parts)


def expand(paths: Iterable[str], exclude: Iterable[str] = ()) -> Iterator[Source]:
    """Sources for the given paths, directories walked recursively in sorted order.

    ``exclude`` holds glob patterns matched against each name below a walked directory and
    against the path relative to it; like linters do, they never drop a file named
    explicitly. Walking skips anything that is not a regular file (FIFOs, sockets, devices,
    broken links); a file named explicitly is always a source, and reading it says what is
    wrong with it. Raises :class:`MissingPath` for a path that does not exist.
    """
    exclude = tuple(exclude)
    for raw in paths:
        if raw == STDIN:
            yield Source(STDIN)
            continue
        if remote.is_url(raw):
            try:
                yield from (Source(url) for url, _ in remote.list_files(raw, is_candidate))
            except remote.RemoteError as exc:
                raise MissingPath(str(exc)) from None
            continue
        try:
            is_dir = stat.S_ISDIR(os.stat(raw).st_mode)
        except FileNotFoundError:
            if not os.path.islink(raw):
                raise MissingPath(printable(raw)) from None
            is_dir = False  # a broken link: reading it reports it
        except (OSError, ValueError):
            is_dir = False  # no permission, a link loop, a NUL in the name: reported on read
        if is_dir:
            yield from _walk(raw, exclude)
        else:
            yield Source(raw)


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return False
    parts = rel.split(os.sep)
    return any(fnmatch(rel, p) or any(fnmatch(part, p) for part in parts) for p in patterns)


def _walk(root: str, exclude: tuple[str, ...]) -> Iterator[Source]:
    """Regular candidate files below ``root``, depth first in sorted order.

    Links to directories are followed once: a directory already visited (a symlink loop) is
    not entered again. A directory that cannot be listed becomes a source that reports it.
    """
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            st = os.stat(directory)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield Source(directory, error=f"cannot list directory: {exc.strerror or exc}")
            continue
        subdirs = []
        # Paths relative to the root, for the patterns only (none: nothing to compute).
        rel_dir = os.path.relpath(directory, root) if exclude else ""
        for entry in entries:
            if exclude:
                rel = entry.name if rel_dir == os.curdir else os.path.join(rel_dir, entry.name)
                if _excluded(rel, exclude):
                    continue
            try:
                if entry.is_dir():
                    subdirs.append(entry.path)
                elif is_candidate(entry.name) and entry.is_file():
                    yield Source(entry.path)
            except OSError:
                continue  # vanished or a link loop: nothing to read
        stack.extend(reversed(subdirs))


__all__ = ["DEFAULT_MAX_DECOMPRESSED", "MissingPath", "ReadError", "Source", "expand", "gunzip",
           "printable"]
