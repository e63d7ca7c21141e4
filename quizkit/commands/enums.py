"""``quizkit enums``: learn the enum values a service really sends."""

from __future__ import annotations

import click
import orjson

from quizkit.documents import Skipped, iter_documents
from quizkit.enums import infer, profile_toml
from quizkit.output import atomic_write, refuse_inputs, resolve
from quizkit.sources import MissingPath, expand


@click.group()
def enums() -> None:
    """Enum profiles: infer the values seen in a corpus, to enforce them with --profile."""


@enums.command("infer")
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the TOML profile to this file (atomically) instead of stdout.")
@click.option("--format", "fmt", type=click.Choice(["toml", "json"]), default="toml",
              show_default=True, help="toml: a profile for --profile; json: values with counts "
              "and an example location each.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip matching files and directories while walking directories.")
def infer_command(paths: tuple[str, ...], output: str | None, fmt: str,
                  exclude: tuple[str, ...]) -> None:
    """Report every enum-typed field's values seen in PATHS, with counts and examples."""
    try:
        sources = list(expand(paths, exclude))
    except MissingPath as exc:
        raise click.UsageError(f"no such file or directory: {exc}") from None
    if output:  # a bad output fails now, not after reading the corpus
        resolve(output)
        refuse_inputs([output], [s.path for s in sources])
    skipped = Skipped()
    seen = infer(iter_documents(sources, skipped))
    if fmt == "json":
        text = orjson.dumps({"files": seen.files, "documents": seen.documents,
                             "enums": seen.to_dict()}, option=orjson.OPT_INDENT_2).decode()
    else:
        text = profile_toml(seen, ", ".join(paths))
    if output:
        with atomic_write(output) as fh:
            fh.write(text)
        click.echo(f"wrote {output}: {len(seen.counts)} enums from {seen.documents} documents",
                   err=True)
    else:
        click.echo(text, nl=not text.endswith("\n"))
    lost = skipped.unreadable + skipped.unparseable + skipped.unknown_kind
    if lost:
        click.echo(f"skipped {lost} inputs that could not be read, parsed or recognised "
                   "(run quizkit validate on them)", err=True)
