"""Sources: reading one input (a file or stdin), ``.gz``, JSON Lines; the walk is in
:mod:`quizkit.inputs.walk`.

A :class:`Source` knows how to read its bytes; reading happens in the worker that checks it,
so a parallel run never ships file contents between processes.

Hostile file systems are expected: reading never blocks on a FIFO or a device, never reads
more than the size limits allow, and a path that cannot be printed as-is (a newline, bytes
that are not UTF-8) is shown escaped. See ``docs/limits.md``.
"""

from __future__ import annotations

import functools
import io
import os
import stat
import sys
import zlib
from dataclasses import dataclass

import orjson

from quizkit.catalog.display import printable
from quizkit.inputs import remote
from quizkit.inputs.limits import DEFAULT_MAX_DECOMPRESSED, DEFAULT_MAX_FILE_SIZE, format_size
from quizkit.inputs.parsing import BOM
from quizkit.outputs.interrupts import wait_readable, wakes_waits

SUFFIXES = (".json", ".jsonl", ".ndjson")
LINE_SUFFIXES = (".jsonl", ".ndjson")
STDIN = "-"
#: The most bytes one read of stdin asks for when each read waits first (:func:`_read_stdin`):
#: a pipe's capacity (Linux); a larger read gets no more from a pipe and costs a larger
#: buffer each time.
STDIN_CHUNK = 64 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_CLOEXEC", 0)


class ReadError(Exception):
    """The source could not be read (the message says why).

    ``limit`` is true when the input was refused for exceeding a size limit.
    """

    def __init__(self, message: str, limit: bool = False) -> None:
        super().__init__(message)
        self.limit = limit


def is_candidate(name: str) -> bool:
    """Whether a file found in a directory is an export quizkit reads."""
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    return lower.endswith(SUFFIXES)


def file_type(mode: int) -> str:
    """What a non-regular file is, for messages ("a FIFO (named pipe)")."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class MissingPath(Exception):
    """A path named on the command line does not exist."""


@dataclass(frozen=True, slots=True)
class Source:
    """One input: a file path, or ``-`` for stdin.

    ``path`` is the real name (it may hold undecodable bytes); ``display`` is what reports
    show. ``error`` is set when listing already found the source unreadable (a directory that
    could not be opened while walking). ``lines`` forces JSON Lines on or off (stdin's
    ``--stdin-format``).
    """

    path: str
    error: str | None = None
    lines: bool | None = None  # JSON Lines or not, when the name cannot tell (stdin)
    listed_size: int | None = None  # an object's size, as object storage listed it

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
        """JSON Lines by ``lines`` when set, else by the file's name (``.jsonl``, ``.ndjson``,
        each also ``.gz``); stdin is not, unless its bytes say so (:meth:`holds_lines`)."""
        if self.lines is not None:
            return self.lines
        name = self.path.lower()
        if name.endswith(".gz"):
            name = name[:-3]
        return name.endswith(LINE_SUFFIXES)

    def holds_lines(self, data: bytes) -> bool:
        """Whether ``data``, this source's bytes, is read as JSON Lines: :attr:`is_lines`, and
        for stdin with no ``lines`` given, :func:`looks_like_lines`."""
        if self.lines is None and self.is_stdin:
            return looks_like_lines(data)
        return self.is_lines

    def size(self) -> int:
        if self.is_stdin or remote.is_url(self.path):
            return self.listed_size or 0
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
    """stdin's bytes, at most ``limit`` + 1 (one more tells that it is over the limit).

    Under the command line each read first waits with
    :func:`~quizkit.outputs.interrupts.wait_readable`, so that Ctrl-C ends a run whose stdin
    (a pipe, a terminal) stays open whenever the signal comes; elsewhere (in-process, where
    ``sys.stdin`` may be no file at all) the stream is read as it is.
    """
    try:
        if wakes_waits():
            data = _read_waiting(sys.stdin.buffer.fileno(), limit + 1)
        else:
            data = sys.stdin.buffer.read(limit + 1)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise _too_large(limit)
    return data


def _read_waiting(fd: int, most: int) -> bytes:
    """At most ``most`` bytes of ``fd``, up to its end, each read once ``fd`` is readable.
    Gathered in one growing buffer, handed over without a copy (``BytesIO.getvalue``)."""
    got = io.BytesIO()
    while got.tell() < most:
        wait_readable(fd)
        try:
            chunk = os.read(fd, min(most - got.tell(), STDIN_CHUNK))
        except BlockingIOError:  # a non-blocking stdin another reader emptied meanwhile
            continue
        if not chunk:
            break
        got.write(chunk)
    return got.getvalue()


def _read_remote(url: str, limit: int) -> bytes:
    """Read an object of object storage (quizkit.inputs.remote)."""
    try:
        data = remote.read(url, limit)
    except remote.RemoteError as exc:
        raise ReadError(str(exc)) from None
    if len(data) > limit:
        raise _too_large(limit)
    return data


def not_regular(mode: int) -> str:
    """Why an input of this mode is not read: "a FIFO (named pipe), not a regular file; ..."."""
    hint = "; to read a stream, pipe it to stdin (-)" if stat.S_ISFIFO(mode) else ""
    return f"{file_type(mode)}, not a regular file{hint}"


def open_regular(path: str, *, follow_links: bool = True) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file ``path``, and its ``fstat``.

    Opened non-blocking, so a FIFO (named, or swapped in after listing) cannot hang the run;
    anything but a regular file (a FIFO, ``/dev/zero``, a socket) is refused before a byte is
    read; without ``follow_links``, so is a symbolic link (a file quizkit keeps itself, in a
    directory others may write). Raises :class:`ReadError`.
    """
    flags = _OPEN_FLAGS if follow_links else _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ReadError(exc.strerror or str(exc)) from None
    except ValueError:  # a NUL byte: no file can have this name
        raise ReadError("the name holds a NUL byte") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise ReadError(exc.strerror or str(exc)) from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ReadError(not_regular(st.st_mode))
    return fd, st


def _read_file(path: str, limit: int) -> bytes:
    """Read a regular file (:func:`open_regular`), at most ``limit`` bytes."""
    fd, st = open_regular(path)
    try:
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


#: What ``--stdin-format`` accepts, and the ``Source.lines`` each gives.
STDIN_FORMATS = {"auto": None, "json": False, "jsonl": True}


def looks_like_lines(data: bytes) -> bool:
    """Whether stdin's ``data`` is JSON Lines: more than one non-blank line, the first of which
    is a whole JSON value on its own (a pretty-printed document's first line is not).

    A document on one line is the same read either way, so it is not parsed here.
    """
    text = data.removeprefix(BOM).lstrip()
    end = text.find(b"\n")
    if end < 0 or not text[end:].strip():
        return False
    try:
        orjson.loads(text[:end])
    except orjson.JSONDecodeError:
        return False
    return True


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


__all__ = ["DEFAULT_MAX_DECOMPRESSED", "MissingPath", "ReadError", "Source", "file_type",
           "gunzip", "is_candidate", "looks_like_lines", "not_regular", "open_regular",
           "printable"]
