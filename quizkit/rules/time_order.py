"""Time order within one record: nothing is updated, deleted, completed or stopped before it
was created. Timestamps the schema reports as malformed are skipped (see ``walk.parse_time``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from quizkit.catalog.findings import Severity, json_text
from quizkit.catalog.rule import rule
from quizkit.model.entities import VERSION_KINDS
from quizkit.rules.checks import Emit, check
from quizkit.rules.navigate import (
    DocumentFacts,
    as_dict,
    as_list,
    as_str,
    parse_time,
)

#: The kinds whose records carry timestamps.
TIMED = (*VERSION_KINDS, "banner")

GROUP = "time"


#: Records outside versions, per kind: (path to the record, its pointer, its state
#: timestamps).
_RECORDS: dict[str, tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]] = {
    kind: tuple((path, "".join(f"/{k}" for k in path), states) for path, states in records)
    for kind, records in {
        "package-full": (((), ("deletedAt",)), (("user",), ())),
        "banner": (((), ()),),
        "game": (((), ("completedAt", "stoppedAt")), (("pkg",), ("deletedAt",))),
    }.items()
}


def _records(d: DocumentFacts) -> Iterator[tuple[dict, str, tuple[str, ...], str]]:
    """(record, pointer, state keys, createdAt) of every record of the document whose
    ``createdAt`` is a string: the document's own, its versions and their ``changes``."""
    found: list[tuple[Any, str, tuple[str, ...]]] = []
    for path, pointer, states in _RECORDS.get(d.kind, ()):
        record = d.doc
        for key in path:
            record = as_dict(record, key)
        found.append((record, pointer, states))
    for v in d.versions:
        found.append((v.version, v.base, _VERSION_STATES))
        changes = v.version.get("changes")
        if type(changes) is dict:
            found.append((changes, f"{v.base}/changes", _VERSION_STATES))
    for record, base, states in found:
        if type(record) is dict:
            created = record.get("createdAt")
            if type(created) is str:
                yield record, base, states, created


_VERSION_STATES = ("deletedAt",)


def _before(value: Any, created: str, proven: bool) -> bool:
    """Whether ``value`` is a date-time earlier than ``created`` (both read by
    :func:`parse_time`; False when either is not a date-time).

    The fast path, for a document that passed its proving schema (so both match the schema's
    date-time pattern): two date-times of one length, both in UTC with the same zone letter
    and the same separator, have their digits at the same places, so when ``value`` is not
    earlier as text it is not earlier as a time (or, a leap second, not read at all).
    """
    if proven and type(value) is str and len(value) == len(created) and \
            value[-1] == created[-1] and value[-1] in "Zz" and value[10:11] == created[10:11] \
            and value >= created:
        return False
    later = parse_time(value)
    if later is None:
        return False
    first = parse_time(created)
    return first is not None and later < first


UPDATED_BEFORE_CREATED = rule(
    "T001", "updated-before-created", Severity.ERROR,
    "A record's `updatedAt` is earlier than its `createdAt`.",
    "A record cannot be updated before it exists. Checked on packages, versions, package "
    "changes, author records and banners. Offsets are taken into account.",
    bad='{"createdAt": "2026-03-02T10:00:00Z", "updatedAt": "2026-03-01T09:00:00Z"}',
    good='{"createdAt": "2026-03-01T09:00:00Z", "updatedAt": "2026-03-02T10:00:00Z"}',
    group=GROUP,
)


@check(UPDATED_BEFORE_CREATED, *TIMED)
def updated_before_created(d: DocumentFacts, emit: Emit) -> None:
    for record, base, _states, created in _records(d):
        if _before(record.get("updatedAt"), created, d.proven):
            emit(UPDATED_BEFORE_CREATED, f"{base}/updatedAt",
                 f"updatedAt {json_text(record['updatedAt'])} is before createdAt "
                 f"{json_text(record['createdAt'])}")


STATE_BEFORE_CREATED = rule(
    "T002", "state-before-created", Severity.ERROR,
    "A `deletedAt`, `completedAt` or `stoppedAt` earlier than the record's `createdAt`.",
    "A package or version cannot be deleted, and a game cannot be completed or stopped, before "
    "it was created. A null state indicator (the state does not hold) is fine.",
    bad='{"createdAt": "2026-03-02T10:00:00Z", "completedAt": "2026-03-01T10:00:00Z", ...}',
    good='{"createdAt": "2026-03-02T10:00:00Z", "completedAt": "2026-03-02T11:30:00Z", ...}',
    group=GROUP,
)


@check(STATE_BEFORE_CREATED, *TIMED)
def state_before_created(d: DocumentFacts, emit: Emit) -> None:
    for record, base, states, created in _records(d):
        for key in states:
            value = record.get(key)
            if value is not None and _before(value, created, d.proven):
                emit(STATE_BEFORE_CREATED, f"{base}/{key}",
                     f"{key} {json_text(value)} is before createdAt "
                     f"{json_text(record['createdAt'])}")


HISTORY_BEFORE_GAME = rule(
    "T003", "history-before-game", Severity.ERROR,
    "A game history entry is earlier than the game's creation.",
    "Each `history` entry records a run of the game, which cannot predate the game itself.",
    bad='{"createdAt": "2026-03-02T10:00:00Z", "history": [{"createdAt": '
        '"2026-02-27T18:00:00Z", ...}], ...}',
    good='{"createdAt": "2026-03-02T10:00:00Z", "history": [{"createdAt": '
         '"2026-03-02T10:40:00Z", ...}], ...}',
    group=GROUP,
)


@check(HISTORY_BEFORE_GAME, "game")
def history_before_game(d: DocumentFacts, emit: Emit) -> None:
    created = parse_time(d.doc.get("createdAt")) if type(d.doc) is dict else None
    if created is None:
        return
    for i, entry in enumerate(as_list(d.doc, "history")):
        t = parse_time(entry.get("createdAt")) if type(entry) is dict else None
        if t is not None and t < created:
            emit(HISTORY_BEFORE_GAME, f"/history/{i}/createdAt",
                 f"history entry createdAt {json_text(entry['createdAt'])} is before the "
                 f"game's createdAt {json_text(d.doc['createdAt'])}")


COMPLETED_AND_STOPPED = rule(
    "T004", "completed-and-stopped", Severity.WARNING,
    "A game is both completed and stopped.",
    "`completedAt` says the game ran to its end, `stoppedAt` that it was stopped early. Both set "
    "is contradictory, though a service might record a stop after completion.",
    bad='{"completedAt": "2026-03-02T11:30:00Z", "stoppedAt": "2026-03-02T11:31:00Z", ...}',
    good='{"completedAt": "2026-03-02T11:30:00Z", "stoppedAt": null, ...}',
    group=GROUP,
)


@check(COMPLETED_AND_STOPPED, "game")
def completed_and_stopped(d: DocumentFacts, emit: Emit) -> None:
    if as_str(d.doc, "completedAt") is not None and as_str(d.doc, "stoppedAt") is not None:
        emit(COMPLETED_AND_STOPPED, "/stoppedAt",
             "the game has both completedAt and stoppedAt set")
