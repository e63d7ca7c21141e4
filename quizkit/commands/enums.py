"""``quizkit enums``: learn the enum values a service really sends."""

from __future__ import annotations

import click

from quizkit import api
from quizkit.documents import Skipped
from quizkit.sources import MissingPath


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
    skipped = Skipped()
    try:
        seen = api.infer(paths, exclude=exclude, format=fmt, output=output, skipped=skipped)
    except MissingPath as exc:
        raise click.UsageError(f"no such file or directory: {exc}") from None
    if output:
        click.echo(f"wrote {output}: {len(seen.counts)} enums from {seen.documents} documents",
                   err=True)
    else:
        text = api.inferred_text(seen, fmt, ", ".join(paths))
        click.echo(text, nl=not text.endswith("\n"))
    lost = skipped.unreadable + skipped.unparseable + skipped.unknown_kind
    if lost:
        click.echo(f"skipped {lost} inputs that could not be read, parsed or recognised "
                   "(run quizkit validate on them)", err=True)
