"""Resource limits for one input: file size, decompressed size, nesting depth.

Every limit is checked before the expensive step it protects (reading, decompressing,
building the document), and a limit that is hit becomes a finding, never a crash. The
defaults and the reasons for them are in ``docs/limits.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KIB = 1024
MIB = 1024**2
GIB = 1024**3

#: orjson refuses documents nested deeper than this (since 3.9.15); nothing deeper can be read.
PARSER_MAX_DEPTH = 1024

DEFAULT_MAX_FILE_SIZE = 512 * MIB
DEFAULT_MAX_DECOMPRESSED = 512 * MIB
#: Deep enough for any real export (they nest about 12 levels), shallow enough that the
#: recursive code downstream (python-jsonschema building messages, ``repr``, orjson's writer,
#: which stops at 254) never runs out of stack. See docs/limits.md.
DEFAULT_MAX_DEPTH = 254

_UNITS = {"": 1, "b": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB, "mib": MIB,
          "g": GIB, "gb": GIB, "gib": GIB}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"100MB"`` → bytes. Units are binary (``1MB`` = 1024² bytes), as ``ls -h`` shows them.

    Raises ValueError for anything else, so the CLI can turn it into a usage error.
    """
    m = _SIZE.fullmatch(text)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS:
        raise ValueError(f"not a size: {text!r} (use e.g. 500KB, 100MB, 2GB)")
    size = int(float(m.group(1)) * _UNITS[unit])
    if size < 1:
        raise ValueError(f"a size must be at least 1 byte: {text!r}")
    return size


def format_size(size: int) -> str:
    """Bytes → the shortest exact ``KB``/``MB``/``GB`` spelling, else bytes."""
    for unit, factor in (("GB", GIB), ("MB", MIB), ("KB", KIB)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size} bytes"


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of one run (picklable: workers get a copy)."""

    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
    max_depth: int = DEFAULT_MAX_DEPTH


__all__ = ["DEFAULT_MAX_DECOMPRESSED", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_FILE_SIZE",
           "PARSER_MAX_DEPTH", "Limits", "format_size", "parse_size"]
