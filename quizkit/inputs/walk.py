"""Paths and directories -> sources: the one file walker of every command.

``validate``, ``load``, ``summary``, ``query`` and ``enums infer`` all list their inputs here,
so they take the same files:

* A path named on the command line is always an input, whatever its name (a directory is
  walked); ``-`` is stdin; an ``s3://`` URL is listed by :mod:`quizkit.inputs.remote`.
* Walking a directory takes the files named ``*.json``, ``*.jsonl``, ``*.ndjson`` (each also
  ``.gz``), in sorted order. Hidden entries (a name starting with ``.``: ``.git``, ``.venv``)
  and ``node_modules`` are skipped unless ``include_hidden``. Links to files are read; links to
  directories are not followed (no loops, no file listed twice).
* Nothing is skipped silently: a directory that cannot be listed, and an entry with an export's
  name that is not a readable regular file (a broken link, a FIFO, a socket) become sources that
  report why when read (``Source.error``), so every command turns them into exit 3.
* ``exclude`` holds gitignore patterns (:class:`Excludes`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quizkit.catalog.display import printable
from quizkit.inputs import remote
from quizkit.inputs.sources import (
    STDIN,
    STDIN_FORMATS,
    MissingPath,
    Source,
    is_candidate,
    not_regular,
)

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["Excludes", "Inputs", "MissingPath", "PatternError", "WalkRules", "expand",
           "unmatched_lines"]

#: Directories skipped while walking unless hidden entries are included (besides dot-names).
SKIPPED_DIRS = frozenset({"node_modules"})
_WILDCARDS = frozenset("*?[\\")


class PatternError(ValueError):
    """An exclude pattern that quizkit cannot use (the message says why)."""


@dataclass(frozen=True, slots=True)
class WalkRules:
    """How directories are walked: gitignore ``exclude`` patterns, and the hidden-entry policy."""

    exclude: tuple[str, ...] = ()
    include_hidden: bool = False


class Excludes:
    """Gitignore-style patterns matched against paths met while walking.

    A pattern with a ``/`` before its end (``samples/invalid``, ``**/tmp/*``) is matched against
    the path relative to the walked directory and against the path as walked (so both
    ``invalid`` and ``samples/invalid`` work for ``quizkit validate samples/``); one without
    (``invalid/``, ``*.jsonl``) against every name below the walked directory. A trailing ``/``
    matches directories only; an excluded directory is not entered.

    Patterns without wildcards (the long generated lists) are looked up in sets, so 100,000 of
    them cost what a few do; the others go to ``pathspec``, a gitignore implementation.
    Which patterns ever matched is kept, so that the ones that matched nothing can be named.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns: list[str] = []
        self._rooted: dict[str, int] = {}  # literal path -> pattern index
        self._rooted_dirs: dict[str, int] = {}
        self._names: dict[str, int] = {}  # literal name -> pattern index
        self._name_dirs: dict[str, int] = {}
        rooted: list[tuple[int, str]] = []
        floating: list[tuple[int, str]] = []
        for index, pattern in enumerate(patterns):
            self.patterns.append(pattern)
            text = pattern.strip()
            if not text or text.startswith("#"):
                continue  # matches nothing, so it is reported as such
            if text.startswith("!"):
                raise PatternError(f"exclude pattern {pattern!r}: negation ('!') is not "
                                   "supported; list only what to skip")
            dir_only = text.endswith("/")
            body = text.rstrip("/")
            is_rooted = "/" in body
            if _WILDCARDS.isdisjoint(body):
                body = body.lstrip("/")
                table = ((self._rooted_dirs if dir_only else self._rooted) if is_rooted
                         else (self._name_dirs if dir_only else self._names))
                table.setdefault(body, index)
            else:
                (rooted if is_rooted else floating).append((index, text))
        self._rooted_spec = _spec(rooted)
        self._floating_spec = _spec(floating)
        self._used: set[int] = set()

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def excluded(self, rel: str, prefixes: tuple[str, ...], is_dir: bool) -> bool:
        """Whether ``rel`` (``/``-separated, relative to the walked directory) is excluded.

        ``prefixes`` are the other forms of the walked directory (``samples/``); rooted
        patterns also see ``prefix + rel``.
        """
        hit = self._literal(rel, prefixes, is_dir)
        if hit is None:
            hit = self._wild(rel, prefixes, is_dir)
        if hit is None:
            return False
        self._used.add(hit)
        return True

    def _literal(self, rel: str, prefixes: tuple[str, ...], is_dir: bool) -> int | None:
        parts = rel.split("/")
        if self._names or self._name_dirs:
            last = len(parts) - 1
            for i, part in enumerate(parts):
                hit = self._names.get(part)
                if hit is None and (i < last or is_dir):
                    hit = self._name_dirs.get(part)
                if hit is not None:
                    return hit
        if self._rooted or self._rooted_dirs:
            for form in ("", *prefixes):
                path = form + rel
                hit = self._rooted.get(path)
                if hit is None and is_dir:
                    hit = self._rooted_dirs.get(path)
                if hit is not None:
                    return hit
        return None

    def _wild(self, rel: str, prefixes: tuple[str, ...], is_dir: bool) -> int | None:
        tail = "/" if is_dir else ""
        if self._floating_spec is not None:
            hit = self._floating_spec.check(rel + tail)
            if hit is not None:
                return hit
        if self._rooted_spec is not None:
            for form in ("", *prefixes):
                hit = self._rooted_spec.check(form + rel + tail)
                if hit is not None:
                    return hit
        return None

    def unmatched(self) -> list[str]:
        """The patterns that excluded nothing so far, in the order given."""
        return [p for i, p in enumerate(self.patterns) if i not in self._used]


@dataclass(frozen=True, slots=True)
class _Spec:
    """A ``pathspec`` gitignore spec over some of the patterns, with their original indexes."""

    spec: GitIgnoreSpec
    indexes: tuple[int, ...]

    def check(self, path: str) -> int | None:
        result = self.spec.check_file(path)
        return self.indexes[result.index] if result.include else None


def _spec(patterns: list[tuple[int, str]]) -> _Spec | None:
    if not patterns:
        return None
    import pathspec  # only when there are patterns: its import is a tenth of a start-up

    return _Spec(pathspec.GitIgnoreSpec.from_lines([p for _, p in patterns]),
                 tuple(i for i, _ in patterns))


@dataclass
class Inputs:
    """The sources of a run, in order, and the exclude patterns that matched nothing."""

    sources: list[Source] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Source]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def unreadable(self) -> list[Source]:
        """Sources the walk already found unreadable (each has an ``error``)."""
        return [s for s in self.sources if s.error is not None]


#: Unmatched patterns named one by one; past these, one line counts the rest.
WARN_AT_MOST = 10


def unmatched_lines(patterns: list[str]) -> list[str]:
    """The warnings for exclude patterns that matched nothing (the exit code stays): one a
    pattern, and for a generated list of thousands, :data:`WARN_AT_MOST` and a count."""
    lines = [f"quizkit: warning: exclude pattern {p!r} matched nothing"
             for p in patterns[:WARN_AT_MOST]]
    if len(patterns) > WARN_AT_MOST:
        lines.append(f"quizkit: warning: ... and {len(patterns) - WARN_AT_MOST} more exclude "
                     "patterns matched nothing")
    return lines


def expand(paths: Iterable[str], rules: WalkRules | None = None, *,
           stdin_format: str = "auto") -> Inputs:
    """Sources for ``paths``: files as named, directories walked (see the module docstring).

    ``stdin_format`` says what ``-`` holds: ``json``, ``jsonl``, or ``auto`` to look
    (:data:`quizkit.inputs.sources.STDIN_FORMATS`).

    Raises :class:`MissingPath` for a named path that does not exist, :class:`PatternError`
    for an exclude pattern that cannot be used.
    """
    rules = rules or WalkRules()
    excludes = Excludes(rules.exclude)
    inputs = Inputs()
    for raw in paths:
        if raw == STDIN:
            inputs.sources.append(Source(STDIN, lines=STDIN_FORMATS[stdin_format]))
            continue
        if remote.is_url(raw):  # object storage: the export files under the prefix
            try:
                listed = remote.list_files(raw, is_candidate)
            except remote.RemoteError as exc:
                raise MissingPath(str(exc)) from None
            inputs.sources.extend(Source(url, listed_size=size) for url, size in listed)
            continue
        try:
            mode: int | None = os.stat(raw).st_mode
        except FileNotFoundError:
            if not os.path.islink(raw):
                raise MissingPath(printable(raw)) from None
            mode = None  # a broken link: reading it reports it
        except (OSError, ValueError):
            mode = None  # no permission, a link loop, a NUL in the name: reported on read
        if mode is not None and stat.S_ISDIR(mode):
            inputs.sources.extend(_walk(raw, excludes, rules.include_hidden))
        elif mode is not None and not stat.S_ISREG(mode):
            # A FIFO, /dev/zero, a socket: refused here, never opened (a FIFO would block,
            # /dev/zero never ends); every command reports it with exit 3.
            inputs.sources.append(Source(raw, error=not_regular(mode)))
        else:
            inputs.sources.append(Source(raw))
    inputs.unmatched = excludes.unmatched()
    return inputs


def _prefixes(root: str) -> tuple[str, ...]:
    """Other forms of a walked directory for rooted patterns: as given, and relative to the
    working directory, each ending in ``/`` (none for ``.``)."""
    forms = []
    for form in (os.path.normpath(root), os.path.relpath(os.path.abspath(root))):
        form = form.replace(os.sep, "/")
        if form not in (".", "/") and not form.startswith("../") and form != "..":
            forms.append(form.rstrip("/") + "/")
    return tuple(dict.fromkeys(forms))


def _walk(root: str, excludes: Excludes, include_hidden: bool) -> Iterator[Source]:
    """Sources below directory ``root``, depth first in sorted order."""
    prefixes = _prefixes(root) if excludes else ()
    stack: list[tuple[str, str]] = [(root, "")]  # (path, path relative to root with "/")
    while stack:
        directory, rel_dir = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield Source(directory, error=f"cannot list directory: {exc.strerror or exc}")
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            if not include_hidden and (name.startswith(".") or name in SKIPPED_DIRS):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if not is_dir and not is_candidate(name):
                continue
            rel = rel_dir + name
            if excludes and excludes.excluded(rel, prefixes, is_dir):
                continue
            if is_dir:
                subdirs.append((entry.path, rel + "/"))
            elif not entry.is_symlink() or not _is_dir_link(entry.path):
                yield _file_source(entry)
        stack.extend(reversed(subdirs))


def _is_dir_link(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _file_source(entry: os.DirEntry[str]) -> Source:
    """A candidate entry as a source; one that is not a regular file says why."""
    try:
        if entry.is_file():
            return Source(entry.path)
        mode = os.stat(entry.path).st_mode
    except FileNotFoundError:
        return Source(entry.path, error="a broken symbolic link" if entry.is_symlink()
                      else "vanished while listing")
    except OSError as exc:
        return Source(entry.path, error=exc.strerror or str(exc))
    return Source(entry.path, error=not_regular(mode))
