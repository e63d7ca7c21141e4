"""``quizkit validate``: check exports and report findings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from quizkit import engine
from quizkit.commands.limit_options import limit_options
from quizkit.commands.rules import rule_options, rule_run
from quizkit.commands.walk_options import stdin_option, walk_options, warn_unmatched
from quizkit.config import OPTIONS, Settings
from quizkit.enums import ProfileError, load_profile
from quizkit.findings import Severity
from quizkit.limits import Limits
from quizkit.output import refuse_inputs
from quizkit.progress import Progress
from quizkit.reporters import (
    REPORTERS,
    ReportOptions,
    ReportSpecError,
    open_reporters,
    parse_reports,
)
from quizkit.reporters.service import configure as configure_service
from quizkit.reporters.text import COLOR_CHOICES
from quizkit.schemas import KINDS
from quizkit.service import ServiceTableError, load_names
from quizkit.sources import Source
from quizkit.walk import MissingPath, PatternError, WalkRules, expand

SEVERITIES = ("error", "warning", "info")
OPTIONS.update({"exclude", "include-hidden", "profile"})


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--kind", type=click.Choice(KINDS), help="Force the document kind instead of "
              "detecting it from the document's shape.")
@click.option("--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text",
              show_default=True, help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write the report to this file instead of stdout.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
              help="Exit 1 when there are findings of this severity or worse "
                   "[default: the config's fail-on, else error].")
@click.option("--profile", type=click.Path(dir_okay=False),
              help="Enum profile (TOML, from `quizkit enums infer`): values outside it are "
              "unknown-enum-value findings. Its [service] table names validation levels and "
              "entities for --format service.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: the number of cores; 1 for stdin].")
@click.option("--report", "reports", multiple=True, metavar="FORMAT:PATH",
              help="Also write a report in FORMAT to PATH (repeatable; PATH - is stdout).")
@click.option("--color", type=click.Choice(COLOR_CHOICES), default="auto", show_default=True,
              help="Colour the text report: auto colours on a terminal unless NO_COLOR is set.")
@click.option("--show", type=click.Choice(SEVERITIES), default="info", show_default=True,
              help="List findings of this severity or worse in the text report (the rest are "
                   "counted in its summary line; --fail-on is separate).")
@click.option("-q", "--quiet", is_flag=True, help="No progress display.")
@click.option("-v", "--verbose", is_flag=True, help="List every file checked on stderr.")
@walk_options
@stdin_option
@limit_options
@rule_options
def validate(paths: tuple[str, ...], kind: str | None, fmt: str, output: str | None,
             fail_on: str | None, exclude: tuple[str, ...], include_hidden: bool,
             stdin_format: str, profile: str | None, jobs: int | None,
             reports: tuple[str, ...], color: str, show: str, quiet: bool, verbose: bool,
             limits: Limits, **rule_opts: Any) -> None:
    """Validate exports: files, directories (recursive) or - for stdin.

    Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage or configuration
    error; 3 an input could not be read or parsed.
    """
    try:
        with rule_run(fail_on, **rule_opts) as rules:
            sources, options = _inputs(paths, WalkRules(exclude, include_hidden),
                                       stdin_format, profile, kind, rules.settings, limits)
            outputs = [s.path for s in parse_reports(fmt, output, reports)]
            refuse_inputs([*outputs, rule_opts.get("write_baseline")],
                          [s.path for s in sources])
            progress = Progress.for_run(len(sources), quiet=quiet, verbose=verbose)
            view = ReportOptions(color=color, show=Severity.parse(show))
            with open_reporters(fmt, output, reports, options=view,
                                progress=progress) as reporter:
                configure_service(reporter, names=options.service, kind=kind)
                report = engine.run(sources, options, reporter=reporter, jobs=jobs,
                                    adjust=rules.adjust, on_file=progress.on_file)
    except ReportSpecError as exc:
        raise click.UsageError(str(exc)) from None
    sys.exit(rules.finish(report.exit_code(rules.settings.fail_on_severity())))


def _inputs(paths: tuple[str, ...], walk: WalkRules, stdin_format: str,
            profile: str | None, kind: str | None, settings: Settings,
            limits: Limits) -> tuple[list[Source], engine.Options]:
    """Sources and engine options from the command line, then the config file.

    The config's ``exclude`` adds to ``--exclude``; its ``include-hidden`` applies unless
    ``--include-hidden`` is given; its ``profile`` (relative to the config file) applies when
    ``--profile`` is not given.
    """
    configured = settings.extra.get("exclude", [])
    if not isinstance(configured, list) or not all(isinstance(g, str) for g in configured):
        raise click.UsageError(f"exclude in {settings.source} must be an array of strings")
    hidden = settings.extra.get("include-hidden", False)
    if not isinstance(hidden, bool):
        raise click.UsageError(f"include-hidden in {settings.source} must be true or false")
    rules = WalkRules(exclude=(*walk.exclude, *configured),
                      include_hidden=walk.include_hidden or hidden)
    if profile is None and "profile" in settings.extra:
        base = settings.source.parent if settings.source else Path.cwd()
        profile = str(base / str(settings.extra["profile"]))
    try:
        inputs = expand(paths, rules, stdin_format=stdin_format)
    except MissingPath as exc:
        raise click.UsageError(f"no such file or directory: {exc}") from None
    except PatternError as exc:
        raise click.UsageError(str(exc)) from None
    warn_unmatched(inputs.unmatched)
    try:
        loaded = load_profile(profile) if profile else ()
        names = load_names(profile) if profile else None
    except (ProfileError, ServiceTableError) as exc:
        raise click.UsageError(str(exc)) from None
    return inputs.sources, engine.Options(kind=kind, profile=loaded, limits=limits, service=names)
