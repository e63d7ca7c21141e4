"""One ``validate`` run: settings → sources, profile, baseline, reporters → engine → Report.

:func:`run` is what ``quizkit.validate`` (:func:`quizkit.api.validate`) does after resolving
the settings. This module stays free of the analysis side (DuckDB), so ``quizkit validate``
starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext

from quizkit.cache import ResultCache
from quizkit.cache import choose as choose_cache_dir
from quizkit.catalog.display import printable
from quizkit.catalog.findings import Finding, Report
from quizkit.checks import engine
from quizkit.checks.baseline import Baseline, Recorder
from quizkit.checks.quarantine import Quarantine
from quizkit.inputs.limits import Limits, parse_size
from quizkit.inputs.sources import Source
from quizkit.inputs.walk import WalkRules, expand, unmatched_lines
from quizkit.model.profiles import read_profile_file
from quizkit.model.schemas import SchemaBook
from quizkit.outputs.progress import ProgressLine
from quizkit.outputs.writer import refuse_inputs
from quizkit.reporters import open_reporters, parse_reports
from quizkit.reporters.base import Reporter, ReportOptions
from quizkit.reporters.service import configure as configure_service
from quizkit.settings import config as config_mod
from quizkit.settings.config import ConfigError, Settings

Notes = Callable[[str], None]
#: Connects to a cluster for the ``with`` block and gives the ``check_many`` of its workers
#: (:func:`quizkit.cluster.checking.checking`).
ClusterOpener = Callable[[], AbstractContextManager[engine.CheckMany]]
Size = int | str


def _size(value: Size, name: str) -> int:
    if isinstance(value, int):
        return value
    try:
        return parse_size(value)
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}") from None


def limits_of(max_file_size: Size | None = None, max_decompressed_size: Size | None = None,
              max_depth: int | None = None, max_findings: int | None = None) -> Limits | None:
    """The :class:`Limits` these options ask for (``None``: none given, keep the defaults)."""
    if max_file_size is None and max_decompressed_size is None and max_depth is None \
            and max_findings is None:
        return None
    if max_findings is not None and (isinstance(max_findings, bool)
                                     or not isinstance(max_findings, int) or max_findings < 0):
        raise ConfigError(f"max_findings must be a whole number of 0 or more (0: no cap), "
                          f"got {max_findings!r}")
    default = Limits()
    return Limits(
        max_file_size=default.max_file_size if max_file_size is None
        else _size(max_file_size, "max-file-size"),
        max_decompressed=default.max_decompressed if max_decompressed_size is None
        else _size(max_decompressed_size, "max-decompressed-size"),
        max_depth=default.max_depth if max_depth is None else max_depth,
        max_findings=default.max_findings if max_findings is None else max_findings)


def schema_book(profile: str | os.PathLike[str] | None = None) -> SchemaBook:
    """The schemas of a profile (``None``: every enum open), compiled as they are used, for
    :func:`validate`'s ``schemas``: repeated calls then compile nothing again."""
    return SchemaBook(read_profile_file(profile).enums)


def path_list(paths: Iterable[str] | str) -> list[str]:
    """Paths as the API takes them (one path, or several) → a list."""
    return [paths] if isinstance(paths, str) else list(paths)


def expand_paths(paths: Iterable[str] | str, exclude: Iterable[str],
                 include_hidden: bool = False, stdin_format: str = "auto",
                 notes: Notes | None = None) -> list[Source]:
    """The sources under ``paths`` (directories walked by :mod:`quizkit.inputs.walk`, ``exclude``
    patterns left out); ``notes`` hears of each pattern that matched nothing.
    Raises :class:`~quizkit.inputs.sources.MissingPath`,
    :class:`~quizkit.inputs.walk.PatternError`."""
    inputs = expand(path_list(paths), WalkRules(tuple(exclude), include_hidden),
                    stdin_format=stdin_format)
    if notes is not None:
        for line in unmatched_lines(inputs.unmatched):
            notes(line)
    return inputs.sources


def _result_cache(s: Settings, cache: bool | None, paths: list[str],
                  say: Notes) -> ResultCache | None:
    """The run's result cache, if it has one (``cache`` as :func:`run` takes it)."""
    if cache is False or (cache is None and s.cache_dir is None):
        return None
    directory, warning = choose_cache_dir(s.cache_dir, paths)
    if warning is not None:
        say(warning)
    return None if directory is None else ResultCache(directory, say)


