"""Atomic file output: a report file is either the previous one or the complete new one.

A report is written to a temporary file in the target's directory (so that the final rename
stays on one file system), flushed and fsynced, then moved over the target with
``os.replace``, which is atomic on POSIX and Windows. If anything goes wrong before that —
an exception, Ctrl-C (``KeyboardInterrupt``), ``SystemExit`` — the temporary file is removed
and the previous file, if there was one, is untouched.

A process killed outright (SIGKILL, power loss) cannot clean up: it may leave a temporary
file named ``.<name>.<random>.tmp`` beside the target, never a half-written target.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class AtomicFile:
    """A text file that becomes visible at ``path`` only when :meth:`commit` is called.

    Opening creates the temporary file at once, so a directory that does not exist or cannot
    be written is reported before a long run starts, not after it.
    """

    def __init__(self, path: str | os.PathLike[str], *, encoding: str = "utf-8",
                 newline: str | None = "\n") -> None:
        self.path = Path(path)
        directory = self.path.parent
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                   dir=directory)
        self.tmp_path = Path(tmp)
        try:
            os.chmod(fd, _target_mode(self.path))
            self.stream: IO[str] = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        except BaseException:
            os.close(fd)
            self.tmp_path.unlink(missing_ok=True)
            raise
        self.done = False

    def commit(self) -> None:
        """Flush and fsync the temporary file, then move it over the target."""
        if self.done:
            return
        try:
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self.stream.close()
            os.replace(self.tmp_path, self.path)
        except BaseException:
            self.discard()
            raise
        self.done = True
        _fsync_directory(self.path.parent)

    def discard(self) -> None:
        """Drop the temporary file; the target stays as it was."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError):
            self.stream.close()
        self.tmp_path.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, encoding: str = "utf-8",
                 newline: str | None = "\n") -> Iterator[IO[str]]:
    """Write a text file atomically: ``with atomic_write(p) as f: f.write(...)``.

    The file appears at ``path`` when the block ends normally; on any exception (including
    ``KeyboardInterrupt``) nothing at ``path`` changes.
    """
    out = AtomicFile(path, encoding=encoding, newline=newline)
    try:
        yield out.stream
    except BaseException:
        out.discard()
        raise
    out.commit()


def _target_mode(path: Path) -> int:
    """The mode the file would get from a plain ``open``: the old file's, or 0o666 - umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: Path) -> None:
    """Persist the rename itself (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
