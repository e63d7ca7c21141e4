"""``quizkit validate``: check exports and report findings."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from quizkit import api
from quizkit.commands.exit_policy import fail_on_option, input_errors
from quizkit.commands.history_options import history_errors, history_options
from quizkit.commands.limit_options import limit_options
from quizkit.commands.progress_option import progress_option
from quizkit.commands.rule_options import config_errors, rule_options
from quizkit.commands.wait_option import scheduler_address, wait_option
from quizkit.commands.walk_options import stdin_option, walk_options


def validate_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Every option of ``validate`` (``check`` takes them all too)."""
    options = [
        click.option("--kind", type=click.Choice(api.KIND_NAMES),
                     help="Force the document kind instead of detecting it from the "
                          "document's shape."),
        click.option("--format", "fmt", type=click.Choice(sorted(api.REPORTERS)),
                     default="text", show_default=True, help="Report format."),
        click.option("-o", "--output", type=click.Path(dir_okay=False),
                     help="Write the report to this file instead of stdout."),
        fail_on_option,
        click.option("--profile", type=click.Path(dir_okay=False),
                     help="Enum profile (TOML, from `quizkit enums infer`): values outside it "
                          "are unknown-enum-value findings. Its [service] table names "
                          "validation levels and entities for --format service."),
        click.option("-j", "--jobs", type=click.IntRange(1, api.MAX_JOBS), default=None,
                     help=f"Worker processes, at most {api.MAX_JOBS} [default: the number of "
                          "cores, one fewer for check while it loads the files; 1 for stdin]."),
        click.option("--report", "reports", multiple=True, metavar="FORMAT:PATH",
                     help="Also write a report in FORMAT to PATH (repeatable; PATH - is "
                          "stdout)."),
        click.option("--write-valid", type=click.Path(dir_okay=False), metavar="FILE",
                     help="Write each line of the JSON Lines input with no finding at or "
                          "above --fail-on to this file, byte for byte (docs/history.md)."),
        click.option("--write-invalid", type=click.Path(dir_okay=False), metavar="FILE",
                     help="Write each line of the JSON Lines input with a finding at or above "
                          "--fail-on to this file, byte for byte."),
        click.option("--color", type=click.Choice(api.COLOR_CHOICES), default="auto",
                     show_default=True,
                     help="Colour the text report: auto colours on a terminal unless NO_COLOR "
                          "is set."),
        click.option("--show", type=click.Choice(api.SEVERITIES), default="info",
                     show_default=True,
                     help="List findings of this severity or worse in the text report (the "
                          "rest are counted in its summary line; --fail-on is separate)."),
        click.option("--scheduler", envvar="DASK_SCHEDULER_ADDRESS", metavar="ADDRESS",
                     callback=scheduler_address,
                     help="Check the files on this Dask cluster (tcp://host:8786 or tls://; "
                          "default $DASK_SCHEDULER_ADDRESS); the workers read the inputs "
                          "themselves."),
        wait_option,
        click.option("--cache-dir", envvar="QUIZKIT_CACHE_DIR", type=click.Path(),
                     help="Keep the result cache here [default: $QUIZKIT_CACHE_DIR, else the "
                          "config's cache-dir, else .quizkit_cache in the current "
                          "directory]."),
        click.option("--no-cache", is_flag=True,
                     help="Neither read nor write the result cache."),
        click.option("-q", "--quiet", is_flag=True, help="No progress display."),
        click.option("-v", "--verbose", is_flag=True,
                     help="List every file checked on stderr."),
        progress_option, history_options, walk_options, stdin_option, limit_options,
        rule_options,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def run_command(run: Callable[..., Any], paths: tuple[str, ...], *, kind: str | None,
                fmt: str, output: str | None, fail_on: str | None, exclude: tuple[str, ...],
                include_hidden: bool, stdin_format: str, profile: str | None,
                jobs: int | None, reports: tuple[str, ...], write_valid: str | None,
                write_invalid: str | None, color: str, show: str,
                scheduler: str | None, cache_dir: str | None, no_cache: bool, quiet: bool,
                verbose: bool, progress: bool | None, history: str | None,
                dataset: str | None, max_file_size: int, max_decompressed_size: int,
                max_depth: int, max_findings: int,
                config_file: Path | None, select: tuple[str, ...], ignore: tuple[str, ...],
                severity: tuple[str, ...], baseline_file: Path | None,
                write_baseline: Path | None) -> NoReturn:
    """Resolve the settings of :func:`validate_options`, call ``run`` (``api.validate``, or
    ``api.check`` with its own options) with them and exit with the run's code."""
    with config_errors(), history_errors():
        settings = api.settings(
            config_file, kind=kind, profile=profile, select=select, ignore=ignore,
            severity=severity, fail_on=fail_on, exclude=exclude, include_hidden=include_hidden,
            jobs=jobs, max_file_size=max_file_size,
            max_decompressed_size=max_decompressed_size, max_depth=max_depth,
            max_findings=max_findings, baseline=baseline_file, write_baseline=write_baseline,
            cache_dir=cache_dir)
        try:
            with input_errors():
                done = run(
                    paths, config=settings, format=fmt, output=output, reports=reports,
                    color=color, show=show, quiet=quiet, verbose=verbose, progress=progress,
                    notes=lambda line: click.echo(line, err=True), scheduler=scheduler,
                    stdin_format=stdin_format, cache=not no_cache, history=history,
                    dataset=dataset, write_valid=write_valid, write_invalid=write_invalid)
        except (api.ClusterError, api.WaitTimeout, api.WorkersError) as exc:
            api.exits.stop(str(exc), api.exits.USAGE)
    sys.exit(settings.exit_code(getattr(done, "report", done)))


@click.command()
@click.argument("paths", nargs=-1, required=True)
@validate_options
def validate(paths: tuple[str, ...], **options: Any) -> None:
    """Validate exports: files, directories (recursive) or - for stdin.

    Exit codes (docs/cli.md): 0 clean; 1 findings at or above --fail-on; 2 usage or
    configuration error, a path that does not exist; 3 an input could not be read or parsed
    (unless the --baseline holds its finding).
    """
    run_command(api.validate, paths, **options)
