"""Baselines: record today's findings, then report only new ones.

A finding is matched by rule name, file and JSON Pointer, never by line or column, so edits
elsewhere in a file do not make old findings look new. Each key carries a count: two identical
findings in the baseline absorb two, and a third is new. File paths are stored relative to the
baseline file's directory (with ``/``), so the baseline works from any working directory.

File format (sorted, written atomically)::

    {"version": 1, "findings": [{"path": "...", "pointer": "...", "rule": "...", "count": 1}]}
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import orjson

from quizkit.catalog.findings import Finding
from quizkit.inputs.configfiles import BASELINE_MAX_BYTES, ConfigError, read_bytes
from quizkit.outputs.writer import resolve, write_bytes

FORMAT_VERSION = 1
Key = tuple[str, str, str]  # (path, pointer, rule)


class BaselineError(ConfigError):
    """The baseline file cannot be read or is not a quizkit baseline (exit code 2)."""


class _Paths:
    """Finding paths → paths relative to the baseline's directory (cached per path)."""

    def __init__(self, baseline_file: Path) -> None:
        self.root = Path(baseline_file).resolve().parent
        self._cache: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        out = self._cache.get(path)
        if out is None:
            out = path
            if path != "<stdin>":
                try:
                    out = os.path.relpath(os.path.abspath(path), self.root)
                except ValueError:
                    out = os.path.abspath(path)
            out = out.replace(os.sep, "/")
            self._cache[path] = out
        return out


class Recorder:
    """An ``adjust`` step that counts every finding passing through (for ``--write-baseline``)."""

    def __init__(self, baseline_file: Path) -> None:
        resolve(baseline_file)  # an unwritable target fails now, not after the run
        self.file = Path(baseline_file)
        self.norm = _Paths(self.file)
        self.counts: Counter[Key] = Counter()

    def __call__(self, finding: Finding) -> Finding:
        self.counts[(self.norm(finding.path), finding.pointer, finding.rule)] += 1
        return finding

    def write(self) -> None:
        write(self.file, self.counts)


def write(path: Path, counts: Counter[Key]) -> None:
    """Write a baseline through the output layer (atomically, mode kept or from the umask)."""
    path = Path(path)
    entries = [{"path": p, "pointer": ptr, "rule": rule, "count": n}
               for (p, ptr, rule), n in sorted(counts.items())]
    data = orjson.dumps({"version": FORMAT_VERSION, "findings": entries},
                        option=orjson.OPT_INDENT_2) + b"\n"
    write_bytes(path, data)


class Baseline:
    """A loaded baseline; :meth:`__call__` is an ``adjust`` step that drops known findings."""

    def __init__(self, baseline_file: Path, counts: Counter[Key]) -> None:
        self.file = Path(baseline_file)
        self.norm = _Paths(self.file)
        self.remaining = Counter(counts)
        self.total = sum(counts.values())
        self.matched = 0

    @classmethod
    def load(cls, path: Path) -> Baseline:
        raw = read_bytes(path, "baseline", BASELINE_MAX_BYTES)
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise BaselineError(f"{path}:{exc.lineno}:{exc.colno}: baseline is not JSON: "
                                f"{exc.msg}") from None
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION or \
                not isinstance(data.get("findings"), list):
            raise BaselineError(f"{path} is not a quizkit baseline (version {FORMAT_VERSION})")
        counts: Counter[Key] = Counter()
        for entry in data["findings"]:
            try:
                key = (entry["path"], entry["pointer"], entry["rule"])
                n = entry.get("count", 1)
            except (TypeError, KeyError):
                raise BaselineError(f"baseline {path}: malformed entry {entry!r}") from None
            if not all(isinstance(k, str) for k in key) or not isinstance(n, int) or n < 1:
                raise BaselineError(f"baseline {path}: malformed entry {entry!r}")
            counts[key] += n
        return cls(Path(path), counts)

    def __call__(self, finding: Finding) -> Finding | None:
        key = (self.norm(finding.path), finding.pointer, finding.rule)
        if self.remaining[key] > 0:
            self.remaining[key] -= 1
            self.matched += 1
            return None
        return finding

    @property
    def gone(self) -> int:
        """Baseline entries that no longer occur (fixed since the baseline was written)."""
        return sum(n for n in self.remaining.values() if n > 0)
