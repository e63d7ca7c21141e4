"""An input read again after the one pass, only to place or settle a cross-file finding.

The pass keeps each cross-file fact with its path, record and pointer, and a quick digest of
its content (:mod:`quizkit.rules.facts`): no positions, no canonical digest. Of an input that
holds facts it keeps an :class:`Origin`: its stat before the read (the result cache's stamp:
size, modification and change times, inode) and a digest of the bytes it checked (standard
input: a spooled copy of them). After the batch
checks:

- :func:`settle` makes the digests of one id canonical (key order aside) where its copies'
  quick digests differ: the copies are read again and their values written with sorted keys;
- :func:`place` gives each finding of a batch check its line, column and source lines.

An input is read again only when it is unchanged: the same stat, and the same digest of its
bytes. One that changed in between keeps its finding, with a note and no
position, never a wrong one. A big JSON Lines file that the run cut for its workers was
read in blocks, each block's digest and first line kept (:class:`Block`): only the blocks
holding the records asked for are read again, each checked against its own digest.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, NamedTuple

import orjson

from quizkit.cache import stamps
from quizkit.cache.stamps import Stamp
from quizkit.catalog.findings import Finding
from quizkit.catalog.pointers import split_pointer
from quizkit.checks import snippets
from quizkit.inputs import intake
from quizkit.inputs.limits import Limits
from quizkit.inputs.positions import DocumentText
from quizkit.inputs.sources import ReadError, Source, open_regular
from quizkit.rules.facts import Content, Located, digest

#: Added to the message of a finding whose input changed between the pass and its re-read.
CHANGED_NOTE = " (the input changed while it was checked: no position is given)"
#: Standard input spooled in memory up to this size, on disk beyond.
SPOOL_IN_MEMORY = 8 * 1024 * 1024


class Block(NamedTuple):
    """A block of a file as the pass read it: where it starts, the line its first byte is
    on, and the digest of its bytes."""

    offset: int
    line: int
    digest: bytes


@dataclass(frozen=True, slots=True)
class Origin:
    """What the pass saw of an input that holds facts, to read the same bytes again."""

    lines: bool  # read as JSON Lines
    indented: bool  # one document, exactly as orjson writes it indented (faster placing)
    digest: bytes  # of the bytes checked (decompressed): :func:`quizkit.cache.stamps.digest`
    #: A local file: its stat before the pass read it (the cache's stamp).
    stamp: Stamp | None = None
    #: Standard input: the bytes checked, spooled (never pickled: stdin is checked in the
    #: run's own process).
    spool: IO[bytes] | None = None
    #: A JSON Lines file read in blocks (:class:`Block`), in order: its records can be read
    #: again from the blocks that hold them alone.
    blocks: tuple[Block, ...] = ()


def origin_of_stamp(stamp: Stamp, lines: bool, indented: bool,
                    blocks: tuple[Block, ...] = ()) -> Origin:
    """The :class:`Origin` of a local file read as ``stamp`` says (in ``blocks``, when the
    run cut it)."""
    return Origin(lines, indented, stamp.digest, stamp, blocks=blocks)


def origin_of(source: Source, data: bytes, lines: bool, indented: bool) -> Origin:
    """The :class:`Origin` of ``data``, the bytes of ``source`` (standard input, spooled, or
    an object in object storage) just checked."""
    spool = None
    if source.is_stdin:
        spool = tempfile.SpooledTemporaryFile(SPOOL_IN_MEMORY)  # noqa: SIM115 - closed by close()
        spool.write(data)
    return Origin(lines, indented, stamps.digest(data), None, spool)


def close(origins: Iterable[Origin]) -> None:
    """Drop the spooled copies."""
    for origin in origins:
        if origin.spool is not None:
            origin.spool.close()


def read_again(source: Source, origin: Origin, limits: Limits) -> bytes | None:
    """The bytes the pass checked, or None when the input changed (or cannot be read) since."""
    if origin.spool is not None:
        origin.spool.seek(0)
        data = origin.spool.read()
    else:
        if origin.stamp is not None:
            before = stamps.stat_before_read(source.path)
            if before is None or not origin.stamp.same_stat(before[0]):
                return None
        try:
            data = source.read(limits.max_decompressed, limits.max_file_size)
        except ReadError:
            return None
    return data if stamps.digest(data) == origin.digest else None


class _Input:
    """One input's bytes read again, cut into its documents as the pass cut them."""

    def __init__(self, data: bytes, origin: Origin) -> None:
        prepared, _problems = intake.prepare(data)
        self.text = prepared or b""
        self.origin = origin
        self._line = (1, 0)  # a line number and where it starts: records are asked in order

    def chunk(self, record: int | None) -> bytes:
        """The document's text: the whole input, or line ``record`` of JSON Lines."""
        if not self.origin.lines or record is None:
            return self.text
        text = self.text
        line, at = self._line if self._line[0] <= record else (1, 0)
        while line < record and at >= 0:
            at = text.find(b"\n", at)
            at = at + 1 if at >= 0 else -1
            line += 1
        if at < 0:
            return b""
        self._line = (line, at)
        end = text.find(b"\n", at)
        return text[at:] if end < 0 else text[at:end]

    def document_text(self, record: int | None) -> DocumentText:
        return DocumentText(self.chunk(record), record,
                            self.origin.indented and not self.origin.lines)

    def close(self) -> None:
        pass


