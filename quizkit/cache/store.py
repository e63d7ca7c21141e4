"""The result cache: one entry per input, one pack file per input directory.

An entry holds what checking one input gave (its findings, cross-file facts and outlines,
:mod:`quizkit.cache.codec`) with the input's :class:`~quizkit.cache.stamps.Stamp`. Entries
live under a directory named by the *run key*, a digest of everything besides the input's
bytes that can change a file's outcome: quizkit's version and code (schemas included), and
the engine's options (forced kind, limits, enum profile, service names, snippet lines). Rule
selection and severities are applied after the cache, so they are not in the key, and the
cross-file checks always run again over the facts, cached or not.

The entries of the inputs of one directory are kept together in one pack
(:mod:`quizkit.cache.pack`), as ruff keeps one cache file per package: a cold run creates a
file per directory, not per input. A pack's index is read once per run, on the first lookup
in its directory, and then only the entries needed. New entries are appended to a temporary
file as outcomes come; when the last input of the directory in this run is stored (the run
says which inputs it has, :meth:`ResultCache.expect`), the entries of the old pack for inputs
this run did not check are copied over and the file is renamed over the pack: a reader sees
a whole pack or none, runs sharing a cache never corrupt it (the last writer of a pack wins;
the other's new entries are misses later), and no temporary file outlives the run
(:meth:`ResultCache.close`, :meth:`ResultCache.abort`). SQLite would do the same with more to
go wrong (locks on network file systems, a damaged database losing every entry).
"""

from __future__ import annotations

import os
from collections import Counter, OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import xxhash

from quizkit.cache import codec, pack, stamps
from quizkit.cache.stamps import Stamp
from quizkit.inputs import remote
from quizkit.inputs.limits import Limits
from quizkit.inputs.sources import ReadError, Source
from quizkit.outputs.interrupts import pause_at, signals_deferred
from quizkit.outputs.writer import OutputError, write_bytes
from quizkit.version import __version__

