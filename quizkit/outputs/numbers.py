"""Numbers for people: ``1.5 GB``, ``12,345``, ``1 package`` / ``2 packages``.

Only the formats people read (text, table, Markdown, HTML) use these; CSV and JSON keep exact
numbers. Sizes are decimal (SI) units, as disk makers and ``ls --si`` count: 1 kB = 1000 B.
"""

from __future__ import annotations

import decimal
import math

_UNITS = ("B", "kB", "MB", "GB", "TB", "PB", "EB")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 error``, ``0 errors``, ``1,200 errors``; ``words`` for irregular plurals."""
    many = words if words is not None else f"{word}s"
    return f"{thousands(n)} {word if n == 1 else many}"


def thousands(n: float | int | decimal.Decimal) -> str:
    """An integer with thousands separators; a fraction rounded to two decimals as well."""
    if isinstance(n, decimal.Decimal):
        n = int(n) if n == n.to_integral_value() else float(n)
    if isinstance(n, float):
        if not math.isfinite(n):
            return str(n)
        if n == int(n) and abs(n) < 1e15:
            return f"{int(n):,}"
        return f"{n:,.2f}"
    return f"{n:,}"


def human_bytes(n: float | int | decimal.Decimal) -> str:
    """A byte count in the largest unit that keeps it at or above 1: ``1.5 GB``, ``512 B``."""
    value = float(n)
    if not math.isfinite(value):
        return str(value)
    sign = "-" if value < 0 else ""
    value = abs(value)
    unit = 0
    while value >= 1000 and unit < len(_UNITS) - 1:
        value /= 1000
        unit += 1
    if unit == 0:
        return f"{sign}{thousands(round(value, 2))} B"
    text = f"{value:.1f}"
    if text == "1000.0" and unit < len(_UNITS) - 1:  # 999.96 kB rounds up to the next unit
        text, unit = "1.0", unit + 1
    return f"{sign}{text} {_UNITS[unit]}"
