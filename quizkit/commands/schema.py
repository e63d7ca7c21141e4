"""``quizkit schema``: list and print the bundled JSON Schemas."""

from __future__ import annotations

import click
import orjson

from quizkit.schemas import BASE_URI, KINDS, bundled, schema_id


@click.group()
def schema() -> None:
    """The bundled JSON Schemas (Draft 2020-12)."""


@schema.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also list the record schemas.")
def list_schemas(show_all: bool) -> None:
    """List the document kinds and their schema ids."""
    schemas = bundled()
    for kind in KINDS:
        s = schemas[schema_id(kind)]
        click.echo(f"{kind:16} {s['$id']}  {s['description']}")
    if show_all:
        for uri, s in sorted(schemas.items()):
            if uri.startswith(BASE_URI + "records/"):
                name = uri.rsplit("/", 1)[1].removesuffix(".json")
                click.echo(f"{'record:' + name:24} {s['title']}")


@schema.command("show")
@click.argument("name")
def show(name: str) -> None:
    """Print the schema of a document KIND (or of a record, as record:NAME)."""
    schemas = bundled()
    if name.startswith("record:"):
        uri = f"{BASE_URI}records/{name.removeprefix('record:')}.json"
    else:
        uri = schema_id(name)
    if uri not in schemas:
        raise click.UsageError(
            f"unknown schema {name!r}; kinds: {', '.join(KINDS)} (records: record:NAME, "
            "see `quizkit schema list --all`)"
        )
    click.echo(orjson.dumps(schemas[uri], option=orjson.OPT_INDENT_2).decode())
