"""Docs generated from the code, so they cannot drift: the CLI reference and its table of
exit codes.

``python -m quizkit.docgen cli > docs/cli.md`` rewrites it; a test compares.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import click

from quizkit.catalog import exits
from quizkit.cli import main


def commands(group: click.Group = main, ctx: click.Context | None = None,
             prefix: str = "quizkit") -> Iterator[tuple[str, click.Command]]:
    """(full name, command) of every command below ``group``, groups included, sorted."""
    ctx = ctx or click.Context(group, info_name=prefix)
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        full = f"{prefix} {name}"
        yield full, command
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            yield from commands(command, sub_ctx, full)


def cli_reference() -> str:
    """Markdown: every command's help text, as ``--help`` prints it."""
    root = click.Context(main, info_name="quizkit", terminal_width=100, max_content_width=100,
                         **main.context_settings)
    parts = ["# CLI reference", "",
             "Generated from the code by `python -m quizkit.docgen cli > docs/cli.md`; a test "
             "keeps it in step.", "", "## quizkit", "", "```text",
             main.get_help(root), "```", "", "## Exit codes", "",
             "Every command follows this one table (`quizkit.catalog.exits`).", "",
             exits.markdown_table()]
    for full, command in commands(main, root, "quizkit"):
        ctx = click.Context(command, info_name=full.removeprefix("quizkit "), parent=root)
        parts += [f"## {full}", "", "```text", command.get_help(ctx), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    if sys.argv[1:] != ["cli"]:
        sys.exit("usage: python -m quizkit.docgen cli")
    sys.stdout.write(cli_reference())
