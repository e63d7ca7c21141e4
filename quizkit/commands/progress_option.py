"""``--progress/--no-progress``, shared by the commands that show a progress line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

#: The one help text, so that ``validate`` and ``load`` say the same thing.
HELP = ("Progress line on stderr (files, percentage, MB/s, ETA). Default: shown on a "
        "terminal, outside CI, for runs of more than a second, unless -q. --progress shows "
        "it from the start on any stream (not a terminal: a line every 5 s and at the end); "
        "--no-progress never.")


def progress_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``progress``: ``None`` (automatic), ``True`` (forced on) or ``False`` (off)."""
    return click.option("--progress/--no-progress", default=None, help=HELP)(fn)
