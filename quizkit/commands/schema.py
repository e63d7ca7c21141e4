"""``quizkit schema``: list and print the bundled JSON Schemas."""

from __future__ import annotations

from pathlib import Path

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


def _profile_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--profile", type=click.Path(dir_okay=False),
                        help="Enum profile (TOML) whose values close the enums.")(fn)


@schema.command("export")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory to write records/ and documents/ into.")
@_profile_option
def export(out_dir: str, profile: str | None) -> None:
    """Write the bundled schemas, with a profile's enums injected, for other tools."""
    from quizkit.enums import ProfileError, dumps_schema, load_profile
    from quizkit.output import atomic_write, make_directory, refuse_inputs
    from quizkit.schemas import schema_set

    try:
        loaded = load_profile(profile) if profile else ()
    except ProfileError as exc:
        raise click.UsageError(str(exc)) from None
    root = Path(out_dir)
    written = 0
    for uri, s in sorted(schema_set(loaded).items()):
        target = root / uri.removeprefix(BASE_URI)
        make_directory(target.parent)
        if profile:
            refuse_inputs([target], [profile])
        with atomic_write(target) as fh:
            fh.write(dumps_schema(s).decode())
        written += 1
    closed = ", ".join(name for name, _ in loaded) or "none"
    click.echo(f"wrote {written} schemas to {root} (enums closed by the profile: {closed})")


#: Default file patterns of each kind for editor mappings; override with --match KIND=GLOB.
DEFAULT_MATCHES = {
    "package-full": ["**/package-full*.json", "**/*.package-full.json"],
    "version-list": ["**/version-list*.json", "**/versions.json"],
    "version": ["**/version.json", "**/*.version.json"],
    "version-created": ["**/version-created*.json"],
    "game": ["**/game.json", "**/*.game.json", "**/games/*.json"],
    "user-self": ["**/user-self*.json", "**/users/self.json"],
    "user-update": ["**/user-update*.json"],
    "banner": ["**/banner.json", "**/*.banner.json", "**/banners/*.json"],
    "banner-create": ["**/banner-create*.json"],
}


@schema.command("editor")
@click.option("--schemas-dir", default="schemas", show_default=True,
              help="Where the schemas are, as the editor should see the path (for example the "
              "--out of `quizkit schema export`).")
@click.option("--match", "matches", multiple=True, metavar="KIND=GLOB",
              help="File pattern of a kind (repeatable; replaces that kind's defaults).")
def editor(schemas_dir: str, matches: tuple[str, ...]) -> None:
    """Print VS Code `json.schemas` settings mapping export files to the schemas."""
    patterns = {k: list(v) for k, v in DEFAULT_MATCHES.items()}
    given: dict[str, list[str]] = {}
    for spec in matches:
        kind, sep, glob = spec.partition("=")
        if not sep or kind not in KINDS or not glob:
            raise click.UsageError(f"--match {spec!r}: expected KIND=GLOB with KIND one of "
                                   f"{', '.join(KINDS)}")
        given.setdefault(kind, []).append(glob)
    patterns.update(given)
    base = schemas_dir.rstrip("/")
    settings = {"json.schemas": [
        {"fileMatch": patterns[kind], "url": f"./{base}/documents/{kind}.json"}
        for kind in KINDS
    ]}
    click.echo(orjson.dumps(settings, option=orjson.OPT_INDENT_2).decode())
