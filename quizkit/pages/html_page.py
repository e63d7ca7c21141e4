"""The frame of every HTML page quizkit writes: one self-contained file.

Styles and scripts are inline, charts are inline SVG, and the page's Content-Security-Policy
allows nothing to be fetched (``default-src 'none'``), so a page opened from a CI artifact or
an e-mail makes no request at all. Text from inputs goes into the markup only through
:func:`esc`, and into the page's data only through :func:`json_data`, which cannot close the
``<script>`` element it sits in.
"""

from __future__ import annotations

import html
import re
from importlib import resources
from typing import Any

import orjson

from quizkit.version import __version__

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")


def esc(text: object) -> str:
    """Text for HTML content or a quoted attribute value."""
    return html.escape(str(text), quote=True)


def prose(text: str) -> str:
    """Text written for people (rule explanations): escaped, with its `code` spans as
    ``<code>`` (the catalog marks names and values that way, as in Markdown)."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", esc(text))


def json_data(value: Any, element_id: str) -> str:
    """``value`` as a JSON data block. ``<``, ``>`` and ``&`` are written as ``\\u003c``…,
    which JSON reads back as the same characters but HTML never sees as markup."""
    text = orjson.dumps(value).decode()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def asset(name: str) -> str:
    """A stylesheet or script shipped beside this module (read when a page is written)."""
    return resources.files("quizkit.pages").joinpath(name).read_text(encoding="utf-8")


def page(title: str, body: str, *, script: str = "", data: str = "") -> str:
    """The whole page: ``body`` is markup already escaped; ``script`` is quizkit's own JS."""
    scripts = f"{data}\n<script>\n{script}\n</script>" if script else data
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="quizkit {esc(__version__)}">
<title>{esc(title)}</title>
<style>
{asset("html_page.css")}
</style>
</head>
<body>
{body}
{scripts}
</body>
</html>
"""
