"""The bytes of one input → documents, with every input problem as a located :class:`Problem`.

Two stages, both cheap on good input:

- :func:`prepare` looks at the whole file once: a UTF-8 byte order mark (accepted, noted),
  UTF-16/UTF-32 text, an empty file.
- :func:`parse` turns one document's bytes into a value with orjson and explains a failure
  (the first bad UTF-8 byte, a trailing comma, a comment, NaN, nesting too deep, ...). After a
  successful parse, a cheap test on the bytes decides whether the precise scanner
  (:func:`quizkit.inputs.parsing.scan`) must look for what orjson accepts silently: duplicate keys
  (orjson keeps the last) and integers beyond 64 bits (orjson reads them as lossy floats).

The cheap test: orjson writes the parsed value back (indented by two spaces when the input
is indented, compact otherwise). When that is the input itself, give or take trailing
whitespace (the service's exports and the generator's corpus are exactly this), nothing was
dropped: one ``memcmp`` decides. Otherwise the written text has exactly as many ``:`` as the
input has, plus one per ``\\u003a`` escape, unless keys were dropped as duplicates; and a
float written back for an integer beyond 64 bits always has an ``e+`` exponent. Measured cost
and alternatives are in ``docs/limits.md`` and ``docs/performance.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from quizkit.catalog import input_rules
from quizkit.catalog.findings import json_text
from quizkit.catalog.rule import Rule
from quizkit.inputs.limits import PARSER_MAX_DEPTH
from quizkit.inputs.parsing import BOM, LineIndex, scan


@dataclass(slots=True)
class Problem:
    """An input problem with its position in the document's text (1-based)."""

    rule: Rule
    message: str
    line: int = 1
    column: int = 1
    pointer: str = ""


class _Unread:
    """The value of a document that could not be read (distinct from JSON ``null``)."""

    def __repr__(self) -> str:
        return "UNREAD"


UNREAD: Any = _Unread()


def _probe_writer_depth() -> int:
    """The deepest nesting ``orjson.dumps`` writes (254 in orjson 3.x); a document it wrote
    is proven to nest no deeper, for free."""
    low, high = 1, PARSER_MAX_DEPTH
    while low < high:
        mid = (low + high + 1) // 2
        value: list = []
        for _ in range(mid - 1):
            value = [value]
        try:
            orjson.dumps(value)
            low = mid
        except orjson.JSONEncodeError:
            high = mid - 1
    return low


WRITER_MAX_DEPTH = _probe_writer_depth()


# --- the whole file ------------------------------------------------------------------------

def _wide_encoding(head: bytes) -> str | None:
    """UTF-16 or UTF-32, from a byte order mark or the NUL pattern of ASCII JSON text."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if head.startswith(b"\xff\xfe"):
        return "UTF-16 (little-endian)"
    if head.startswith(b"\xfe\xff"):
        return "UTF-16 (big-endian)"
    if len(head) < 4 or b"\x00" not in head:
        return None
    nul = tuple(b == 0 for b in head)
    if nul == (True, True, True, False):
        return "UTF-32 (big-endian)"
    if nul == (False, True, True, True):
        return "UTF-32 (little-endian)"
    if nul[0] and nul[2]:
        return "UTF-16 (big-endian)"
    if nul[1] and nul[3]:
        return "UTF-16 (little-endian)"
    return None


def prepare(data: bytes) -> tuple[bytes | None, list[Problem]]:
    """The file's bytes ready to split and parse, or None when nothing in it can be read."""
    problems: list[Problem] = []
    if data.startswith(BOM):
        data = data[len(BOM):]
        problems.append(Problem(input_rules.BYTE_ORDER_MARK,
                                "UTF-8 byte order mark at the start (accepted; JSON text "
                                "should not have one)"))
    wide = _wide_encoding(data[:4])
    if wide is not None:
        problems.append(Problem(input_rules.BAD_ENCODING,
                                f"{wide} text; re-encode the file as UTF-8"))
        return None, problems
    if not data or data.isspace():
        what = "empty (0 bytes)" if not data else "only whitespace"
        problems.append(Problem(input_rules.EMPTY_INPUT, f"the file is {what}: no JSON document"))
        return None, problems
    return data, problems


# --- one document ---------------------------------------------------------------------------

def parse(chunk: bytes, max_depth: int = PARSER_MAX_DEPTH) -> tuple[Any, list[Problem]]:
    """The document in ``chunk`` (or :data:`UNREAD`) and its input problems."""
    doc, problems, _indented = parse_text(chunk, max_depth)
    return doc, problems


