"""``quizkit rules``: the rule catalog.

``quizkit rules --format markdown > docs/rules.md`` generates the rules page; a test keeps the
page and the catalog in step.
"""

from __future__ import annotations

import click

from quizkit import api
from quizkit.commands.rule_options import config_errors, config_option


@click.command("rules")
@click.argument("rule_id", required=False, metavar="[CODE-OR-NAME]")
@click.option("--format", "fmt", type=click.Choice(api.RULE_FORMATS), default="text",
              show_default=True,
              help="Output format.")
@config_option
def rules(rule_id: str | None, fmt: str, config_file: object) -> None:
    """List the rule catalog and the configuration's own checks, or explain one rule (by
    code or name)."""
    with config_errors():
        text = api.rules(rule_id, format=fmt, config=config_file)
    click.echo(text, nl=False)
