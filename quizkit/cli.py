"""The command line: a thin click layer over the library.

Each command group lives in ``quizkit/commands/``; this module only names them. A command's
module is imported when that command runs (or when help lists it), so ``quizkit validate``
starts without loading the corpus generator, enum profiles or DuckDB.
"""

from __future__ import annotations

from importlib import import_module

import click

from quizkit.version import __version__

#: Command name → ``module:attribute`` of its click command.
COMMANDS = {
    "validate": "quizkit.commands.validate:validate",
    "schema": "quizkit.commands.schema:schema",
    "enums": "quizkit.commands.enums:enums",
    "samples": "quizkit.commands.samples:samples",
    "rules": "quizkit.commands.rules:rules",
    "load": "quizkit.commands.analysis:load_command",
    "summary": "quizkit.commands.analysis:summary",
    "query": "quizkit.commands.analysis:query_command",
    "export": "quizkit.commands.analysis:export_command",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS and name not in self.commands:
            module, attribute = COMMANDS[name].split(":")
            self.add_command(getattr(import_module(module), attribute), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizkit")
def main() -> None:
    """Check and analyse JSON exports of the quiz package and game service."""
