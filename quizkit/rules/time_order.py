"""Time order within one record: nothing is updated, deleted, completed or stopped before it
was created. Timestamps the schema reports as malformed are skipped (see ``walk.parse_time``).
"""

from __future__ import annotations

from typing import Any

from quizkit.findings import Severity
from quizkit.rules.catalog import rule
from quizkit.rules.checks import Emit, doc_check, version_check
from quizkit.rules.walk import VersionFacts, as_dict, as_list, parse_time

GROUP = "time"

UPDATED_BEFORE_CREATED = rule(
    "T001", "updated-before-created", Severity.ERROR,
    "A record's `updatedAt` is earlier than its `createdAt`.",
    "A record cannot be updated before it exists. Checked on packages, versions, package "
    "changes, author records and banners. Offsets are taken into account.",
    bad='{"createdAt": "2026-03-02T10:00:00Z", "updatedAt": "2026-03-01T09:00:00Z"}',
    good='{"createdAt": "2026-03-01T09:00:00Z", "updatedAt": "2026-03-02T10:00:00Z"}',
    group=GROUP,
)
STATE_BEFORE_CREATED = rule(
    "T002", "state-before-created", Severity.ERROR,
    "A `deletedAt`, `completedAt` or `stoppedAt` earlier than the record's `createdAt`.",
    "A package or version cannot be deleted, and a game cannot be completed or stopped, before "
    "it was created. A null state indicator (the state does not hold) is fine.",
    bad='{"createdAt": "2026-03-02T10:00:00Z", "completedAt": "2026-03-01T10:00:00Z", ...}',
    good='{"createdAt": "2026-03-02T10:00:00Z", "completedAt": "2026-03-02T11:30:00Z", ...}',
    group=GROUP,
)
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
COMPLETED_AND_STOPPED = rule(
    "T004", "completed-and-stopped", Severity.WARNING,
    "A game is both completed and stopped.",
    "`completedAt` says the game ran to its end, `stoppedAt` that it was stopped early. Both set "
    "is contradictory, though a service might record a stop after completion.",
    bad='{"completedAt": "2026-03-02T11:30:00Z", "stoppedAt": "2026-03-02T11:31:00Z", ...}',
    good='{"completedAt": "2026-03-02T11:30:00Z", "stoppedAt": null, ...}',
    group=GROUP,
)


def record_times(record: Any, base: str, emit: Emit, states: tuple[str, ...] = ("deletedAt",),
                 ) -> None:
    """createdAt ≤ updatedAt, and createdAt ≤ each state timestamp of ``record``."""
    if type(record) is not dict:
        return
    created = parse_time(record.get("createdAt"))
    if created is None:
        return
    updated = parse_time(record.get("updatedAt"))
    if updated is not None and updated < created:
        emit(UPDATED_BEFORE_CREATED, f"{base}/updatedAt",
             f"updatedAt {record['updatedAt']} is before createdAt {record['createdAt']}")
    for key in states:
        value = record.get(key)
        if value is None:
            continue
        t = parse_time(value)
        if t is not None and t < created:
            emit(STATE_BEFORE_CREATED, f"{base}/{key}",
                 f"{key} {value} is before createdAt {record['createdAt']}")


@version_check("package-full", "version-list", "version", "version-created", "game")
def version_times(v: VersionFacts, emit: Emit) -> None:
    base, version = v.base, v.version
    record_times(version, base, emit)
    record_times(version.get("changes"), f"{base}/changes", emit)


@doc_check("package-full")
def package_times(doc: Any, emit: Emit) -> None:
    record_times(doc, "", emit)
    record_times(as_dict(doc, "user"), "/user", emit, states=())


@doc_check("banner")
def banner_times(doc: Any, emit: Emit) -> None:
    record_times(doc, "", emit, states=())


@doc_check("game")
def game_times(doc: Any, emit: Emit) -> None:
    if type(doc) is not dict:
        return
    record_times(doc, "", emit, states=("completedAt", "stoppedAt"))
    record_times(as_dict(doc, "pkg"), "/pkg", emit)
    if type(doc.get("completedAt")) is str and type(doc.get("stoppedAt")) is str:
        emit(COMPLETED_AND_STOPPED, "/stoppedAt",
             "the game has both completedAt and stoppedAt set")
    created = parse_time(doc.get("createdAt"))
    if created is None:
        return
    for i, entry in enumerate(as_list(doc, "history")):
        if type(entry) is dict:
            t = parse_time(entry.get("createdAt"))
            if t is not None and t < created:
                emit(HISTORY_BEFORE_GAME, f"/history/{i}/createdAt",
                     f"history entry createdAt {entry['createdAt']} is before the game's "
                     f"createdAt {doc['createdAt']}")
