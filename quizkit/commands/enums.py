"""``quizkit enums``: learn the enum values a service really sends."""

from __future__ import annotations

import sys

import click
import orjson

from quizkit.commands.walk_options import stdin_option, walk_options, warn_unmatched
from quizkit.documents import Skipped, iter_documents
from quizkit.enums import infer, profile_toml
from quizkit.output import atomic_write, refuse_inputs, resolve
from quizkit.walk import MissingPath, PatternError, WalkRules, expand

EXIT_INPUT = 3  # an input could not be read or parsed


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
@walk_options
@stdin_option
def infer_command(paths: tuple[str, ...], output: str | None, fmt: str,
                  exclude: tuple[str, ...], include_hidden: bool, stdin_format: str) -> None:
    """Report every enum-typed field's values seen in PATHS, with counts and examples.

    An input that cannot be read or parsed is named on stderr and makes the exit code 3
    (the profile is still written from the rest).
    """
    try:
        inputs = expand(paths, WalkRules(exclude, include_hidden), stdin_format=stdin_format)
    except MissingPath as exc:
        raise click.UsageError(f"no such file or directory: {exc}") from None
    except PatternError as exc:
        raise click.UsageError(str(exc)) from None
    warn_unmatched(inputs.unmatched)
    if output:  # a bad output fails now, not after reading the corpus
        resolve(output)
        refuse_inputs([output], [s.path for s in inputs])
    skipped = Skipped()
    seen = infer(iter_documents(inputs, skipped))
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
    for path, reason in skipped.failed():
        click.echo(f"quizkit: error: skipped {path}: {reason}", err=True)
    if skipped.unknown_kind:
        click.echo(f"quizkit: warning: skipped {skipped.unknown_kind} document(s) of unknown "
                   "kind (run quizkit validate on them)", err=True)
    if skipped.failed():
        sys.exit(EXIT_INPUT)
