"""``quizkit schema``: list, print and export the bundled JSON Schemas."""

from __future__ import annotations

import click
import orjson

from quizkit import api
from quizkit.commands.rule_options import config_errors


@click.group()
def schema() -> None:
    """The bundled JSON Schemas (Draft 2020-12)."""


@schema.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also list the record schemas.")
def list_schemas(show_all: bool) -> None:
    """List the document kinds and their schema ids."""
    for name, uri, description in api.schemas(records=show_all):
        if name.startswith("record:"):
            click.echo(f"{name:24} {description}")
        else:
            click.echo(f"{name:16} {uri}  {description}")


@schema.command("show")
@click.argument("name")
def show(name: str) -> None:
    """Print the schema of a document KIND (or of a record, as record:NAME)."""
    try:
        found = api.schema(name)
    except api.ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(orjson.dumps(found, option=orjson.OPT_INDENT_2).decode())


@schema.command("export")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory to write records/ and documents/ into.")
@click.option("--profile", type=click.Path(dir_okay=False),
              help="Enum profile (TOML) whose values close the enums.")
def export(out_dir: str, profile: str | None) -> None:
    """Write the bundled schemas, with a profile's enums injected, for other tools."""
    with config_errors():
        written, closed = api.export_schemas(out_dir, profile=profile)
    click.echo(f"wrote {len(written)} schemas to {out_dir} (enums closed by the profile: "
               f"{', '.join(closed) or 'none'})")


@schema.command("editor")
@click.option("--schemas-dir", default="schemas", show_default=True,
              help="Where the schemas are, as the editor should see the path (for example the "
              "--out of `quizkit schema export`).")
@click.option("--match", "matches", multiple=True, metavar="KIND=GLOB",
              help="File pattern of a kind (repeatable; replaces that kind's defaults).")
def editor(schemas_dir: str, matches: tuple[str, ...]) -> None:
    """Print VS Code `json.schemas` settings mapping export files to the schemas."""
    try:
        settings = api.editor_settings(schemas_dir, matches)
    except api.ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(orjson.dumps(settings, option=orjson.OPT_INDENT_2).decode())
