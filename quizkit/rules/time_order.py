"""Time order within one record: nothing is updated, deleted, completed or stopped before it
was created. Timestamps the schema reports as malformed are skipped (see ``walk.parse_time``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
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


#: Records outside versions, per kind: (path to the record, its state timestamps).
_RECORDS: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "package-full": (((), ("deletedAt",)), (("user",), ())),
    "banner": (((), ()),),
    "game": (((), ("completedAt", "stoppedAt")), (("pkg",), ("deletedAt",))),
}


def _records(d: DocumentFacts) -> Iterator[tuple[dict, str, tuple[str, ...], datetime]]:
    """(record, pointer, state keys, createdAt) of every record of the document with a
    readable ``createdAt``: the document's own, its versions and their ``changes``."""
    found: list[tuple[Any, str, tuple[str, ...]]] = []
    for path, states in _RECORDS.get(d.kind, ()):
        record = d.doc
        for key in path:
            record = as_dict(record, key)
        found.append((record, "".join(f"/{k}" for k in path), states))
    for v in d.versions:
        found.append((v.version, v.base, ("deletedAt",)))
        found.append((v.version.get("changes"), f"{v.base}/changes", ("deletedAt",)))
    for record, base, states in found:
        if type(record) is dict:
            created = parse_time(record.get("createdAt"))
            if created is not None:
                yield record, base, states, created


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
        updated = parse_time(record.get("updatedAt"))
        if updated is not None and updated < created:
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
            t = parse_time(value) if value is not None else None
            if t is not None and t < created:
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
