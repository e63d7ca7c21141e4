"""The one output layer: every file quizkit writes goes through here.

What a user gets, whatever the command (``-o``, ``--report FORMAT:PATH``, ``--write-baseline``,
``--write-valid``/``--write-invalid``, a local ``--history`` folder's files,
``enums infer -o``, ``schema export --out``, ``samples generate --out``, ``export --parquet``,
``load --db``), as ``cp``, ``install`` and shell redirection lead one to expect:

- A regular file (or a new one) is replaced atomically: the bytes go to a temporary file in the
  target's directory (so that the rename stays on one file system), which is flushed, fsynced
  and moved over the target with ``os.replace``. The old file's mode is kept; a new file gets
  ``0o666`` less the umask.
- A symbolic link is followed: the file it points to is replaced that way, the link stays.
- A character device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a named pipe) is opened
  and written to directly, streaming; it is never replaced or removed.
- A directory, a missing parent directory, a directory that cannot be written, a link loop,
  an output that is also an input of the run: :class:`OutputError` before any work.
- A failure while writing (``ENOSPC``, ``EFBIG`` under ``ulimit -f``, ``EIO``):
  :class:`OutputError` naming the path and the reason; the temporary file is removed and the
  target keeps its old content.

:class:`OutputError` is not an ``OSError``: code that handles unreadable *inputs* never takes
a failing output for one. The command line turns it into one line and exit code 2.

A process killed outright (SIGKILL, power loss) cannot clean up: it may leave a temporary
file named ``.<name>.<random>.tmp`` beside the target, never a half-written target.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from quizkit.outputs.interrupts import signals_deferred


class OutputError(Exception):
    """An output cannot be written (exit code 2). The message is one line: path and reason."""


def _reason(exc: OSError) -> str:
    return exc.strerror or (errno.errorcode.get(exc.errno or 0) or str(exc))


def _fail(path: str | os.PathLike[str], why: str) -> OutputError:
    return OutputError(f"cannot write {os.fspath(path)}: {why}")


@dataclass(frozen=True, slots=True)
class Target:
    """Where an output really goes.

    ``path`` is the path as given; ``real`` the file the bytes reach (links resolved);
    ``special`` is true for a device, FIFO or socket, written to directly.
    """

    path: str
    real: str
    special: bool
    exists: bool


def resolve(path: str | os.PathLike[str]) -> Target:
    """Check that ``path`` can take an output, without writing anything.

    Raises :class:`OutputError` for a directory, a link loop, a missing parent directory or
    one that cannot be written.
    """
    given = os.fspath(path)
    try:
        st: os.stat_result | None = os.stat(given)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # ELOOP, EACCES on the way, ENOTDIR
        raise _fail(given, _reason(exc)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _fail(given, "it is a directory")
    if st is not None and (not stat.S_ISREG(st.st_mode) or given.startswith(_STREAMS)):
        # A device, FIFO or socket; or a stream of this process by name (/dev/stdout).
        return Target(given, given, special=True, exists=True)
    real = os.path.realpath(given)
    if st is None and os.path.islink(real):
        raise _fail(given, "too many levels of symbolic links")
    if st is not None and _identity(real) != (st.st_dev, st.st_ino):
        # The links lead somewhere no name reaches (/proc/PID/fd/N): write in place.
        return Target(given, given, special=True, exists=True)
    parent = os.path.dirname(real) or "."
    # Name the directory as the user wrote it, unless a link leads elsewhere.
    written = os.path.dirname(given) or "."
    shown = written if os.path.realpath(written) == parent else parent
    if not os.path.isdir(parent):
        raise _fail(given, f"the directory {shown} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _fail(given, f"the directory {shown} is not writable")
    return Target(given, real, special=False, exists=st is not None)


#: Names of this process's own streams: written in place, like a shell's ``>/dev/stdout``.
_STREAMS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")


def _identity(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in the name, which no file has
        return None
    if stat.S_ISCHR(st.st_mode):  # /dev/stdin and /dev/stdout may both be the terminal
        return None
    return st.st_dev, st.st_ino


def refuse_inputs(outputs: Iterable[str | os.PathLike[str] | None],
                  inputs: Iterable[str | os.PathLike[str] | None], *,
                  read_trees: Iterable[str | os.PathLike[str] | None] = (),
                  written_trees: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """Raise :class:`OutputError` if an output is (after resolving links) an input of the run.

    ``inputs`` are the files a run reads, whatever their role (exports, database, config,
    profile, baseline); ``read_trees`` the directories it reads whole (a Parquet dataset), in
    which no output may be; ``written_trees`` the directories it writes into (a dataset being
    loaded, an export's directory), in which no input may be. ``None`` stands for an option
    not given. Only outputs that exist can be input files, so a run writing new files costs
    a ``stat`` each here.
    """
    outputs = [os.fspath(out) for out in outputs if out is not None]
    inputs = [os.fspath(name) for name in inputs if name is not None and name != "-"]
    wanted: dict[tuple[int, int], str] = {}
    for out in outputs:
        ident = _identity(out)
        if ident is not None:
            wanted[ident] = out
    for name in inputs:
        ident = _identity(name)
        if ident in wanted:
            raise OutputError(f"the output {wanted[ident]} is also an input of this run "
                              f"({name}); choose another output file")
    for tree in (os.fspath(t) for t in read_trees if t is not None):
        for out in outputs:
            if _within(out, tree):
                raise OutputError(f"the output {out} is inside {tree}, which this run reads; "
                                  "choose another output file")
    for tree in (os.fspath(t) for t in written_trees if t is not None):
        for name in inputs:
            if _within(name, tree):
                raise OutputError(f"the input {name} is inside {tree}, which this run "
                                  "writes; choose another output directory")


def _within(path: str, tree: str) -> bool:
    """``path`` is ``tree`` or lies under it (links resolved, as far as they exist)."""
    if "://" in path or "://" in tree or "\0" in path or "\0" in tree:
        return False
    inner, outer = os.path.realpath(path), os.path.realpath(tree)
    return inner == outer or inner.startswith(os.path.join(outer, ""))


class _GuardedRaw(io.RawIOBase):
    """A file descriptor whose write errors become :class:`OutputError` naming the target."""

    def __init__(self, fd: int, name: str, owned: bool = True) -> None:
        self.fd = fd
        self.name_shown = name
        self.owned = owned
        self.failed = False

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data: Any) -> int:  # type: ignore[override]
        if self.failed:  # said once; what is still buffered is dropped (the exit flushes)
            return len(data)
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            raise  # the reader went away (`| head`): not a failure of the output
        except OSError as exc:
            self.failed = True
            raise _fail(self.name_shown, _reason(exc)) from None

    def fileno(self) -> int:
        return self.fd

    def close(self) -> None:
        if not self.closed:
            try:
                if self.owned:
                    os.close(self.fd)
            finally:
                super().close()


def _stream(fd: int, name: str, binary: bool, encoding: str,
            newline: str | None) -> IO[Any]:
    buffered = io.BufferedWriter(_GuardedRaw(fd, name), buffer_size=1 << 16)
    if binary:
        return buffered
    return io.TextIOWrapper(buffered, encoding=encoding, newline=newline,
                            write_through=False)


class _ClosedRaw(io.RawIOBase):
    """Standard output that was closed when the program started: writing is an error."""

    def writable(self) -> bool:
        return True

    failed = False

    def write(self, data: Any) -> int:  # type: ignore[override]
        if self.failed:
            return len(data)
        self.failed = True
        raise OutputError("cannot write standard output: it is closed")


def _hold_descriptor(fd: int) -> None:
    """Open /dev/null as descriptor ``fd`` if it is free, so that no file opened later gets
    it (and the bytes meant for standard output)."""
    try:
        os.fstat(fd)
    except OSError:
        held = os.open(os.devnull, os.O_WRONLY)
        if held != fd:
            os.close(held)


def standard_output(current: IO[str] | None) -> IO[str]:
    """Standard output (``current``: ``sys.stdout``) as a stream whose write errors (a disk
    full, ``/dev/full``, an I/O error) are :class:`OutputError` naming it, like any output's.

    A reader that went away stays ``BrokenPipeError`` (exit 141, as a shell expects). Closed
    (``>&-``), every write is that error; a stream without a descriptor (a test runner's) is
    kept as it is.
    """
    if current is None:  # started with standard output closed (`>&-`)
        _hold_descriptor(1)
        return io.TextIOWrapper(io.BufferedWriter(_ClosedRaw()), encoding="utf-8")
    try:
        fd = current.fileno()
    except (AttributeError, OSError, ValueError):
        return current
    raw = _GuardedRaw(fd, "standard output", owned=False)
    buffered = io.BufferedWriter(raw, buffer_size=1 << 16)
    return io.TextIOWrapper(buffered, encoding=current.encoding, errors=current.errors,
                            newline=None, line_buffering=raw.isatty(), write_through=False)


class AtomicFile:
    """An output at ``path`` that becomes visible only when :meth:`commit` is called.

    Opening checks the target (:func:`resolve`) and creates the temporary file at once, so a
    directory that does not exist or cannot be written is reported before a long run starts,
    not after it. For a device or FIFO the target itself is opened (there is nothing to
    commit: the bytes were streamed), and :meth:`discard` only closes it.
    """

    def __init__(self, path: str | os.PathLike[str], *, encoding: str = "utf-8",
                 newline: str | None = "\n", binary: bool = False,
                 durable: bool = True) -> None:
        self.target = resolve(path)
        self.durable = durable
        self.path = Path(self.target.path)
        self.done = False
        shown = self.target.path
        if self.target.special:
            self.tmp_path: Path | None = None
            try:
                # A regular file reached through a stream name (a shell's `>>` redirect) is
                # appended to, as its other writers do; devices and FIFOs ignore the flag.
                fd = os.open(self.target.real, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            except OSError as exc:
                raise _fail(shown, _reason(exc)) from None
        else:
            self.tmp_path = None
            try:
                # Stop signals wait until the temporary file is this object's: a stop between
                # its creation and here would leave it behind.
                with signals_deferred():
                    fd, tmp = _temporary_beside(Path(self.target.real), shown)
                    self.tmp_path = Path(tmp)
                os.chmod(fd, _target_mode(Path(self.target.real)))
            except BaseException as exc:
                if self.tmp_path is not None:
                    os.close(fd)
                    self.tmp_path.unlink(missing_ok=True)
                if isinstance(exc, OSError):
                    raise _fail(shown, _reason(exc)) from None
                raise
        self.stream: IO[Any] = _stream(fd, shown, binary, encoding, newline)

    def commit(self) -> None:
        """Flush (and fsync) everything, then move the temporary file over the target."""
        if self.done:
            return
        try:
            self.stream.flush()
            if self.tmp_path is not None and self.durable:
                _fsync(self.stream.fileno(), self.target.path)
            self.stream.close()
            if self.tmp_path is not None:
                try:
                    os.replace(self.tmp_path, self.target.real)
                except OSError as exc:
                    raise _fail(self.target.path, _reason(exc)) from None
        except BaseException:
            self.discard()
            raise
        self.done = True
        if self.tmp_path is not None and self.durable:
            _fsync_directory(Path(self.target.real).parent)

    def discard(self) -> None:
        """Drop the temporary file; the target stays as it was."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError, OutputError, ValueError):
            self.stream.close()
        if self.tmp_path is not None:
            self.tmp_path.unlink(missing_ok=True)


def _temporary_beside(real: Path, shown: str) -> tuple[int, str]:
    """A new, empty temporary file beside the output ``real``: (open descriptor, path)."""
    try:
        return tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as exc:
        raise _fail(shown, _reason(exc)) from None


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, encoding: str = "utf-8",
                 newline: str | None = "\n", binary: bool = False,
                 durable: bool = True) -> Iterator[IO[Any]]:
    """Write an output: ``with atomic_write(p) as f: f.write(...)``.

    The file appears at ``path`` when the block ends normally; on any exception (including
    ``KeyboardInterrupt``) nothing at ``path`` changes (see the module's rules for links and
    devices). ``durable=False`` skips the fsyncs, for many files that can be made again
    (a generated corpus): the replacement is still atomic, only not forced to disk.
    """
    out: AtomicFile | None = None
    try:
        with signals_deferred():  # a stop comes once ``out`` can discard its file
            out = AtomicFile(path, encoding=encoding, newline=newline, binary=binary,
                             durable=durable)
        yield out.stream
    except BaseException:
        if out is not None:
            out.discard()
        raise
    out.commit()


def write_bytes(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` as the whole content of the output ``path``."""
    with atomic_write(path, binary=True, durable=durable) as fh:
        fh.write(data)


def replace_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` as the whole content of ``path``, a file in a directory quizkit owns and
    can make again (the result cache): under a new temporary name beside it, renamed over it,
    without fsync. Raises ``OSError``.

    :func:`write_bytes` checks a user's output first (links, devices, the directory), which
    costs five times the write itself: 0.6 ms a file, most of a cold cached run of many
    small files. Here nothing can reach outside the directory without those checks: the
    temporary file is created anew (``O_EXCL``, links not followed), and a rename replaces
    whatever has the name (a link itself, never what it points to).
    """
    tmp = f"{os.fspath(path)}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    with signals_deferred():  # a stop leaves no temporary file behind
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


class Together:
    """Outputs written by another library that takes file names (DuckDB's ``COPY``), which
    appear together: all of them, or none (see :func:`written_together`)."""

    def __init__(self) -> None:
        self._pending: list[tuple[Target, str]] = []

    def name_for(self, path: str | os.PathLike[str]) -> str:
        """The name to give the library for the output ``path``: a fresh temporary file
        beside it (the target itself for a device or FIFO, which is streamed to)."""
        target = resolve(path)
        if target.special:
            return target.real
        # Stop signals wait until the temporary file is pending: a stop between its creation
        # and here would leave it behind (discard removes only what is pending).
        with signals_deferred():
            fd, tmp = _temporary_beside(Path(target.real), target.path)
            self._pending.append((target, tmp))
        os.close(fd)  # the library truncates and writes it
        return tmp

    def commit(self) -> None:
        """Fsync every temporary file, then move each over its target, keeping the target's
        mode. Stop signals are held back during the moves, so a Ctrl-C cannot leave some
        targets new and others old."""
        for target, tmp in self._pending:
            try:
                os.chmod(tmp, _target_mode(Path(target.real)))
                fd = os.open(tmp, os.O_RDONLY)
                try:
                    _fsync(fd, target.path)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise _fail(target.path, _reason(exc)) from None
        with signals_deferred():
            for target, tmp in self._pending:
                try:
                    os.replace(tmp, target.real)
                except OSError as exc:
                    raise _fail(target.path, _reason(exc)) from None
        for directory in dict.fromkeys(Path(t.real).parent for t, _ in self._pending):
            _fsync_directory(directory)
        self._pending.clear()

    def discard(self) -> None:
        """Remove the temporary files left; the targets stay as they were."""
        for _target, tmp in self._pending:
            Path(tmp).unlink(missing_ok=True)
        self._pending.clear()


@contextlib.contextmanager
def written_together() -> Iterator[Together]:
    """Several outputs named by :meth:`Together.name_for`, all moved into place when the block
    ends normally; on an exception (a failed write, Ctrl-C) every temporary file is removed and
    every target keeps its old content."""
    together = Together()
    try:
        yield together
        together.commit()
    finally:
        together.discard()


def check_directory(path: str | os.PathLike[str]) -> None:
    """Raise :class:`OutputError` when :func:`make_directory` would fail for ``path``, without
    creating anything: checked before a long run, made when its files are written."""
    out = Path(path)
    probe = out
    while True:
        try:
            mode = os.stat(probe).st_mode
        except FileNotFoundError:
            if probe.parent == probe:
                raise _fail(out, "no directory on the way exists") from None
            probe = probe.parent
            continue
        except OSError as exc:
            raise _fail(out, _reason(exc)) from None
        break
    where = "it" if probe == out else str(probe)
    if not stat.S_ISDIR(mode):
        raise _fail(out, f"{where} exists and is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise _fail(out, "the directory is not writable" if probe == out
                    else f"the directory {probe} is not writable")


def make_directory(path: str | os.PathLike[str]) -> Path:
    """The output directory ``path``, created with its parents if missing.

    Raises :class:`OutputError` when it cannot be created or is not a directory.
    """
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise _fail(out, "it exists and is not a directory") from None
    except OSError as exc:
        raise _fail(out, _reason(exc)) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise _fail(out, "the directory is not writable")
    return out


def _fsync(fd: int, shown: str) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EROFS):  # fsync unsupported here
            raise _fail(shown, _reason(exc)) from None


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