class _Records:
    """Records of a JSON Lines file read again from the blocks of the pass that hold them
    (:class:`Block`), each block checked against its digest; a record one of whose blocks
    changed is ``None``."""

    def __init__(self, fd: int, blocks: tuple[Block, ...], size: int) -> None:
        self._fd, self._blocks, self._size = fd, blocks, size
        self._lines = [block.line for block in blocks]
        self._read: dict[int, bytes | None] = {}

    @classmethod
    def open(cls, path: str, origin: Origin) -> _Records | None:
        """The records of ``path``, or None when it is not the file the pass read."""
        try:
            fd, st = open_regular(path)
        except ReadError:
            return None
        if origin.stamp is None or not origin.stamp.same_stat(st):
            os.close(fd)
            return None
        return cls(fd, origin.blocks, st.st_size)

    def close(self) -> None:
        os.close(self._fd)

    def _block(self, i: int) -> bytes | None:
        """The bytes of block ``i`` as the pass read them, or None (changed)."""
        if i not in self._read:
            start = self._blocks[i].offset
            end = self._blocks[i + 1].offset if i + 1 < len(self._blocks) else self._size
            try:
                data = os.pread(self._fd, end - start, start)
            except OSError:
                data = b""
            same = len(data) == end - start and stamps.digest(data) == self._blocks[i].digest
            self._read[i] = data if same else None
        return self._read[i]

    def chunk(self, record: int | None) -> bytes | None:
        """Line ``record`` without its line break (empty past the end), or None when a
        block holding it changed since the pass."""
        record = record or 1
        i = max(0, bisect.bisect_left(self._lines, record) - 1)  # its start is in i or after
        text = self._block(i)
        at = len(intake.BOM) if i == 0 and text and text.startswith(intake.BOM) else 0
        line = self._blocks[i].line
        while text is not None and line < record:  # to the start of the record
            found = text.find(b"\n", at)
            if found >= 0:
                at, line = found + 1, line + 1
            elif i + 1 < len(self._blocks):
                i, at = i + 1, 0
                text = self._block(i)
            else:
                return b""
        parts = []
        while text is not None:  # to its end
            found = text.find(b"\n", at)
            parts.append(text[at:] if found < 0 else text[at:found])
            if found >= 0 or i + 1 == len(self._blocks):
                return b"".join(parts)
            i, at = i + 1, 0
            text = self._block(i)
        return None

    def document_text(self, record: int | None) -> DocumentText | None:
        chunk = self.chunk(record)
        return None if chunk is None else DocumentText(chunk, record, False)


Origins = dict[str, tuple[Source, Origin]]
#: A record whose input changed since the pass (:func:`settle`).
_CHANGED = object()


def _again(source: Source, origin: Origin, limits: Limits, whole: bool = False
           ) -> _Input | _Records | None:
    """The input read again (None: changed or unreadable since the pass): only the blocks
    holding the records asked for when the pass kept them and ``whole`` text is not needed."""
    if origin.blocks and not whole:
        return _Records.open(source.path, origin)
    data = read_again(source, origin, limits)
    return None if data is None else _Input(data, origin)