def value(chunk: bytes) -> tuple[Any, list[Problem]]:
    """As :func:`parse` without the write-back test, for commands that want a document's
    value and report no input warnings: the same value (or :data:`UNREAD` with the problem)
    at about half the cost."""
    if len(chunk) < PIECEWISE_AT:
        try:
            return orjson.loads(chunk), []
        except orjson.JSONDecodeError:
            pass  # parse explains it
    return parse(chunk)


def parse_text(chunk: bytes, max_depth: int = PARSER_MAX_DEPTH
               ) -> tuple[Any, list[Problem], bool]:
    """As :func:`parse`, and whether ``chunk`` is exactly what orjson writes indented by two
    spaces (give or take trailing whitespace): then every non-empty container closes on a
    line of its own, indented two spaces per level, which
    :class:`quizkit.inputs.positions.Positions` uses to skip containers without matching
    brackets."""
    pretty = chunk[1:2] == b"\n"  # written with indentation (by orjson? see _canonical)
    if len(chunk) >= PIECEWISE_AT and max_depth >= WRITER_MAX_DEPTH:
        try:
            doc, canonical, suspicious = _Pieces(chunk, pretty).parse()
        except _Whole:
            pass  # parsed whole below, which also explains any error
        else:
            if canonical:
                return doc, [], pretty
            return doc, _silent_problems(chunk) if suspicious else [], False
    try:
        doc = orjson.loads(chunk)
    except orjson.JSONDecodeError as exc:
        problem = diagnose(chunk, exc.msg, exc.pos)
        if problem.rule is input_rules.TOO_DEEP and max_depth < PARSER_MAX_DEPTH:
            problem = _too_deep(chunk, max_depth) or problem  # where our own limit is crossed
        return UNREAD, [problem], False
    written = _write(doc, pretty)
    # orjson wrote it back: it nests at most WRITER_MAX_DEPTH deep, and nothing more is needed.
    proven = written is not None and max_depth >= WRITER_MAX_DEPTH
    if max_depth < PARSER_MAX_DEPTH and not proven and _brackets(chunk) > max_depth \
            and _depth_exceeds(doc, max_depth):
        deep = _too_deep(chunk, max_depth)
        if deep is not None:
            return UNREAD, [deep], False
    if written is not None and _canonical(chunk, written):
        return doc, [], pretty
    if not _suspicious(chunk, written):
        return doc, [], False
    return doc, _silent_problems(chunk), False


#: Documents at least this large are parsed piece by piece (:class:`_Pieces`).
PIECEWISE_AT = 16 * 1024 * 1024
#: The most text handed to orjson at once while parsing piece by piece.
PIECE = 4 * 1024 * 1024
#: Containers nested deeper than this, each larger than a piece: parsed whole instead.
MAX_BIG_DEPTH = 64
_SPACE = b" \t\r\n"
_FIRST_WINDOW = 4096
_CONTINUATION = bytes(range(0x80, 0xC0))


class _Whole(Exception):
    """The text is not for piecewise parsing (invalid, odd, a duplicate key between pieces):
    parse it whole, as any other document."""