#: The format of entries; a change makes every older entry foreign (a miss).
FORMAT = 3
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
    A run tells the cache its inputs first (:meth:`expect`), looks them up, stores the
    outcomes of the others, and ends with :meth:`close` (or :meth:`abort` when it fails or is
    stopped).
    """

    def __init__(self, directory: str | os.PathLike[str], warn: Callable[[str], None],
                 key: str = "", counts: Counter[str] | None = None) -> None:
        self.directory = Path(directory)
        self.key = key
        self.folder = os.path.join(self.directory, key)
        self._warn = warn
        self._writable = True
        self._made = False
        #: ``hit`` and ``miss`` lookups, shared with the caches :meth:`for_run` makes.
        self.counts: Counter[str] = Counter() if counts is None else counts
        #: Per pack, the inputs of this run not yet looked up as unchanged or stored.
        self._pending: Counter[str] = Counter()
        self._packs: dict[str, str] = {}  # an input's directory as given -> pack name
        self._readers: OrderedDict[str, pack.PackReader | None] = OrderedDict()
        self._writers: OrderedDict[str, pack.PackWriter] = OrderedDict()

    def for_run(self, options: Any) -> ResultCache:
        """This cache for a run with the engine's ``options``."""
        return ResultCache(self.directory, self._warn, run_key(options), self.counts)

    def _names(self, source: Source) -> tuple[str, str]:
        """The names of the input's pack (its directory's) and of its entry in the pack (its
        file name and the path the report shows). Cheap: the absolute path is made once per
        directory (a run looks up and stores every input)."""
        folder, base = os.path.split(source.path)
        pack_name = self._packs.get(folder)
        if pack_name is None:
            pack_name = self._packs[folder] = xxhash.xxh3_128_hexdigest(
                os.path.abspath(folder or ".").encode("utf-8", "surrogateescape"))
        entry = xxhash.xxh3_128_hexdigest(
            f"{base}\0{source.display}".encode("utf-8", "surrogateescape"))
        return pack_name, entry

    def _pack_path(self, pack_name: str) -> str:
        return os.path.join(self.folder, pack_name)

    def expect(self, sources: list[Source]) -> None:
        """The inputs of this run: a pack is finished as soon as the last of its inputs is
        looked up unchanged or stored (without this, at :meth:`close`)."""
        for source in sources:
            if cacheable(source):
                self._pending[self._names(source)[0]] += 1

    # --- reading --------------------------------------------------------------------------

    def lookup(self, source: Source, limits: Limits, outcome_type: type) -> Any | None:
        """The cached outcome of ``source`` if its entry is sound and the input unchanged,
        else ``None`` (a corrupt or foreign entry is a miss, replaced after the check)."""
        found = None
        if cacheable(source):
            pack_name, entry_name = self._names(source)
            found = self._lookup(source, pack_name, entry_name, limits, outcome_type)
        self.counts["miss" if found is None else "hit"] += 1
        return found

    def _reader(self, pack_name: str) -> pack.PackReader | None:
        """The pack's reader, opened on its first lookup in this run (``None``: no pack, or
        a broken one, a miss for each of its inputs)."""
        if pack_name in self._readers:
            self._readers.move_to_end(pack_name)
            return self._readers[pack_name]
        if len(self._readers) >= MAX_READERS:
            _name, oldest = self._readers.popitem(last=False)
            if oldest is not None:
                oldest.close()
        reader = _open_pack(self._pack_path(pack_name), self.key, pack_name)
        self._readers[pack_name] = reader
        return reader

    def _lookup(self, source: Source, pack_name: str, entry_name: str,
                limits: Limits, outcome_type: type) -> Any | None:
        reader = self._reader(pack_name)
        if reader is None:
            return None
        try:
            blob = reader.get(entry_name)
            if blob is None:
                return None
            path, display = os.path.abspath(source.path), source.display
            entry = orjson.loads(blob)
            if (type(entry) is not dict or entry.get("magic") != MAGIC
                    or entry.get("run") != self.key or entry.get("path") != path
                    or entry.get("display") != display):
                return None
            recorded = _read_stamp(entry.get("stamp"))
            outcome = codec.decode(entry.get("outcome"), outcome_type)
        except (OSError, pack.BadPack, orjson.JSONDecodeError, codec.BadEntry, UnicodeError):
            return None
        before = stamps.stat_before_read(source.path)
        if before is None:
            return None
        if recorded.same_stat(before[0]) and not recorded.racy:
            outcome.stamp = recorded  # the input as checked: to read it again if need be
            self._settle(pack_name)
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
        self._put(pack_name, entry_name, entry)  # the new stat: the fast path next time
        self._settle(pack_name)
        return outcome

    # --- writing --------------------------------------------------------------------------

    def store(self, source: Source, outcome: Any) -> None:
        """Keep ``outcome`` (with its stamp, taken while it was checked) for ``source``."""
        if not cacheable(source):
            return
        pack_name, entry_name = self._names(source)
        try:
            stamp: Stamp | None = outcome.stamp
            if stamp is None or not self._writable:
                return
            try:
                written = codec.encode(outcome)
            except codec.BadEntry:  # an outcome this version cannot write: checked each time
                return
            entry = {"magic": MAGIC, "format": FORMAT, "run": self.key,
                     "path": os.path.abspath(source.path),
                     "display": source.display, "stamp": _stamp_json(stamp),
                     "outcome": written}
            self._put(pack_name, entry_name, entry)
        finally:
            self._settle(pack_name)

    def _put(self, pack_name: str, entry_name: str, entry: dict) -> None:
        """Append ``entry`` to the pack's temporary file (started on the pack's first new
        entry in this run)."""
        if not self._writable:
            return
        try:
            data = orjson.dumps(entry)
        except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits, a lone
            return  # surrogate: this input is checked every time
        try:
            writer = self._writers.get(pack_name)
            if writer is None:
                if len(self._writers) >= MAX_WRITERS:  # finished early; a later entry of
                    self._finish(next(iter(self._writers)))  # that pack starts anew
                self._make()
                with signals_deferred():  # recorded as soon as made: never left behind
                    writer = self._writers[pack_name] = pack.PackWriter(
                        self._pack_path(pack_name))
                pause_at("cache-pack")  # the test hook: a stop here leaves no temporary file
            else:
                self._writers.move_to_end(pack_name)
            writer.add(entry_name, data)
        except (OSError, OutputError) as exc:
            self._fail(exc)

    def _settle(self, pack_name: str) -> None:
        """One input of the pack is done in this run; after its last, the pack is
        finished."""
        left = self._pending.get(pack_name)
        if left is None:
            return
        if left > 1:
            self._pending[pack_name] = left - 1
            return
        del self._pending[pack_name]
        if pack_name in self._writers:
            try:
                self._finish(pack_name)
            except OSError as exc:
                self._fail(exc)

    def _finish(self, pack_name: str) -> None:
        """Copy the old pack's entries this run did not write, add the index and rename
        the temporary file over the pack. Raises ``OSError``."""
        writer = self._writers[pack_name]
        old = _open_pack(writer.target, self.key, pack_name)  # as it is now: another run
        try:  # may have written it since this run read it
            writer.seal(old, {"magic": MAGIC, "format": FORMAT, "run": self.key,
                              "pack": pack_name})
        finally:
            if old is not None:
                old.close()
        with signals_deferred():
            writer.commit()
            del self._writers[pack_name]

    def close(self) -> None:
        """The end of a run: finish every pack still being written."""
        try:
            while self._writers and self._writable:
                try:
                    self._finish(next(iter(self._writers)))
                except OSError as exc:
                    self._fail(exc)
        finally:
            self.abort()

    def abort(self) -> None:
        """A run that failed or was stopped: remove every temporary file (the packs are
        left as they were), close the packs read."""
        with signals_deferred():
            while self._writers:
                self._writers.popitem()[1].discard()
        while self._readers:
            reader = self._readers.popitem()[1]
            if reader is not None:
                reader.close()
        self._pending.clear()

    def _fail(self, exc: OSError | OutputError) -> None:
        """The cache cannot be written: one warning, and nothing more is written."""
        if self._writable:
            self._writable = False
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self._warn(f"quizkit: warning: cannot write the result cache in {self.directory} "
                       f"({why}); this run is not cached")
        with signals_deferred():
            while self._writers:
                self._writers.popitem()[1].discard()

    def _make(self) -> None:
        """Create the cache directory (with its ``.gitignore`` and ``CACHEDIR.TAG``) and
        the run key's folder below it, once per run."""
        if self._made:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", GITIGNORE), ("CACHEDIR.TAG", CACHEDIR_TAG)):
            if not (self.directory / name).is_file():
                write_bytes(self.directory / name, text, durable=False)
        os.makedirs(self.folder, exist_ok=True)
        self._made = True


#: Packs open for reading at once, and packs being written at once (the least recently
#: used is closed, or finished early, beyond these).
MAX_READERS = 16
MAX_WRITERS = 32


def _open_pack(path: str, key: str, pack_name: str) -> pack.PackReader | None:
    """The pack at ``path``, or ``None`` when there is none or it is no pack of this run
    (corrupt, truncated, foreign, unreadable, a link, FIFO or device)."""
    try:
        return pack.PackReader.open(path, key, pack_name, MAGIC)
    except (OSError, pack.BadPack):
        return None


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
