"""Docs generated from the code, so they cannot drift: the CLI reference.

``python -m quizkit.docgen cli > docs/cli.md`` rewrites it; a test compares.
"""

from __future__ import annotations

import sys

import click


def _commands(group: click.Group, ctx: click.Context, prefix: str):  # type: ignore[no-untyped-def]
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        full = f"{prefix} {name}"
        yield full, command
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            yield from _commands(command, sub_ctx, full)


def cli_reference() -> str:
    """Markdown: every command's help text, as ``--help`` prints it."""
    from quizkit.cli import main

    root = click.Context(main, info_name="quizkit", terminal_width=100, max_content_width=100,
                         **main.context_settings)
    parts = ["# CLI reference", "",
             "Generated from the code by `python -m quizkit.docgen cli > docs/cli.md`; a test "
             "keeps it in step.", "", "## quizkit", "", "```text",
             main.get_help(root), "```", ""]
    for full, command in _commands(main, root, "quizkit"):
        ctx = click.Context(command, info_name=full.removeprefix("quizkit "), parent=root)
        parts += [f"## {full}", "", "```text", command.get_help(ctx), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    if sys.argv[1:] != ["cli"]:
        sys.exit("usage: python -m quizkit.docgen cli")
    sys.stdout.write(cli_reference())
