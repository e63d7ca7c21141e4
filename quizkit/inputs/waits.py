"""How long quizkit waits for a peer: a Dask scheduler and its first worker, object storage.

One value, ``--wait-timeout SECONDS`` on the commands that talk to peers, or the
``QUIZKIT_WAIT_TIMEOUT`` environment variable (the option sets it for the run, so that every
layer reads the same value); :data:`DEFAULT` when neither is given. A wait that runs out ends
the run with exit 2 and one line saying what it waited for (``docs/limits.md``).
"""

from __future__ import annotations

import math
import os

from quizkit.inputs.bounds import MAX_SECONDS

#: The environment variable that holds the timeout.
ENV = "QUIZKIT_WAIT_TIMEOUT"
#: Seconds, when nothing else is said.
DEFAULT = 30.0
#: The longest timeout accepted (a day).
MAXIMUM = MAX_SECONDS


class WaitTimeout(Exception):
    """A peer did not answer within the timeout (one-line message, exit 2)."""


def parse(text: str) -> float:
    """Seconds from ``text``: a finite number above 0 and at most :data:`MAXIMUM`;
    :class:`ValueError` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAXIMUM:
        raise ValueError(f"{text!r} must be above 0 and at most {MAXIMUM:g} seconds")
    return value


def seconds() -> float:
    """The timeout of this run, in seconds (:class:`ValueError` for a bad
    ``QUIZKIT_WAIT_TIMEOUT``)."""
    text = os.environ.get(ENV)
    if text is None or not text.strip():
        return DEFAULT
    try:
        return parse(text)
    except ValueError as exc:
        raise ValueError(f"{ENV}: {exc}") from None
