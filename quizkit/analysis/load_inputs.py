"""What a load reads: the walker's sources as load inputs, and their batches."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from quizkit import remote
from quizkit.analysis.files import InputError, Skipped, expand, is_export
from quizkit.batching import consecutive_runs
from quizkit.walk import WalkRules

#: Bytes of (uncompressed) input staged at once: what bounds a load's memory. Each batch costs
#: a fixed share of statements and a fresh working set; 128 MB batches took 20-35% less CPU
#: than 48 MB ones at 4x the 1,000-package corpus, for ~140 MB more peak RSS (docs/performance).
BATCH_BYTES = 128 << 20


#: Files staged at once, at most (document numbers keep 16 bits for the file).
BATCH_FILES = 4096


@dataclass(frozen=True, slots=True)
class Input:
    """One export file to load: ``name`` is what the ``file`` columns hold (an absolute path or
    a URL), ``size`` its size as listed."""

    name: str
    size: int


def list_inputs(paths: Sequence[str | os.PathLike[str]],
                skipped: list[Skipped] | None = None, rules: WalkRules | None = None,
                unmatched: list[str] | None = None) -> list[Input]:
    """Export files under ``paths`` (files, directories, object-storage URLs), unique.

    Directories are walked as every command walks them (:mod:`quizkit.walk`), with ``rules``
    (the settings' excludes and hidden-entry policy, as ``validate`` walks); what the walk
    found unreadable (never opened) is added to ``skipped``, the exclude patterns that
    excluded nothing under any path to ``unmatched``.

    Raises :class:`InputError` for a path or URL that does not exist.
    """
    found: dict[str, int] = {}
    local = [os.fspath(raw) for raw in paths if not remote.is_url(os.fspath(raw))]
    never = set(rules.exclude if rules is not None and local else ())
    for raw in paths:
        text = os.fspath(raw)
        if remote.is_url(text):
            try:
                found.update(remote.list_files(text, is_export))
            except remote.RemoteError as exc:
                raise InputError(str(exc)) from None
        else:
            files, unreadable, unmatched_here = expand([text], rules)
            never &= set(unmatched_here)
            for path in files:
                try:
                    found[path] = os.stat(path).st_size
                except OSError:
                    found[path] = 0  # reading it says why
            if skipped is not None:  # the walk's own finds: a broken link, a FIFO, ...
                skipped.extend(unreadable)
    if unmatched is not None and rules is not None:
        unmatched.extend(p for p in rules.exclude if p in never)
    return [Input(name, size) for name, size in sorted(found.items())]


def batches(inputs: list[Input], max_bytes: int = BATCH_BYTES,
            max_files: int = BATCH_FILES, *, parts: int = 0,
            min_bytes: int = 0) -> list[list[Input]]:
    """Consecutive runs of ``inputs`` of at most ``max_bytes`` (or one larger file) and at
    most ``max_files`` files. With ``parts``, each run also holds at most 1/``parts`` of the
    bytes left (but ``min_bytes`` at least): the runs shrink towards the end, so that
    ``parts`` workers taking them in turn finish close together."""
    return consecutive_runs(inputs, [i.size for i in inputs], max_weight=max_bytes,
                            max_items=max_files, parts=parts, min_weight=min_bytes)


def offset_of(batch_no: int) -> int:
    """The first document number of batch ``batch_no`` (documents of a batch are numbered
    file_no * 2**32 + n, file_no < 2**16)."""
    return int(batch_no) << 48
