"""A file's outcome (:class:`quizkit.engine.FileOutcome`) as plain JSON values, and back.

Entries are data, never code: nothing is unpickled, every value read back is checked for its
type, and anything unexpected makes the whole entry unusable (:class:`BadEntry`), so a
corrupt or foreign entry is a cache miss, never a wrong report or a crash. Every finding
and fact of an outcome is in the outcome's own file, so its path is written once.
"""

from __future__ import annotations

import dataclasses
import typing
from collections import Counter
from collections.abc import Callable
from typing import Any

from quizkit.catalog.findings import FileResult, Finding, Severity, Snippet
from quizkit.reporters.service_blocks import VersionOutline
from quizkit.rules.facts import Fact, Located, Place


class BadEntry(Exception):
    """An entry that is not one this version of quizkit wrote (or an outcome it cannot
    write)."""


def _bad() -> typing.NoReturn:
    raise BadEntry


# --- fields of facts, by their annotation --------------------------------------------------

def _str(v: Any) -> str:
    return v if type(v) is str else _bad()


def _opt_str(v: Any) -> str | None:
    return v if v is None or type(v) is str else _bad()


def _bool(v: Any) -> bool:
    return v if type(v) is bool else _bad()


def _number(v: Any) -> int | float:
    return v if type(v) is int or type(v) is float else _bad()


def _bytes(v: Any) -> bytes:
    if type(v) is not str:
        _bad()
    try:
        return bytes.fromhex(v)
    except ValueError:
        _bad()


def _opt_bytes(v: Any) -> bytes | None:
    return None if v is None else _bytes(v)


def _strs(v: Any) -> tuple[str, ...]:
    if type(v) is not list or not all(type(x) is str for x in v):
        _bad()
    return tuple(v)


def _hex(v: Any) -> Any:
    return v.hex() if type(v) is bytes else v


def _list_out(v: Any) -> Any:
    return list(v)


def _same(v: Any) -> Any:
    return v


#: annotation → (how a value is written, how it is read back and checked).
FIELDS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "str": (_same, _str), "str | None": (_same, _opt_str), "bool": (_same, _bool),
    "int | float": (_same, _number), "bytes": (_hex, _bytes), "bytes | None": (_hex, _opt_bytes),
    "tuple[str, ...]": (_list_out, _strs),
}


def _fields(cls: type) -> tuple[tuple[Callable[[Any], Any], Callable[[Any], Any]], ...] | None:
    """How each field of a fact type is written and read (``None``: a field of a type this
    module does not know; such facts are not cached)."""
    found = []
    for annotation in cls.__annotations__.values():
        name = getattr(annotation, "__forward_arg__", annotation)
        if name not in FIELDS:
            return None
        found.append(FIELDS[name])
    return tuple(found)


#: Every fact type, by name, with its fields' codecs.
FACTS = {cls.__name__: (cls, _fields(cls)) for cls in typing.get_args(Fact)}


#: The fields this module writes, per type. When a type gains or loses one, no outcome is
#: written (each input is checked every time) rather than one written short of a field;
#: ``tests/test_cache.py`` notices (its warm runs expect every file from the cache).
SHAPES: dict[type, tuple[str, ...]] = {
    FileResult: ("path", "kind", "documents", "size", "readable", "kinds"),
    Finding: ("path", "pointer", "rule", "severity", "message", "record", "line", "column",
              "code", "snippet"),
    Place: ("path", "record", "pointer", "line", "column", "snippet"),
    Snippet: ("first", "lines", "line", "start", "end", "cut"),
    VersionOutline: ("versions", "targets"),
}
OUTCOME_FIELDS = ("result", "findings", "facts", "outlines", "stamp")


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


#: Whether every type is as this module knows it.
WRITABLE = all(_names(cls) == names for cls, names in SHAPES.items())


# --- writing ------------------------------------------------------------------------------

def _snippet(s: Snippet | None) -> list | None:
    if s is None:
        return None
    return [s.first, list(s.lines), s.line, s.start, s.end, s.cut]