class _Pieces:
    """One large document parsed in pieces of at most :data:`PIECE` bytes, with the checks
    :func:`parse_text` makes on the whole text.

    ``orjson.loads`` holds its own parse of the whole text while it builds the Python values:
    about twice the file more at the peak, the largest cost of validating one big file. Here the
    containers larger than a piece (a package's ``versions``) are walked by hand and every value
    in them that fits a piece is parsed alone: its end is where orjson, given a piece of text
    from its start, finds "content after document". The result is the value ``orjson.loads``
    gives for the whole text.

    The write-back test runs per piece too: each piece is written by orjson inside as many
    lists as it has enclosing containers (so an indented writing is indented as in the whole
    document), and the text between pieces is compared with the writing of a skeleton (the
    walked containers, each piece replaced by ``0``). Both equal to the input: the whole text is
    orjson's writing. Otherwise the ``:`` counts are added up, as :func:`_suspicious` does.
    A piece too deep to write back, a duplicate key between pieces, invalid text: :class:`_Whole`.
    """

    def __init__(self, chunk: bytes, pretty: bool) -> None:
        self.chunk = chunk
        self.view = memoryview(chunk)
        self.option = orjson.OPT_INDENT_2 if pretty else 0
        self.pretty = pretty
        self.glue: list[bytes] = []  # the text between pieces, in order
        self.last = 0  # where the text not yet in glue or a piece starts
        self.canonical = True
        self.colons = 0  # in the pieces as written back
        self.big_float = False
        self.guess = _FIRST_WINDOW

    def parse(self) -> tuple[Any, bool, bool]:
        """(the document, canonical, suspicious)."""
        start = self._skip(0)
        if start >= len(self.chunk) or self.chunk[start] not in b"[{":
            raise _Whole
        doc, skeleton, end = self._container(start, 0)
        if self.chunk[end:].strip(_SPACE):
            raise _Whole  # text after the document
        self.glue.append(self.chunk[self.last:end])
        try:
            written = orjson.dumps(skeleton, option=self.option)
        except orjson.JSONEncodeError:
            raise _Whole from None
        if self.canonical and b"0".join(self.glue) != written:
            self.canonical = False
        if self.canonical:
            return doc, True, False
        written_colons = self.colons + written.count(b":")
        return doc, False, _input_colons(self.chunk) > written_colons or self.big_float

    def _skip(self, pos: int) -> int:
        chunk = self.chunk
        while pos < len(chunk) and chunk[pos] in _SPACE:
            pos += 1
        return pos

    def _container(self, pos: int, depth: int) -> tuple[Any, Any, int]:
        """The container opening at ``pos``, its skeleton, and the offset after it."""
        if depth > MAX_BIG_DEPTH:
            raise _Whole
        chunk = self.chunk
        is_object = chunk[pos] == ord("{")
        close = ord("}") if is_object else ord("]")
        value: Any = {} if is_object else []
        skeleton: Any = {} if is_object else []
        pos = self._skip(pos + 1)
        if pos < len(chunk) and chunk[pos] == close:
            return value, skeleton, pos + 1
        while True:
            if is_object:
                key, pos = self._key(pos)
                if key in value:
                    raise _Whole  # a duplicate key: the scan of the whole text reports it
                pos = self._skip(pos)
                if pos >= len(chunk) or chunk[pos] != ord(":"):
                    raise _Whole
                pos = self._skip(pos + 1)
                value[key], skeleton[key], pos = self._value(pos, depth + 1)
            else:
                item, shape, pos = self._value(pos, depth + 1)
                value.append(item)
                skeleton.append(shape)
            pos = self._skip(pos)
            if pos >= len(chunk):
                raise _Whole
            if chunk[pos] == close:
                return value, skeleton, pos + 1
            if chunk[pos] != ord(","):
                raise _Whole
            pos = self._skip(pos + 1)

    def _extent(self, pos: int) -> tuple[Any, int] | None:
        """The value at ``pos`` and the offset after it, or None when it is larger than a
        piece (or not valid JSON: the whole parse will say)."""
        # orjson checks all the text it is given (UTF-8) before parsing: the window starts at
        # twice the last piece's size and grows until the value fits.
        size = self.guess
        while True:
            window = min(len(self.chunk), pos + size)
            while window < len(self.chunk) and 0x80 <= self.chunk[window] < 0xC0:
                window -= 1  # never inside a UTF-8 character
            try:
                value = orjson.loads(self.view[pos:window])
            except orjson.JSONDecodeError as exc:
                if exc.msg == "unexpected content after document":
                    end = self._byte_offset(pos, exc.pos)
                    break
                if window == len(self.chunk) or size >= PIECE:
                    return None
            else:
                if window == len(self.chunk):
                    return value, window
                # a number, or a name, may go on past the window
            size = min(PIECE, size * 4)
        while self.chunk[end - 1] in _SPACE:
            end -= 1
        self.guess = max(_FIRST_WINDOW, 2 * (end - pos))
        return orjson.loads(self.view[pos:end]), end

    def _byte_offset(self, start: int, chars: int) -> int:
        """The offset of the character number ``chars`` after ``start`` (orjson counts
        characters; the text is UTF-8)."""
        end = start + chars
        while True:
            part = self.chunk[start:end]
            extra = len(part) - len(part.translate(None, _CONTINUATION))
            if start + chars + extra == end:
                return end
            end = start + chars + extra

    def _key(self, pos: int) -> tuple[str, int]:
        if pos >= len(self.chunk) or self.chunk[pos] != ord('"'):
            raise _Whole
        found = self._extent(pos)
        if found is None or type(found[0]) is not str:
            raise _Whole
        return found

    def _value(self, pos: int, depth: int) -> tuple[Any, Any, int]:
        """A member's value at ``pos``: (value, its skeleton, the offset after it)."""
        if pos >= len(self.chunk):
            raise _Whole
        found = self._extent(pos)
        if found is None:
            if self.chunk[pos] not in b"[{":
                raise _Whole  # a string or number larger than a piece, or invalid text
            return self._container(pos, depth)
        value, end = found
        self._piece(value, pos, end, depth)
        return value, 0, end

    def _piece(self, value: Any, pos: int, end: int, depth: int) -> None:
        """Write the piece back inside ``depth`` lists and compare it with its text."""
        self.glue.append(self.chunk[self.last:pos])
        self.last = end
        wrapped = value
        for _ in range(depth):
            wrapped = [wrapped]
        try:
            written = orjson.dumps(wrapped, option=self.option)
        except orjson.JSONEncodeError:
            raise _Whole from None  # too deep to write: the whole parse checks the depth
        if self.pretty:
            before = sum(2 * k + 2 for k in range(1, depth + 1))  # "[\n" and the indent
            after = sum(2 * k + 2 for k in range(depth))  # "\n", the indent and "]"
        else:
            before = after = depth
        inner = memoryview(written)[before:len(written) - after]
        self.colons += written.count(b":")
        if not self.big_float and b"e+" in written:
            self.big_float = True
        if self.canonical and (len(inner) != end - pos or inner != self.view[pos:end]):
            self.canonical = False


