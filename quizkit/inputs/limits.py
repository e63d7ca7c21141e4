"""Resource limits for one input: file size, decompressed size, nesting depth.

Every limit is checked before the expensive step it protects (reading, decompressing,
building the document), and a limit that is hit becomes a finding, never a crash. The
defaults and the reasons for them are in ``docs/limits.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Sizes are SI (``MB`` = 10⁶ bytes, as DuckDB's ``--memory-limit`` and the sizes shown to
#: people) or binary (``MiB`` = 2²⁰ bytes), as written; :func:`parse_size` reads them all.
KB, MB, GB, TB = 10**3, 10**6, 10**9, 10**12
KIB, MIB, GIB, TIB = 2**10, 2**20, 2**30, 2**40

#: orjson refuses documents nested deeper than this (since 3.9.15); nothing deeper can be read.
PARSER_MAX_DEPTH = 1024

DEFAULT_MAX_FILE_SIZE = 512 * MIB
DEFAULT_MAX_DECOMPRESSED = 512 * MIB
#: Deep enough for any real export (they nest about 12 levels), shallow enough that the
#: recursive code downstream (python-jsonschema building messages, ``repr``, orjson's writer,
#: which stops at 254) never runs out of stack. See docs/limits.md.
DEFAULT_MAX_DEPTH = 254

_UNITS = {"": 1, "b": 1, "k": KB, "kb": KB, "m": MB, "mb": MB, "g": GB, "gb": GB, "t": TB,
          "tb": TB, "kib": KIB, "mib": MIB, "gib": GIB, "tib": TIB}
#: How sizes are shown, largest unit first (an exact multiple is shown in that unit).
_SHOWN = (("TiB", TIB), ("TB", TB), ("GiB", GIB), ("GB", GB), ("MiB", MIB), ("MB", MB),
          ("KiB", KIB), ("KB", KB))
#: What help texts and messages say about sizes.
SIZE_HELP = "MB = 10^6 bytes, MiB = 2^20"
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"100MB"`` → bytes: SI units (``100MB`` = 100 × 10⁶) or binary ones (``100MiB`` =
    100 × 2²⁰), as written; a plain number is bytes. The one parser of every size option.

    Raises ValueError for anything else, so the CLI can turn it into a usage error.
    """
    m = _SIZE.fullmatch(text)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 500KB, 100MB, 2GiB; {SIZE_HELP})")
    size = int(float(m.group(1)) * _UNITS[unit])
    if size < 1:
        raise ValueError(f"a size must be at least 1 byte: {text!r}")
    return size


def duckdb_size(text: str | None, option: str = "--memory-limit") -> str | None:
    """A size option for DuckDB (``SET memory_limit``) as exact bytes, read by
    :func:`parse_size` like every size; a ValueError names the option."""
    if text is None:
        return None
    try:
        return f"{parse_size(text)}B"
    except ValueError as exc:
        raise ValueError(f"{option}: {exc}") from None


def format_size(size: int) -> str:
    """Bytes → the exact spelling in the largest unit that divides them (``512MiB``,
    ``100MB``), else bytes; :func:`parse_size` reads it back."""
    for unit, factor in _SHOWN:
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size} bytes"


#: Findings listed per file by default (``--max-findings``): a file with more gets one
#: ``findings-capped`` finding counting the rest by rule, so memory follows the input's size.
DEFAULT_MAX_FINDINGS = 1000


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of one run (picklable: workers get a copy)."""

    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
    max_depth: int = DEFAULT_MAX_DEPTH
    #: Findings listed per file, at most (0: no cap); the rest are counted by rule.
    max_findings: int = DEFAULT_MAX_FINDINGS


__all__ = ["DEFAULT_MAX_DECOMPRESSED", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_FILE_SIZE",
           "DEFAULT_MAX_FINDINGS",
           "PARSER_MAX_DEPTH", "Limits", "format_size", "parse_size"]
