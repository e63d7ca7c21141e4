"""Timestamps and identifiers for generated records.

Times are epoch milliseconds internally and RFC 3339 strings (``2026-03-14T09:26:53.589Z``) in
documents. Identifiers look like MongoDB ObjectIds: eight hex digits of the creation second
followed by sixteen random hex digits, so they sort by time and never collide in practice.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def iso(ms: int) -> str:
    """Epoch milliseconds -> RFC 3339 date-time in UTC with milliseconds and ``Z``."""
    dt = datetime.fromtimestamp(ms / 1000, UTC)
    return f"{dt:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}Z"


def ms_of(text: str) -> int:
    """RFC 3339 date-time (as written by :func:`iso`) -> epoch milliseconds."""
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def object_id(rng: random.Random, ms: int) -> str:
    """A 24-hex-digit id whose first eight digits are the creation second."""
    return f"{ms // 1000:08x}{rng.getrandbits(64):016x}"


def later(rng: random.Random, ms: int, low: int, high: int) -> int:
    """A moment between ``low`` and ``high`` milliseconds after ``ms``."""
    return ms + rng.randint(low, high)