def _brackets(chunk: bytes) -> int:
    """An upper bound of the nesting depth (brackets in strings count too)."""
    return chunk.count(b"[") + chunk.count(b"{")


def _depth_exceeds(doc: Any, limit: int) -> bool:
    """Whether containers nest deeper than ``limit`` (iterative; stops at the first)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        children = value.values() if type(value) is dict else value
        stack.extend((v, depth + 1) for v in children if type(v) in (dict, list))
    return False


def _too_deep(chunk: bytes, limit: int) -> Problem | None:
    text = chunk.decode("utf-8", errors="replace")
    for token in scan(text, max_depth=limit):
        if token.what == "deep":
            line, column = LineIndex(text).position(token.offset)
            # No pointer: it would be hundreds of "/0" long; the position says where.
            return Problem(input_rules.TOO_DEEP,
                           f"nested deeper than {limit} levels (--max-depth); the document "
                           "was not checked", line, column)
    return None


def _write(doc: Any, pretty: bool = False) -> bytes | None:
    """The document written back by orjson (indented by two spaces when ``pretty``), or None
    when it nests deeper than orjson writes."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2) if pretty else orjson.dumps(doc)
    except orjson.JSONEncodeError:
        return None


def _canonical(chunk: bytes, written: bytes) -> bool:
    """True when ``chunk`` is exactly what orjson writes for the document it holds (compact,
    or indented by two spaces like the service's exports), give or take trailing whitespace.

    Such a text holds no duplicate key (the written text has each key of an object once, and
    two equal keys would be written alike) and no integer beyond 64 bits (it would be written
    back as a float): nothing was dropped. One ``memcmp``, no counting.
    """
    n = len(written)
    if len(chunk) < n or not chunk.startswith(written):
        return False
    return len(chunk) == n or chunk[n:].isspace()


def _suspicious(chunk: bytes, written: bytes | None) -> bool:
    """True when the document may hold a duplicate key or an integer beyond 64 bits.

    ``written`` is orjson's writing of the document, compact or indented: either has one
    ``:`` per key (the indented form writes ``": "``) and the strings' own.
    """
    if written is None:  # too deep to write back: only the scan can tell
        return True
    if len(written) == len(chunk) and written == chunk:
        return False  # canonical compact text (typical of services): nothing was dropped
    return _input_colons(chunk) > written.count(b":") or (b"+" in written and b"e+" in written)


def _input_colons(chunk: bytes) -> int:
    """The ``:`` of the input text, escaped ones (``\\u003a``) included: at least one per key."""
    # Single-byte searches first: memchr is several times faster than a substring search.
    colons = chunk.count(b":")
    if b"\\" in chunk and b"\\u003" in chunk:
        colons += chunk.count(b"\\u003a") + chunk.count(b"\\u003A")
    return colons