def place(findings: Sequence[Finding], origins: Origins, limits: Limits,
          snippet_lines: int = 0) -> None:
    """Line, column (and source lines, ``snippet_lines`` either side) of each finding that
    has none and whose input holds facts; each input is read again once. A finding whose
    input changed gets :data:`CHANGED_NOTE` instead."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.line is None and f.path in origins:
            by_path.setdefault(f.path, []).append(f)
    for path, group in by_path.items():
        source, origin = origins[path]
        read = _again(source, origin, limits, whole=bool(snippet_lines))
        if read is None:
            for f in group:
                f.message += CHANGED_NOTE
            continue
        try:
            _place_group(group, read, snippet_lines)
        finally:
            read.close()


def _place_group(group: list[Finding], read: _Input | _Records, snippet_lines: int) -> None:
    texts: dict[int | None, DocumentText | None] = {}
    placed = []
    for f in group:
        if f.record not in texts:
            texts[f.record] = read.document_text(f.record)
        text = texts[f.record]
        if text is None:
            f.message += CHANGED_NOTE
            continue
        f.line, f.column = text.position(f.pointer)
        placed.append(f)
    if snippet_lines and isinstance(read, _Input):
        snippets.attach_file(placed, read.text, snippet_lines)


def place_read(findings: Sequence[Finding], sources: Mapping[str, Source], limits: Limits,
               snippet_lines: int = 0) -> None:
    """Line, column (and source lines) of findings made outside the pass (a team's checks
    over the tables), each input in ``sources`` (by the name reports give it) read once
    now; an input that cannot be read leaves its findings without a position."""
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if f.line is None and f.path in sources and not sources[f.path].is_stdin:
            by_path.setdefault(f.path, []).append(f)
    for path, group in by_path.items():
        source = sources[path]
        try:
            data = source.read(limits.max_decompressed, limits.max_file_size)
        except ReadError:
            continue
        _place_group(group, _Input(data, Origin(source.holds_lines(data), False, b"")),
                     snippet_lines)


def _value_at(doc: Any, pointer: str) -> Any:
    for part in split_pointer(pointer):
        doc = doc[int(part)] if type(doc) is list else doc[part]
    return doc


def _compared(facts: list[Located], members: list[int]) -> list[int]:
    """The members of one id that a batch check compares: the first and each later one,
    but a version of the same package as the first (the packages are compared)."""
    first = facts[members[0]].fact
    return [members[0]] + [
        i for i in members[1:]
        if not (first.entity == "version" and facts[i].fact.parent is not None  # type: ignore[union-attr]
                and facts[i].fact.parent == first.parent)]  # type: ignore[union-attr]


def settle(facts: list[Located], origins: Origins, limits: Limits) -> None:
    """Canonical digests (key order aside) for the copies of each id that are compared and
    whose quick digests differ or were left out, in place; each input holding such a copy is
    read again once. A copy whose input changed keeps its quick digest, or gets one that
    equals no other when it had none (it is then told from the others as conflicting; its
    own finding, if any, gets the note)."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, (_place, fact) in enumerate(facts):
        if type(fact) is Content:
            groups.setdefault((fact.entity, fact.id, fact.view), []).append(i)
    by_path: dict[str, list[int]] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        compared = _compared(facts, members)
        digests = {facts[i].fact.digest for i in compared}  # type: ignore[union-attr]
        if len(compared) > 1 and (len(digests) > 1 or None in digests):
            for i in compared:
                by_path.setdefault(facts[i].place.path, []).append(i)
    for path, members in by_path.items():
        if path not in origins:
            continue
        source, origin = origins[path]
        read = _again(source, origin, limits)
        try:
            docs: dict[int | None, Any] = {}
            for i in members:
                place, fact = facts[i]
                if read is not None and place.record not in docs:
                    chunk = read.chunk(place.record)
                    docs[place.record] = _CHANGED if chunk is None else orjson.loads(chunk)
                doc = docs.get(place.record, _CHANGED)
                if doc is not _CHANGED:
                    value = _value_at(doc, place.pointer)
                    facts[i] = Located(place, fact._replace(digest=digest(value)))  # type: ignore[union-attr]
                elif fact.digest is None:  # type: ignore[union-attr]
                    unknown = f"changed:{place.path}:{place.record}:{place.pointer}".encode()
                    facts[i] = Located(place, fact._replace(digest=unknown))  # type: ignore[union-attr]
        finally:
            if read is not None:
                read.close()


__all__ = ["CHANGED_NOTE", "Block", "Origin", "Origins", "close", "origin_of", "origin_of_stamp",
           "place", "place_read", "read_again", "settle"]
