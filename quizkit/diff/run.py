"""One diff from start to end: both sides into the work database, compared, detailed."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from contextlib import ExitStack
from typing import Any

import duckdb

from quizkit.analysis.connect import LoadError, connect, one_line
from quizkit.analysis.load import configured
from quizkit.checks.documents import SkippedInputs
from quizkit.checks.runner import Notes, expand_paths
from quizkit.cluster import checking as cluster
from quizkit.diff import collect, compare
from quizkit.diff import database_side as tables
from quizkit.diff.compare import CHANGES
from quizkit.diff.detail import detailed
from quizkit.diff.records import TABLES
from quizkit.diff.result import DiffResult, parse_threshold
from quizkit.inputs import remote
from quizkit.settings.config import ConfigError


def fail_kinds(fail_on: Iterable[str] | str | None) -> tuple[str, ...]:
    """``--fail-on added,removed`` → the kinds of change that count (default: all)."""
    if fail_on is None:
        return CHANGES
    names = fail_on.split(",") if isinstance(fail_on, str) else list(fail_on)
    kinds = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
    unknown = [k for k in kinds if k not in CHANGES]
    if unknown or not kinds:
        raise ConfigError(f"--fail-on {','.join(names)!r}: use some of {', '.join(CHANGES)}")
    return kinds


def input_files(old: str, new: str, exclude: Iterable[str] = (),
                include_hidden: bool = False) -> list[str]:
    """Every local file a diff of ``old`` and ``new`` reads (the sides' export files as the
    walk lists them, a database file), for keeping outputs off them."""
    files = [old, new]
    for side in (old, new):
        if side != "-" and not remote.is_url(side) and not tables.is_tables(side):
            files += [s.path for s in expand_paths([side], exclude, include_hidden)]
    return files


def diff(old: str, new: str, *, exclude: Iterable[str] = (), include_hidden: bool = False,
         fail_on: Iterable[str] | str | None = None, fail_if: Iterable[str] = (),
         memory_limit: str | None = None, threads: int | None = None,
         jobs: int | None = None, scheduler: str | None = None,
         notes: Notes | None = None) -> DiffResult:
    """Compare the exports ``old`` and ``new`` (see :func:`quizkit.api.diff`)."""
    kinds = fail_kinds(fail_on)
    thresholds = tuple(parse_threshold(t, TABLES) for t in fail_if)
    for path in (old, new):
        if path == "-":
            raise ConfigError("diff compares files, directories, URLs or databases, not stdin")
    if scheduler and any(tables.is_tables(p) for p in (old, new)):
        raise ConfigError("--scheduler reads exports on a cluster: both sides must be exports "
                          "(not a database or a dataset)")
    with ExitStack() as stack:
        work = stack.enter_context(tempfile.TemporaryDirectory(prefix="quizkit-diff-"))
        client = stack.enter_context(cluster.connect(scheduler)) if scheduler else None
        # In memory: nothing here is kept, and DuckDB spills to ``configured``'s directory
        # beyond the memory limit (a database file would write every row once more).
        con = connect()
        try:
            with configured(con, memory_limit=memory_limit, threads=threads):
                # Every ordering the reports need is asked for; DuckDB may spare memory.
                con.execute("SET preserve_insertion_order = false")
                collect.create(con)
                unreadable = _read_sides(con, (old, new), exclude, include_hidden, work,
                                         notes, jobs, client)
                compare.compare(con)
                changes = list(detailed(compare.changes(con)))
                return DiffResult([old], [new], compare.summary(con), compare.totals(con),
                                  changes, unreadable, kinds, thresholds)
        except duckdb.Error as exc:  # e.g. past the memory limit, a full spill disk
            raise LoadError(one_line(exc)) from None
        finally:
            con.close()


def _read_sides(con: duckdb.DuckDBPyConnection, paths: tuple[str, str],
                exclude: Iterable[str], include_hidden: bool, work: str, notes: Notes | None,
                jobs: int | None, client: Any) -> list[tuple[str, str, str]]:
    """Both sides into ``records``; the inputs that could not be read, per side."""
    names = ("old", "new")
    unreadable = []
    if any(tables.is_tables(p) for p in paths):
        for side, path in enumerate(paths):
            problems = tables.collect(con, side, path, work, exclude=exclude,
                                      include_hidden=include_hidden)
            unreadable += [(names[side], p, r) for p, r in problems]
        return unreadable
    old, new = (expand_paths([p], exclude, include_hidden, notes=notes) for p in paths)
    same = collect.unchanged(new, old)
    skipped = (SkippedInputs(), SkippedInputs())
    collect.collect(con, [(0, old, skipped[0], frozenset()),
                          (1, new, skipped[1], {n for _, n in same})], work, jobs, client)
    # A file unchanged but not read without a failure on the old side is read on the new.
    failed = {name for f, _ in skipped[0].failed() for name in (f, f.rpartition(":")[0])}
    again = {n for o, n in same if o in failed}
    collect.copy_rows(con, [(o, n) for o, n in same if n not in again])
    if again:
        collect.collect(con, [(1, new, skipped[1], {s.display for s in new} - again)], work,
                        jobs, client)
        order = {s.display: i for i, s in enumerate(new)}
        for failures in (skipped[1].unreadable, skipped[1].unparseable):
            failures.sort(key=lambda f: order.get(f[0], order.get(f[0].rpartition(":")[0],
                                                                  len(order))))
    for side, side_skipped in enumerate(skipped):
        unreadable += [(names[side], p, r) for p, r in side_skipped.failed()]
    return unreadable