def run(paths: Iterable[str] | str, s: Settings, *, format: str | None = None,
        output: str | None = None, reports: Sequence[str] = (), color: str = "auto",
        show: str = "info", quiet: bool = True, verbose: bool = False,
        progress: bool | None = None,
        reporter: Reporter | None = None, notes: Notes | None = None,
        cluster: ClusterOpener | None = None, stdin_format: str = "auto",
        schemas: SchemaBook | None = None,
        check_many: engine.CheckMany | None = None, cache: bool | None = None,
        sources: list[Source] | None = None, quarantine: Quarantine | None = None,
        extra: Iterable[Finding] = ()) -> Report:
    """Validate ``paths`` with resolved settings (what :func:`validate` does after resolving);
    ``schemas``: compiled for the settings' profile (default: made for this run).

    ``check_many`` checks the files on a cluster already connected
    (:func:`quizkit.cluster.checking.check_many`); ``cluster`` connects to one.
    ``cache``: ``True`` uses the result cache (in the settings' ``cache_dir``, else the
    default place), ``None`` only when the settings name a directory, ``False`` never; a
    run on a cluster is not cached. ``sources``: the inputs already walked (by ``load``,
    which reads the same files), instead of ``paths``. ``quarantine`` writes each line of
    the JSON Lines inputs to its valid or invalid file at the end of the run. ``extra``:
    findings made outside the pass (a team's checks), reported with the others, through the
    same settings and baseline.
    """
    if sources is None:
        sources = expand_paths(paths, s.exclude, s.include_hidden, stdin_format, notes)
    writing = format is not None or output is not None or bool(reports)
    outputs = [spec.path for spec in parse_reports(format, output, reports)] if writing else []
    if quarantine is not None:
        quarantine.check_inputs(sources)
        outputs += quarantine.outputs
    refuse_inputs([*outputs, s.write_baseline],
                  [*(source.path for source in sources), *s.files_read])
    loaded = config_mod.profile_of(s)
    if schemas is None:
        schemas = SchemaBook(loaded.enums)
    elif schemas.profile != loaded.enums:
        raise ConfigError("schemas: the schema book was made for another enum profile "
                          "(make it with schema_book(profile) for the run's profile)")
    known = Baseline.load(s.baseline) if s.baseline is not None else None
    recorder = Recorder(s.write_baseline) if s.write_baseline is not None else None
    adjuster = s.adjuster()
    adjust = config_mod.chain(None if adjuster.is_noop else adjuster, known, recorder,
                              quarantine)
    options = engine.Options(kind=s.kind, profile=loaded.enums, limits=s.limits,
                             service=loaded.service)
    progress_line = ProgressLine.for_run(len(sources), quiet=quiet, verbose=verbose,
                                     force=progress)
    view = ReportOptions(color=color, show=config_mod.parse_level(show, f"show level {show!r}"),
                         config=s.source, rules=s.team_rules)
    if verbose and notes is not None:
        notes(f"config: {printable(str(s.source)) if s.source else 'none'}")
    opened = open_reporters(format, output, reports, options=view, progress=progress_line) \
        if writing else nullcontext(reporter)
    say = notes or (lambda _line: None)

    def say_during(line: str) -> None:
        """A note while the run goes on: the progress line is erased first."""
        progress_line.clear()
        say(line)

    results = None if cluster is not None or check_many is not None else \
        _result_cache(s, cache, path_list(paths), say_during)
    with ExitStack() as stack:
        # The line is erased however the run ends: its close is due before the line is drawn,
        # so a stop in the moment after the draw, before ``enter_context`` has made its exit
        # due, still erases it.
        stack.callback(progress_line.close)
        stack.enter_context(progress_line)
        if cluster is not None:  # before any output is opened: an unreachable cluster
            check_many = stack.enter_context(cluster())  # writes nothing
        target = stack.enter_context(opened)
        if target is not None:
            configure_service(target, names=loaded.service)
        if quarantine is not None:
            stack.enter_context(quarantine.opened())
        report = engine.run(sources, options, reporter=target, jobs=s.jobs, adjust=adjust,
                            on_file=progress_line.on_file, check_many=check_many,
                            schemas=schemas, cache=results, extra=extra)
        if quarantine is not None:
            quarantine.write(sources, s.limits)
    if verbose and results is not None:
        hits = results.counts["hit"]
        say(f"result cache: {hits} of {hits + results.counts['miss']} files unchanged since "
            f"their last check, in {results.directory}")
    if recorder is not None:
        recorder.write()
        n = sum(recorder.counts.values())
        say(f"baseline: wrote {n} finding{'s' * (n != 1)} to {recorder.file}")
    if known is not None and (known.matched or known.gone):
        say(f"baseline: {known.matched} known finding{'s' * (known.matched != 1)} not "
            f"reported; {known.gone} no longer occur")
    return report
