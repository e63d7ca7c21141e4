"""``quizkit validate``: check exports and report findings."""

from __future__ import annotations

import sys

import click

from quizkit import engine
from quizkit.enums import ProfileError, load_profile
from quizkit.findings import Severity
from quizkit.reporters import REPORTERS, open_reporters
from quizkit.schemas import KINDS
from quizkit.sources import MissingPath, expand

SEVERITIES = ("error", "warning", "info")


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--kind", type=click.Choice(KINDS), help="Force the document kind instead of "
              "detecting it from the document's shape.")
@click.option("--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text",
              show_default=True, help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write the report to this file instead of stdout.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="error", show_default=True,
              help="Exit 1 when there are findings of this severity or worse.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Skip files and directories matching GLOB while walking directories "
              "(repeatable). Files named explicitly are always checked.")
@click.option("--profile", type=click.Path(dir_okay=False),
              help="Enum profile (TOML, from `quizkit enums infer`): values outside it are "
              "unknown-enum-value findings.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: the number of cores; 1 for stdin].")
def validate(paths: tuple[str, ...], kind: str | None, fmt: str, output: str | None,
             fail_on: str, exclude: tuple[str, ...], profile: str | None,
             jobs: int | None) -> None:
    """Validate exports: files, directories (recursive) or - for stdin.

    Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage or configuration
    error; 3 an input could not be read or parsed.
    """
    try:
        sources = list(expand(paths, exclude))
    except MissingPath as exc:
        raise click.UsageError(f"no such file or directory: {exc}") from None
    try:
        loaded = load_profile(profile) if profile else ()
    except ProfileError as exc:
        raise click.UsageError(str(exc)) from None
    options = engine.Options(kind=kind, profile=loaded)
    with open_reporters(fmt, output) as reporter:
        report = engine.run(sources, options, reporter=reporter, jobs=jobs)
    sys.exit(report.exit_code(Severity.parse(fail_on)))
