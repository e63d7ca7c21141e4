"""Consecutive runs of work items, for the batches of a load and the tasks of a cluster run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def consecutive_runs(items: Sequence[T], weights: Sequence[int], *, max_weight: int,
                     max_items: int, parts: int = 0, min_weight: int = 0) -> list[list[T]]:
    """``items`` in order, cut into runs of at most ``max_weight`` (or one heavier item) and
    at most ``max_items`` items.

    With ``parts``, each run also weighs at most 1/``parts`` of the weight left (but
    ``min_weight`` at least): the runs shrink towards the end, so that ``parts`` workers taking
    them in turn finish close together (guided self-scheduling).
    """
    left = sum(weights)

    def limit() -> int:
        return max(min_weight, min(max_weight, left // parts)) if parts else max_weight

    out: list[list[T]] = []
    current: list[T] = []
    size, most = 0, limit()
    for item, weight in zip(items, weights, strict=True):
        if current and (size + weight > most or len(current) >= max_items):
            out.append(current)
            current, size, most = [], 0, limit()
        current.append(item)
        size += weight
        left -= weight
    if current:
        out.append(current)
    return out
