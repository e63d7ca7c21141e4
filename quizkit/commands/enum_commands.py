"""``quizkit enums``: learn the enum values a service really sends."""

from __future__ import annotations

from pathlib import Path

import click

from quizkit import api
from quizkit.commands.exit_policy import end_with, input_errors
from quizkit.commands.rule_options import baseline_option, config_option
from quizkit.commands.walk_options import stdin_option, walk_options


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
@config_option
@baseline_option
def infer_command(paths: tuple[str, ...], output: str | None, fmt: str,
                  exclude: tuple[str, ...], include_hidden: bool, stdin_format: str,
                  config_file: Path | None, baseline_file: Path | None) -> None:
    """Report every enum-typed field's values seen in PATHS, with counts and examples.

    An input that cannot be read or parsed is reported on stderr as `quizkit validate`
    reports it, and makes the exit code 3 unless the --baseline holds its finding (the
    profile is still written from the rest).
    """
    skipped = api.SkippedInputs()
    with input_errors():
        seen = api.infer(paths, exclude=exclude, include_hidden=include_hidden,
                         stdin_format=stdin_format, format=fmt, output=output,
                         skipped=skipped, config=config_file, baseline=baseline_file,
                         notes=lambda line: click.echo(line, err=True))
    if output:
        click.echo(f"wrote {output}: {len(seen.counts)} enums from {seen.documents} documents",
                   err=True)
    else:
        text = api.inferred_text(seen, fmt, ", ".join(paths))
        click.echo(text, nl=not text.endswith("\n"))
    if skipped.unknown_kind:
        click.echo(f"quizkit: warning: skipped {skipped.unknown_kind} document(s) of unknown "
                   "kind (run quizkit validate on them)", err=True)
    assert seen.inputs is not None
    end_with(seen.inputs)
