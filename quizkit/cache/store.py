"""The result cache: one entry per input, one file per entry.

An entry holds what checking one input gave (its findings, cross-file facts and outlines,
:mod:`quizkit.cache.codec`) with the input's :class:`~quizkit.cache.stamps.Stamp`. Entries
live under a directory named by the *run key*, a digest of everything besides the input's
bytes that can change a file's outcome: quizkit's version and code (schemas included), and
the engine's options (forced kind, limits, enum profile, service names, snippet lines). Rule
selection and severities are applied after the cache, so they are not in the key, and the
cross-file checks always run again over the facts, cached or not.

One file per entry, written to a temporary file and renamed over the entry
(:func:`quizkit.outputs.writer.replace_private`, without fsync: a cache can be made again): a
reader sees a whole entry or none, and runs sharing a cache never corrupt it (the last
writer of an entry wins, with an entry as good as the other's). SQLite would do the same with
more to go wrong (locks on network file systems, a damaged database losing every entry).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import xxhash

from quizkit.cache import codec, stamps
from quizkit.cache.stamps import Stamp
from quizkit.inputs import remote
from quizkit.inputs.limits import Limits
from quizkit.inputs.sources import ReadError, Source, open_regular
from quizkit.outputs.writer import OutputError, replace_private, write_bytes
from quizkit.version import __version__

#: The format of entries; a change makes every older entry foreign (a miss).
FORMAT = 2
#: What marks an entry as this cache's.
MAGIC = "quizkit-cache"
#: What a cache directory holds besides its entries (git and backup tools skip it).
GITIGNORE = b"# Made by quizkit: the result cache is never committed.\n*\n"
CACHEDIR_TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
                b"# This file marks the result cache of quizkit (https://bford.info/cachedir/).\n")


def code_fingerprint() -> str:
    """quizkit's version and the name, size and modification time of each of its files (its
    code and its bundled schemas): a changed checkout or install makes a new key."""
    root = Path(__file__).resolve().parent.parent
    h = xxhash.xxh3_128()
    h.update(__version__.encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def run_key(options: Any) -> str:
    """The key of a run's entries: the code, and the engine's options (``repr`` of a frozen
    dataclass of tuples, strings and numbers: the same in every process)."""
    return xxhash.xxh3_128_hexdigest(f"{FORMAT}\0{code_fingerprint()}\0{options!r}".encode())


def cacheable(source: Source) -> bool:
    """Whether a source's outcome is cached: a local file (stdin is read once and gone;
    an object in object storage would need a request to tell whether it changed)."""
    return not source.is_stdin and source.error is None and not remote.is_url(source.path)


class ResultCache:
    """The entries of one run key in one cache directory (:meth:`for_run` makes the key).

    ``warn`` hears, once, that the cache cannot be written; the run goes on without writing.
    """

    def __init__(self, directory: str | os.PathLike[str], warn: Callable[[str], None],
                 key: str = "", counts: Counter[str] | None = None) -> None:
        self.directory = Path(directory)
        self.key = key
        self.folder = os.path.join(self.directory, key)
        self._warn = warn
        self._writable = True
        self._made: set[Path] = set()
        #: ``hit`` and ``miss`` lookups, shared with the caches :meth:`for_run` makes.
        self.counts: Counter[str] = Counter() if counts is None else counts

    def for_run(self, options: Any) -> ResultCache:
        """This cache for a run with the engine's ``options``."""
        return ResultCache(self.directory, self._warn, run_key(options), self.counts)

    def _entry(self, path: str, display: str) -> str:
        """The entry file of the input at ``path`` (absolute) shown as ``display``."""
        name = xxhash.xxh3_128_hexdigest(
            f"{path}\0{display}".encode("utf-8", "surrogateescape"))
        return os.path.join(self.folder, name[:2], name[2:])

    # --- reading --------------------------------------------------------------------------

    def lookup(self, source: Source, limits: Limits, outcome_type: type) -> Any | None:
        """The cached outcome of ``source`` if its entry is sound and the input unchanged,
        else ``None`` (a corrupt or foreign entry is a miss, replaced after the check)."""
        found = self._lookup(source, limits, outcome_type) if cacheable(source) else None
        self.counts["miss" if found is None else "hit"] += 1
        return found

    def _lookup(self, source: Source, limits: Limits, outcome_type: type) -> Any | None:
        path, display = os.path.abspath(source.path), source.display
        entry_file = self._entry(path, display)
        try:
            entry = orjson.loads(_read_entry(entry_file))
            if (type(entry) is not dict or entry.get("magic") != MAGIC
                    or entry.get("run") != self.key or entry.get("path") != path
                    or entry.get("display") != display):
                return None
            recorded = _read_stamp(entry.get("stamp"))
            outcome = codec.decode(entry.get("outcome"), outcome_type)
        except (OSError, orjson.JSONDecodeError, codec.BadEntry, UnicodeError):
            return None
        before = stamps.stat_before_read(source.path)
        if before is None:
            return None
        if recorded.same_stat(before[0]) and not recorded.racy:
            outcome.stamp = recorded  # the input as checked: to read it again if need be
            return outcome
        if before[0].st_size != recorded.size:
            return None
        try:  # the stat changed, or cannot be trusted: the bytes decide
            data = source.read(limits.max_decompressed, limits.max_file_size)
        except ReadError:
            return None
        if stamps.digest(data) != recorded.digest:
            return None
        outcome.stamp = stamps.stamp(before, data)
        entry["stamp"] = _stamp_json(outcome.stamp)
        self._write(entry_file, entry)  # the new stat: the fast path next time
        return outcome

    # --- writing --------------------------------------------------------------------------

    def store(self, source: Source, outcome: Any) -> None:
        """Keep ``outcome`` (with its stamp, taken while it was checked) for ``source``."""
        stamp: Stamp | None = outcome.stamp
        if stamp is None or not self._writable or not cacheable(source):
            return
        try:
            written = codec.encode(outcome)
        except codec.BadEntry:  # an outcome this version cannot write: checked every time
            return
        path, display = os.path.abspath(source.path), source.display
        entry = {"magic": MAGIC, "format": FORMAT, "run": self.key, "path": path,
                 "display": display, "stamp": _stamp_json(stamp), "outcome": written}
        self._write(self._entry(path, display), entry)

    def _write(self, entry_file: str, entry: dict) -> None:
        if not self._writable:
            return
        try:
            data = orjson.dumps(entry)
        except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, a lone
            return  # surrogate: this input is checked every time
        try:
            self._make(Path(entry_file).parent)
            replace_private(entry_file, data)
        except (OSError, OutputError) as exc:
            self._writable = False
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self._warn(f"quizkit: warning: cannot write the result cache in {self.directory} "
                       f"({why}); this run is not cached")

    def _make(self, folder: Path) -> None:
        """Create the cache directory (with its ``.gitignore`` and ``CACHEDIR.TAG``) and
        ``folder`` below it, once per run."""
        if folder in self._made:
            return
        if not self._made:
            self.directory.mkdir(parents=True, exist_ok=True)
            for name, text in ((".gitignore", GITIGNORE), ("CACHEDIR.TAG", CACHEDIR_TAG)):
                if not (self.directory / name).is_file():
                    write_bytes(self.directory / name, text, durable=False)
            self._made.add(self.directory)
        folder.mkdir(parents=True, exist_ok=True)
        self._made.add(folder)


#: The largest entry read; a bigger file is no entry of this cache (findings of one input
#: are capped far below it).
MAX_ENTRY = 256 * 1024 * 1024


def _read_entry(entry_file: str) -> bytes:
    """The bytes of an entry file: a regular file, never a link, FIFO or device (a shared
    cache directory may hold anything), of at most :data:`MAX_ENTRY` bytes. Raises
    ``OSError``."""
    try:
        fd, st = open_regular(entry_file, follow_links=False)
    except ReadError as exc:
        raise OSError(f"{entry_file}: {exc}") from None
    try:
        if st.st_size > MAX_ENTRY:
            raise OSError(f"{entry_file}: not an entry")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(st.st_size + 1)
    finally:
        os.close(fd)


def _stamp_json(s: Stamp) -> list:
    return [s.size, s.mtime_ns, s.ctime_ns, s.inode, s.read_at_ns, s.digest.hex()]


def _read_stamp(value: Any) -> Stamp:
    if type(value) is not list or len(value) != 6 or type(value[5]) is not str \
            or any(type(v) is not int for v in value[:5]):
        raise codec.BadEntry
    try:
        return Stamp(*value[:5], bytes.fromhex(value[5]))
    except ValueError:
        raise codec.BadEntry from None
