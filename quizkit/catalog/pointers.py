"""JSON Pointers (RFC 6901): the one place where reference tokens are escaped and unescaped.

A finding's ``pointer`` is built with :func:`join_pointer` or :func:`escape_token`, and read
back (positions, cross-file facts) with :func:`split_pointer`; ``~`` is written ``~0`` and
``/`` is written ``~1``, in that order, so that ``~1`` in a key stays ``~01``.
"""

from __future__ import annotations

from collections.abc import Iterable

from quizkit.catalog.display import printable


def escape_token(token: str | int) -> str:
    """One reference token: ``a/b~c`` → ``a~1b~0c``."""
    text = str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def unescape_token(token: str) -> str:
    """The key a reference token names: ``a~1b~0c`` → ``a/b~c``."""
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def join_pointer(parts: Iterable[str | int]) -> str:
    """A pointer from keys and indexes: ``["a/b", 0]`` → ``/a~1b/0``; ``[]`` → ``""``."""
    return "".join("/" + escape_token(p) for p in parts)


def split_pointer(pointer: str) -> list[str]:
    """The keys and indexes (as strings) of a pointer; ``""`` (the whole document) → ``[]``."""
    return [unescape_token(p) for p in pointer.split("/")[1:]] if pointer else []


#: The longest a reference token is shown in a report line, in characters.
TOKEN_LIMIT = 40
#: The longest a pointer is shown in a report line; a longer one keeps its first and last
#: tokens around "…".
POINTER_LIMIT = 120


def readable(pointer: str) -> str:
    """``pointer`` as a report line shows it: a long token (a 5,000-character key) cut to
    :data:`TOKEN_LIMIT`, a long path to its first two and last two tokens.

    Control characters of a key are escaped (:func:`quizkit.catalog.display.printable`). Reports for
    machines (JSON, SARIF's properties) keep the whole pointer.
    """
    if len(pointer) <= POINTER_LIMIT:
        return printable(pointer)
    tokens = [t if len(t) <= TOKEN_LIMIT else t[:TOKEN_LIMIT - 1] + "…"
              for t in pointer.split("/")[1:]]
    if sum(len(t) + 1 for t in tokens) > POINTER_LIMIT and len(tokens) > 4:
        tokens = [*tokens[:2], "…", *tokens[-2:]]
    return printable("/" + "/".join(tokens))
