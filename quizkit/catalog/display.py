"""Text from the inputs made safe to show on one line of a terminal, a CI log or a page.

File names and JSON keys are the input's own: a control character in one could move the cursor,
recolour a terminal or start a new annotation in a CI log.
"""

from __future__ import annotations


def printable(path: str) -> str:
    """``path`` safe to print on one line: control characters and undecodable bytes escaped.

    File names are bytes; Python keeps bytes that are not UTF-8 as lone surrogates, which no
    UTF-8 stream can write. They are shown as ``\\xNN``, control characters as ``\\n`` etc.
    """
    if path.isprintable():
        return path
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # surrogateescape'd byte
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1])
    return "".join(out)
