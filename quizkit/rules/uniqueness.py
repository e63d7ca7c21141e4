"""Uniqueness within one document: ids within their collection, positions among siblings."""

from __future__ import annotations

from typing import Any

from quizkit.findings import Severity
from quizkit.rules.catalog import rule
from quizkit.rules.checks import Emit, doc_check, version_check
from quizkit.rules.walk import VersionFacts, as_dict, as_list

GROUP = "uniqueness"

DUPLICATE_ID = rule(
    "U001", "duplicate-id", Severity.ERROR,
    "Two items of one collection share an id.",
    "Ids are unique within their collection: the versions of a package or list, the rounds, "
    "themes, questions and steps of a version, the categories of a package (`categoryId`) and "
    "the history of a game. A second item with the same id makes references ambiguous.",
    bad='{"rounds": [{"id": "r1", ...}, {"id": "r1", ...}]}',
    good='{"rounds": [{"id": "r1", ...}, {"id": "r2", ...}]}',
    group=GROUP,
)
DUPLICATE_POSITION = rule(
    "U002", "duplicate-position", Severity.ERROR,
    "Two siblings share a position.",
    "Positions order siblings: the rounds of a version, the themes of a round, the questions of "
    "a theme, the steps of a question. Two siblings at the same position have no defined order.",
    bad='{"questions": [{"id": "q1", "themeId": "t1", "position": 0, ...}, '
        '{"id": "q2", "themeId": "t1", "position": 0, ...}]}',
    good='{"questions": [{"id": "q1", "themeId": "t1", "position": 0, ...}, '
         '{"id": "q2", "themeId": "t1", "position": 1, ...}]}',
    group=GROUP,
)
POSITION_GAP = rule(
    "U003", "position-gap", Severity.WARNING,
    "Sibling positions are not contiguous (0..n-1 or 1..n).",
    "Siblings are expected at positions 0..n-1 or 1..n. A gap often means an item was deleted "
    "without renumbering, or lost on export. The finding points at the first sibling (in "
    "document order) outside the expected range.",
    bad='{"rounds": [{"position": 0, ...}, {"position": 1, ...}, {"position": 3, ...}]}',
    good='{"rounds": [{"position": 0, ...}, {"position": 1, ...}, {"position": 2, ...}]}',
    group=GROUP,
)


def unique_ids(items: list, base: str, key: str, what: str, emit: Emit) -> None:
    """Report every item of ``items`` whose ``key`` repeats an earlier item's."""
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if type(item) is dict:
            x = item.get(key)
            if type(x) is str:
                first = seen.setdefault(x, i)
                if first != i:
                    emit(DUPLICATE_ID, f"{base}/{i}/{key}",
                         f"{what} {key} {x!r} is also used by {base}/{first}")


def _positions(items: list, parent_key: str | None, base: str, what: str,
               emit: Emit) -> None:
    """Duplicate and non-contiguous positions among siblings (grouped by ``parent_key``)."""
    groups: dict[Any, list[tuple[int | float, int]]] = {}
    for i, item in enumerate(items):
        if type(item) is not dict:
            continue
        p = item.get("position")
        tp = type(p)
        if tp is not int and tp is not float:
            continue
        parent = item.get(parent_key) if parent_key else None
        if parent_key and type(parent) is not str:
            continue
        group = groups.get(parent)
        if group is None:
            groups[parent] = [(p, i)]
        else:
            group.append((p, i))
    for parent, entries in groups.items():
        _one_group(entries, parent_key, parent, base, what, emit)


def _one_group(entries: list[tuple[int | float, int]], parent_key: str | None, parent: Any,
               base: str, what: str, emit: Emit) -> None:
    seen: dict[int | float, int] = {}
    dup = False
    integral = True
    for p, i in entries:
        first = seen.setdefault(p, i)
        if first != i:
            dup = True
            emit(DUPLICATE_POSITION, f"{base}/{i}/position",
                 f"{what} position {p} is also used by {base}/{first}{_scope(parent_key, parent)}")
        elif type(p) is float and not p.is_integer():
            integral = False
    if dup:
        return
    n = len(entries)
    lo = min(seen)
    hi = max(seen)
    start = 0 if lo < 1 else 1
    if integral and lo == start and hi == start + n - 1:
        return
    for p, i in entries:
        if not (start <= p <= start + n - 1) or (type(p) is float and not p.is_integer()):
            shown = ", ".join(_num(q) for q in sorted(seen)[:8]) + (", …" if n > 8 else "")
            emit(POSITION_GAP, f"{base}/{i}/position",
                 f"{what} positions {shown}{_scope(parent_key, parent)} are not contiguous "
                 f"(expected {start}..{start + n - 1})")
            return


def _num(v: int | float) -> str:
    return str(int(v)) if type(v) is float and v.is_integer() else str(v)


def _scope(parent_key: str | None, parent: Any) -> str:
    return f" (among siblings with {parent_key} {parent!r})" if parent_key else ""


_PARENT = {"rounds": None, "themes": "roundId", "questions": "themeId", "steps": "questionId"}
_WHAT = {"rounds": "round", "themes": "theme", "questions": "question", "steps": "step"}


@version_check("package-full", "version-list", "version", "game")
def entity_uniqueness(v: VersionFacts, emit: Emit) -> None:
    base, version, view = v.base, v.version, v.view
    ix = v.index
    for collection, parent_key in _PARENT.items():
        items = as_list(version, collection)
        if not items:
            continue
        where = f"{base}/{collection}"
        col = ix.get(collection)
        if col is None or not col.unique_ids:
            unique_ids(items, where, "id", _WHAT[collection], emit)
        if view == "game":  # the game view carries no positions
            continue
        if col is not None and (parent_key is None or col.parents is not None) and \
                col.positions_clean():
            continue
        _positions(items, parent_key, where, _WHAT[collection], emit)


@doc_check("package-full")
def package_uniqueness(doc: Any, emit: Emit) -> None:
    unique_ids(as_list(doc, "versions"), "/versions", "id", "version", emit)
    unique_ids(as_list(doc, "categories"), "/categories", "categoryId", "category", emit)


@doc_check("version-list")
def list_uniqueness(doc: Any, emit: Emit) -> None:
    if type(doc) is list:
        unique_ids(doc, "", "id", "version", emit)


@doc_check("game")
def game_uniqueness(doc: Any, emit: Emit) -> None:
    unique_ids(as_list(as_dict(doc, "pkg"), "versions"), "/pkg/versions", "id", "version", emit)
    unique_ids(as_list(doc, "history"), "/history", "id", "history entry", emit)
