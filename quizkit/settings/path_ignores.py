"""``per-path-ignores``: which rules are ignored in which files, by gitignore patterns."""

from __future__ import annotations

import re
from collections.abc import Iterable

_WILDCARDS = re.compile(r"[*?\[\\]")
#: pathspec's name for "the pattern matched a directory above the path"; dropped, so that
#: the patterns of a group can share one expression.
_DIR_GROUP = "(?P<ps_d>"


class PathIgnores:
    """Per-path ignores, compiled once: path → the rule names ignored there.

    Patterns are gitignore patterns, as ``exclude`` takes them (:mod:`quizkit.inputs.walk`,
    through ``pathspec``): ``*`` and ``?`` stop at ``/``, ``**`` crosses it; a pattern with
    a ``/`` before its end is anchored to the start of the path, one without matches any
    name in it; a pattern that names a directory covers everything below it, and a trailing
    ``/`` matches directories only.

    Patterns without wildcards are looked up in dicts (a path's directories and names). The
    others are grouped by the literal text before their first wildcard and by the rules they
    ignore; each group becomes one regular expression, compiled the first time a path starts
    with that text. So 100,000 patterns cost a dict build, and a path is tried only against
    the groups it could match.
    """

    def __init__(self, patterns: Iterable[tuple[str, frozenset[str]]]) -> None:
        # literal path or name -> (rule names if it is the path's own name, if a directory)
        self.anchored: dict[str, list[frozenset[str]]] = {}
        self.floating: dict[str, list[frozenset[str]]] = {}
        groups: dict[str, dict[frozenset[str], list[str]]] = {}
        for pattern, names in patterns:
            text = pattern.strip()
            if not text or text.startswith("#"):
                continue  # matches nothing, as in a .gitignore file
            body = text.rstrip("/")
            dir_only = text.endswith("/")
            anchored = "/" in body
            if _WILDCARDS.search(body) is None:
                table = self.anchored if anchored else self.floating
                slot = table.setdefault(body.lstrip("/"), [frozenset(), frozenset()])
                slot[1] |= names
                if not dir_only:
                    slot[0] |= names
                continue
            prefix = body.lstrip("/") if anchored else ""
            prefix = prefix[:_WILDCARDS.search(prefix).start()] if prefix else ""
            groups.setdefault(prefix, {}).setdefault(names, []).append(text)
        self.groups = groups
        self.prefix_lengths = sorted({len(p) for p in groups})
        self._compiled: dict[str, list[tuple[frozenset[str], re.Pattern[str]]]] = {}

    def __bool__(self) -> bool:
        return bool(self.anchored or self.floating or self.groups)

    def _group(self, prefix: str) -> list[tuple[frozenset[str], re.Pattern[str]]]:
        compiled = self._compiled.get(prefix)
        if compiled is None:
            compiled = self._compiled[prefix] = [
                (names, re.compile("|".join(_regex(p) for p in pats)))
                for names, pats in self.groups[prefix].items()]
        return compiled

    def match(self, path: str) -> frozenset[str]:
        """The rule names ignored in ``path`` (``/``-separated, relative)."""
        hit: frozenset[str] = frozenset()
        parts = path.split("/")
        last = len(parts) - 1
        for i, part in enumerate(parts):
            for table, key in ((self.anchored, "/".join(parts[:i + 1])),
                               (self.floating, part)):
                slot = table.get(key)
                if slot is not None:
                    hit |= slot[0] if i == last else slot[1]
        for length in self.prefix_lengths:
            if length > len(path):
                break
            prefix = path[:length]
            if prefix in self.groups:
                for names, regex in self._group(prefix):
                    if not names <= hit and regex.match(path):
                        hit = hit | names
        return hit


def _regex(pattern: str) -> str:
    """A gitignore pattern as a regular expression over a file's path (pathspec's)."""
    # Imported here: only a configuration with per-path-ignores needs pathspec.
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    regex, _include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
    return regex.replace(_DIR_GROUP, "(?:")
