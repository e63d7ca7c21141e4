"""What a load reads: the walker's sources (the one listing of the validation and of
DuckDB), and their batches."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from quizkit.analysis.files import InputError, Skipped
from quizkit.inputs import remote
from quizkit.inputs.batching import consecutive_runs
from quizkit.inputs.sources import STDIN, MissingPath, Source
from quizkit.inputs.walk import WalkRules, expand

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


@dataclass
class Listed:
    """The inputs of a load, from one walk: what DuckDB reads (``inputs``), what the
    validation checks (``sources``, as walked: the paths as given), what the walk found
    unreadable, and the exclude patterns that excluded nothing."""

    inputs: list[Input]
    sources: list[Source]
    skipped: list[Skipped]
    unmatched: list[str]


def list_inputs(paths: Sequence[str | os.PathLike[str]],
                rules: WalkRules | None = None) -> Listed:
    """Export files under ``paths`` (files, directories, object-storage URLs).

    Walked once, as every command walks them (:func:`quizkit.inputs.walk.expand`, with ``rules``:
    the settings' excludes and hidden-entry policy); the inputs are the readable sources by
    absolute path (or URL), unique and sorted.

    Raises :class:`InputError` for a path or URL that does not exist, and for stdin.
    """
    names = [os.fspath(p) for p in paths]
    if STDIN in names:
        raise InputError("loading reads files, not stdin: save the input to a file first")
    try:
        walked = expand(names, rules)
    except MissingPath as exc:
        text = str(exc)
        raise InputError(text if remote.is_url(text) else f"no such file or directory: {text}"
                         ) from None
    found: dict[str, int] = {}
    skipped: list[Skipped] = []
    for source in walked:
        if source.error is not None:  # the walk's own finds: a broken link, a FIFO, ...
            skipped.append(Skipped(name_of(source.path), source.error))
        else:
            found.setdefault(name_of(source.path), source.size())
    return Listed([Input(name, size) for name, size in sorted(found.items())],
                  walked.sources, skipped, walked.unmatched)


def name_of(path: str) -> str:
    """What the ``file`` columns hold: an absolute path, or a URL."""
    return path if remote.is_url(path) else os.path.abspath(path)


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