def _fact(located: Located, path: str) -> list:
    p, fact = located
    name = type(fact).__name__
    known = FACTS.get(name)
    if p.path != path or known is None or known[0] is not type(fact) or known[1] is None:
        _bad()
    return [p.pointer, p.record, p.line, p.column, _snippet(p.snippet), name,
            *(write(v) for (write, _), v in zip(known[1], fact, strict=True))]


def encode(outcome: Any) -> dict:
    """The outcome as JSON values (orjson writes them). Raises :class:`BadEntry` for an
    outcome it cannot write (a fact of a type it does not know)."""
    if not WRITABLE or _names(type(outcome)) != OUTCOME_FIELDS:
        _bad()
    r = outcome.result
    path = r.path
    if any(f.path != path for f in outcome.findings):
        _bad()
    return {
        "result": [path, r.kind, r.documents, r.size, r.readable, dict(r.kinds)],
        "findings": [[f.pointer, f.rule, int(f.severity), f.message, f.record, f.line,
                      f.column, f.code, _snippet(f.snippet)] for f in outcome.findings],
        "facts": [_fact(located, path) for located in outcome.facts],
        "outlines": [[p, record, [list(v) for v in o.versions],
                      {k: [list(t) for t in ts] for k, ts in o.targets.items()}]
                     for p, record, o in outcome.outlines],
    }


# --- reading ------------------------------------------------------------------------------

def _opt_int(v: Any) -> int | None:
    return v if v is None or type(v) is int else _bad()


def _read_snippet(v: Any) -> Snippet | None:
    if v is None:
        return None
    first, lines, line, start, end, cut = v
    if not all(type(x) is int for x in (first, line, start, end, cut)):
        _bad()
    return Snippet(first, _strs(lines), line, start, end, cut)


def _read_result(v: Any) -> FileResult:
    path, kind, documents, size, readable, kinds = v
    if (type(path) is not str or type(documents) is not int or type(size) is not int
            or type(readable) is not bool or type(kinds) is not dict
            or not all(type(n) is int for n in kinds.values())):
        _bad()
    return FileResult(path, _opt_str(kind), documents, size, readable, Counter(kinds))


def _read_finding(v: Any, path: str) -> Finding:
    pointer, rule, severity, message, record, line, column, code, snippet = v
    if (type(pointer) is not str or type(rule) is not str or type(message) is not str
            or type(code) is not str or type(severity) is not int):
        _bad()
    return Finding(path, pointer, rule, Severity(severity), message, _opt_int(record),
                   _opt_int(line), _opt_int(column), code, _read_snippet(snippet))


def _read_fact(v: Any, path: str) -> Located:
    pointer, record, line, column, snippet, name, *values = v
    cls, fields = FACTS[name]
    if (fields is None or len(values) != len(fields) or type(pointer) is not str
            or not (record is None or type(record) is int)
            or not (line is None or type(line) is int)
            or not (column is None or type(column) is int)):
        _bad()
    fact = cls._make([field[1](x) for field, x in zip(fields, values, strict=True)])
    place = Place(path, record, pointer, line, column,
                  None if snippet is None else _read_snippet(snippet))
    return Located(place, fact)


def _read_outline(v: Any) -> tuple[str, int | None, VersionOutline]:
    path, record, versions, targets = v
    if type(targets) is not dict:
        _bad()
    pairs = tuple((_opt_str(p), _opt_str(i)) for p, i in versions)
    where = {}
    for key, ts in targets.items():
        found = []
        for i, entity, eid in ts:
            if type(i) is not int or type(entity) is not str:
                _bad()
            found.append((i, entity, eid))
        where[key] = tuple(found)
    return _str(path), _opt_int(record), VersionOutline(pairs, where)


def decode(data: Any, outcome_type: type) -> Any:
    """The outcome :func:`encode` wrote (``outcome_type``: the engine's ``FileOutcome``).
    Raises :class:`BadEntry`."""
    try:
        result = _read_result(data["result"])
        path = result.path
        return outcome_type(result, [_read_finding(f, path) for f in data["findings"]],
                            [_read_fact(f, path) for f in data["facts"]],
                            [_read_outline(o) for o in data["outlines"]])
    except (KeyError, IndexError, ValueError, TypeError):
        # A missing member, a list of another length, an unknown fact or severity, a value
        # of the wrong type where one is iterated or hashed.
        raise BadEntry from None
