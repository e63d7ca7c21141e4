"""Where a run's result cache lives, and whether it may be written there at all.

``.quizkit_cache`` in the current directory, unless ``--cache-dir``, ``QUIZKIT_CACHE_DIR`` or
the configuration's ``cache-dir`` names another. A cache is never written inside a directory
the run reads: when the default one would be (``quizkit validate .``), the user's cache
directory (``$XDG_CACHE_HOME/quizkit``, else ``~/.cache/quizkit``) is used instead; a cache
directory named explicitly inside an input directory leaves the run uncached, with a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from quizkit.inputs import remote
from quizkit.inputs.sources import STDIN

DEFAULT_NAME = ".quizkit_cache"


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/quizkit``, else ``~/.cache/quizkit``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "quizkit"


def input_dirs(paths: Iterable[str]) -> list[str]:
    """The real paths of the local directories among a run's input paths."""
    return [os.path.realpath(p) for p in paths
            if p != STDIN and not remote.is_url(p) and os.path.isdir(p)]


def inside(directory: str | os.PathLike[str], dirs: Iterable[str]) -> str | None:
    """The first of ``dirs`` (real paths) that ``directory`` is, or is below."""
    real = os.path.realpath(directory)
    for d in dirs:
        if real == d or real.startswith(d.rstrip(os.sep) + os.sep):
            return d
    return None


def choose(explicit: str | None, paths: Iterable[str]) -> tuple[Path | None, str | None]:
    """The cache directory of a run reading ``paths`` (``None``: no cache), and a warning to
    print, if any. ``explicit``: the directory the user named (``None``: the default)."""
    dirs = input_dirs(paths)
    if explicit is not None:
        hit = inside(explicit, dirs)
        if hit is None:
            return Path(explicit), None
        return None, (f"quizkit: warning: the cache directory {explicit} is inside the input "
                      f"directory {hit}; this run is not cached (a cache is never written "
                      "inside an input)")
    for candidate in (Path(DEFAULT_NAME), user_cache_dir()):
        if inside(candidate, dirs) is None:
            return candidate, None
    return None, None
