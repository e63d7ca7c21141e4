"""The command line: a thin click layer over the library.

Each command group lives in ``quizkit/commands/``; this module only assembles them.
"""

from __future__ import annotations

import click

from quizkit import __version__
from quizkit.commands.analysis import export_command, load_command, query_command, summary
from quizkit.commands.enums import enums
from quizkit.commands.rules import rules
from quizkit.commands.samples import samples
from quizkit.commands.schema import schema
from quizkit.commands.validate import validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="quizkit")
def main() -> None:
    """Check and analyse JSON exports of the quiz package and game service."""


for command in (validate, schema, enums, samples, rules, load_command, summary, query_command,
                export_command):
    main.add_command(command)
