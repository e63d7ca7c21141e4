"""Helpers of the tests/test_safety_*.py files: the real CLI in a subprocess, real file-system
entries (FIFOs, device nodes, small or read-only file systems) and what a directory holds."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).parent.parent
SAMPLES = REPO / "samples"


def quizkit(*args: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None,
            timeout: float = 120, preexec: Callable[[], None] | None = None,
            stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    """``python -m quizkit ARGS`` in a subprocess (umask 022 unless ``preexec`` says else)."""
    def setup() -> None:
        os.umask(0o022)
        if preexec is not None:
            preexec()

    return subprocess.run([sys.executable, "-m", "quizkit", *map(os.fspath, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=setup, stdin=stdin)


#: Runs its arguments as a child of its own and writes the child's peak RSS to a file. The
#: child's ``ru_maxrss`` starts from the high-water mark of the process that exec'd it, so a
#: command started straight from pytest (hundreds of MB after a few test modules) would be
#: charged the test runner's own peak; this small launcher's is ~10 MB.
_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss * 1024))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def peak_rss(*args: str | os.PathLike[str], timeout: float = 300,
             stdout: int | None = subprocess.PIPE
             ) -> tuple[subprocess.CompletedProcess[str], int]:
    """``python -m quizkit ARGS`` and its peak resident memory in bytes (``ru_maxrss``)."""
    with tempfile.NamedTemporaryFile("r") as peak:
        done = subprocess.run([sys.executable, "-c", _LAUNCHER, peak.name, "-m", "quizkit",
                               *map(os.fspath, args)], stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return done, int(peak.read())


def one_line_error(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The run ended with ``code`` and a single line on stderr (no traceback); that line."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str | int]]:
    """Every entry under ``root``: kind and content (file bytes, link target, device number)."""
    out: dict[str, tuple[str, bytes | str | int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", path.read_bytes())
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = ("fifo", 0)
            elif stat.S_ISCHR(st.st_mode):
                out[rel] = ("chr", st.st_rdev)
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", 0)
    return out


def device_like(directory: Path, system: str = "/dev/null") -> Path:
    """A character device like ``system`` (/dev/null, /dev/full): a node of our own when we
    may make one, so that a broken quizkit replaces that node and never the system's; else
    (not root: no quizkit can replace it) the system's device itself."""
    node = directory / Path(system).name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(*_LINUX_DEVICES[system]))
    except (PermissionError, AttributeError, KeyError):
        return Path(system)
    return node


#: Device numbers of the memory devices on Linux (not read from /dev: another program on
#: the machine may have replaced a node there).
_LINUX_DEVICES = {"/dev/null": (1, 3), "/dev/zero": (1, 5), "/dev/full": (1, 7)}


class FifoReader:
    """Reads a FIFO to its end in a thread; :meth:`finish` returns what came."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.fifo, "rb") as fh:
            self.data = fh.read()

    def finish(self) -> bytes:
        """After the writer is gone: unblock a reader still waiting for one, return the data."""
        if self.thread.is_alive():
            with contextlib.suppress(OSError):
                os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))
        self.thread.join(10)
        assert not self.thread.is_alive()
        return self.data


@contextlib.contextmanager
def small_filesystem(mount_point: Path, size: str) -> Iterator[Callable[[], None]]:
    """A tmpfs of ``size`` at ``mount_point`` (root only); yields a function that makes it
    read-only. Raises ``PermissionError`` where mounting is not possible."""
    mount_point.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                           str(mount_point)], capture_output=True)
    if done.returncode != 0:
        raise PermissionError(done.stderr.decode(errors="replace"))

    def read_only() -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(mount_point)], check=True)

    try:
        yield read_only
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)