def _silent_problems(chunk: bytes) -> list[Problem]:
    text = chunk.decode("utf-8")
    index = LineIndex(text)
    problems = []
    for token in scan(text):
        line, column = index.position(token.offset)
        if token.what == "duplicate":
            first_line, first_column = index.position(token.first)
            problems.append(Problem(
                input_rules.DUPLICATE_KEY,
                f"duplicate key {json_text(token.text)} (first at line {first_line}, column "
                f"{first_column}); only the last value is read and checked",
                line, column, token.pointer))
        elif token.what == "integer":
            shown = token.text if len(token.text) <= 40 else token.text[:37] + "..."
            problems.append(Problem(
                input_rules.INTEGER_OUT_OF_RANGE,
                f"integer {shown} is beyond the 64-bit range; it is read as an approximate "
                "float", line, column, token.pointer))
    return problems


# --- explaining a parse error ---------------------------------------------------------------

def diagnose(chunk: bytes, message: str, pos: int) -> Problem:
    """A clear, located problem for a document orjson refused."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as err:
        return _bad_utf8(chunk, err.start)
    pos = max(0, min(pos, len(text)))
    index = LineIndex(text)
    lowered = message.lower()
    if "depth" in lowered or "recursion" in lowered:
        line, column = index.position(pos)
        return Problem(input_rules.TOO_DEEP, f"nested deeper than {PARSER_MAX_DEPTH} levels, "
                       "the most the parser reads; the document was not checked", line, column)
    explained = _explain(text, pos, lowered, index)
    if explained is None:
        explained = (message.split(": line ", 1)[0] or "not valid JSON", pos)
    what, at = explained
    line, column = index.position(at)
    return Problem(input_rules.INVALID_JSON, f"invalid JSON: {what}", line, column)


def _bad_utf8(chunk: bytes, start: int) -> Problem:
    line = chunk.count(b"\n", 0, start) + 1
    line_start = chunk.rfind(b"\n", 0, start) + 1
    column = len(chunk[line_start:start].decode("utf-8", errors="replace")) + 1
    return Problem(input_rules.BAD_ENCODING,
                   f"not valid UTF-8: byte 0x{chunk[start]:02x} at byte offset {start}",
                   line, column)


def _prev_solid(text: str, i: int) -> int:
    """The offset of the last non-whitespace character before ``i`` (or -1)."""
    i -= 1
    while i >= 0 and text[i] in " \t\r\n":
        i -= 1
    return i


def _next_solid(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in " \t\r\n":
        i += 1
    return i


_WORDS = ("NaN", "-NaN", "Infinity", "-Infinity", "+Infinity")


def _explain(text: str, pos: int, message: str, index: LineIndex) -> tuple[str, int] | None:
    """(what went wrong, where) for the usual mistakes, or None to keep orjson's words."""
    # A trailing comma: orjson points at the comma (3.10+) or past the bracket (older).
    comma = pos if text[pos : pos + 1] == "," else None
    if comma is None:
        close = _prev_solid(text, pos + 1) if text[pos : pos + 1] in ("}", "]") else pos - 1
        if 0 <= close < len(text) and text[close] in "}]":
            before = _prev_solid(text, close)
            comma = before if before >= 0 and text[before] == "," else None
    if comma is not None:
        close = _next_solid(text, comma + 1)
        if text[close : close + 1] in ("}", "]"):
            line, column = index.position(comma)
            return (f'trailing comma before "{text[close]}" (remove the comma at line {line}, '
                    f"column {column})", close)
    here = _next_solid(text, pos)
    if text[here - 1 : here] in ("-", "+") and text.startswith(("NaN", "Infinity"), here):
        here -= 1  # orjson points after the sign
    if text.startswith(("//", "/*"), here):
        return "comments are not allowed in JSON", here
    for word in _WORDS:
        if text.startswith(word, here):
            return f"{word} is not a JSON number (use null, or a string)", here
    if "infinity" in message:
        return "number too large (it overflows to infinity)", pos
    if here >= len(text) or "end of data" in message or "allocate" in message:
        return "the text ends before the document does (truncated?)", len(text)
    if "after document" in message:
        return "more text after the end of the JSON document", pos
    return None


def too_deep_to_check() -> Problem:
    """For a document that a check could not finish (it ran out of stack)."""
    return Problem(input_rules.TOO_DEEP, "nested too deeply for the checks to finish; lower "
                   "--max-depth (the default keeps this from happening)")


__all__ = ["UNREAD", "WRITER_MAX_DEPTH", "Problem", "diagnose", "parse",
           "parse_text", "prepare", "too_deep_to_check"]

