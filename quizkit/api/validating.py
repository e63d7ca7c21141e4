"""``validate``, ``infer`` and the settings they run with.

Nothing here imports the analysis side (DuckDB): ``quizkit validate`` starts fast. What only
some runs need (the enum inference, a Dask cluster) is imported by the runs that need it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from quizkit.catalog.findings import Report
from quizkit.checks import input_report
from quizkit.checks.documents import SkippedInputs, iter_documents
from quizkit.checks.quarantine import Quarantine
from quizkit.checks.runner import Notes, Size, expand_paths, limits_of, path_list
from quizkit.checks.runner import run as run_validation
from quizkit.history.history_store import series
from quizkit.history.recording import begin
from quizkit.model.profiles import read_profile_file
from quizkit.model.schemas import SchemaBook
from quizkit.outputs.writer import atomic_write, refuse_inputs
from quizkit.outputs.writer import resolve as resolve_output
from quizkit.reporters import parse_reports
from quizkit.reporters.base import Reporter
from quizkit.settings.config import ConfigError, ConfigSource, Rules, Settings, resolve

if TYPE_CHECKING:
    from quizkit.checks.enum_inference import Inferred


def settings(config: ConfigSource = None, *, kind: str | None = None,
             profile: str | os.PathLike[str] | None = None, select: Rules | None = None,
             ignore: Rules | None = None, severity: Mapping[str, str] | Iterable[str] = (),
             fail_on: str | None = None, exclude: Iterable[str] = (),
             include_hidden: bool = False, jobs: int | None = None,
             max_file_size: Size | None = None, max_decompressed_size: Size | None = None,
             max_depth: int | None = None, max_findings: int | None = None,
             baseline: str | os.PathLike[str] | None = None,
             write_baseline: str | os.PathLike[str] | None = None,
             cache_dir: str | os.PathLike[str] | None = None) -> Settings:
    """The settings of a run: the configuration (``config`` as for :func:`validate`), then
    these options, as ``quizkit validate`` takes them. The profile is read here: one that
    cannot be read raises :class:`ConfigError` before any input is walked.

    Every function of the API that reads exports resolves its settings here; one given
    ``config=settings(...)`` uses them as they are.
    """
    return resolve(
        config, kind=kind, profile=profile, select=select, ignore=ignore, severity=severity,
        fail_on=fail_on, exclude=exclude, include_hidden=include_hidden, jobs=jobs,
        limits=limits_of(max_file_size, max_decompressed_size, max_depth, max_findings),
        baseline=baseline, write_baseline=write_baseline, cache_dir=cache_dir)


def validate(paths: Iterable[str] | str, *, config: ConfigSource = None,
             kind: str | None = None, profile: str | os.PathLike[str] | None = None,
             select: Rules | None = None, ignore: Rules | None = None,
             severity: Mapping[str, str] | Iterable[str] = (), fail_on: str | None = None,
             exclude: Iterable[str] = (), include_hidden: bool = False,
             stdin_format: str = "auto", jobs: int | None = None,
             max_file_size: Size | None = None, max_decompressed_size: Size | None = None,
             max_depth: int | None = None, max_findings: int | None = None,
             baseline: str | os.PathLike[str] | None = None,
             write_baseline: str | os.PathLike[str] | None = None,
             format: str | None = None, output: str | None = None,
             reports: Sequence[str] = (), color: str = "auto", show: str = "info",
             quiet: bool = True, verbose: bool = False, progress: bool | None = None,
             reporter: Reporter | None = None, notes: Notes | None = None,
             scheduler: str | None = None, schemas: SchemaBook | None = None,
             cache_dir: str | os.PathLike[str] | None = None,
             cache: bool | None = None, history: str | os.PathLike[str] | None = None,
             dataset: str | None = None,
             write_valid: str | os.PathLike[str] | None = None,
             write_invalid: str | os.PathLike[str] | None = None,
             run: Callable[..., Any] = run_validation) -> Report:
    """Validate files, directories or ``s3://`` URLs (``-`` reads stdin) and return the
    :class:`Report`. ``scheduler`` (``tcp://host:8786``) checks the files on that Dask
    cluster (:mod:`quizkit.cluster.checking`; the cross-file checks still run here).

    The options are those of ``quizkit validate``; ``config`` and the options up to
    ``cache_dir`` are :func:`settings`' (``config=settings(...)`` uses those as given).
    ``format``/``output``/``reports`` write
    reports as the CLI does (``None``: none); ``reporter`` receives the findings instead.
    ``color`` and ``show`` shape the text report as ``--color``/``--show`` do.
    ``max_findings`` caps the findings one file lists (``--max-findings``; 0: no cap).
    ``jobs=None`` uses every core. ``quiet=False`` shows the progress line on a terminal;
    ``progress=True`` draws it on stderr whatever it is, ``False`` never (``--progress``).
    ``notes`` receives the one-line notes the CLI prints on stderr (baseline counts).
    The exit code the CLI would give is ``settings(...).exit_code(report)``.

    ``schemas`` (:func:`schema_book`) keeps the compiled schemas between calls: without it
    each call compiles what it uses (about 2 ms; 20 ms when a document is invalid:
    docs/performance.md).

    The result cache (docs/performance.md) is used when ``cache_dir`` or the configuration's
    ``cache-dir`` names its directory: unlike the CLI, the API writes no cache in the current
    directory unasked. ``cache=True`` uses it as the CLI does (there by default),
    ``cache=False`` turns it off (``--no-cache``).

    ``history`` (a DuckDB file or a folder of Parquet files, local or ``s3://``) records the
    run under ``dataset`` (default: the inputs' common path) with the findings of each rule
    (docs/history.md); a location that is not a history raises
    :class:`~quizkit.history.history_store.HistoryError` before the run.
    ``write_valid`` and ``write_invalid`` split JSON Lines input: each line, byte for byte, to
    the one or the other (invalid: a finding at or above ``fail_on`` on its record).

    ``run`` is what runs with the resolved settings (:func:`quizkit.checks.runner.run`;
    :func:`quizkit.api.team_checking.check` gives the run of ``quizkit check``, which also takes
    its options, reads the history of its change checks and records its metrics).
    """
    s = settings(config, kind=kind, profile=profile, select=select, ignore=ignore,
                 severity=severity, fail_on=fail_on, exclude=exclude,
                 include_hidden=include_hidden, jobs=jobs, max_file_size=max_file_size,
                 max_decompressed_size=max_decompressed_size, max_depth=max_depth,
                 max_findings=max_findings, baseline=baseline, write_baseline=write_baseline,
                 cache_dir=cache_dir)
    paths = path_list(paths)
    recording = begin(history, dataset, paths, inputs=s.files_read,
                      outputs=[*(spec.path for spec in parse_reports(format, output, reports)),
                               s.write_baseline, write_valid, write_invalid])
    quarantine = Quarantine(write_valid, write_invalid, s.fail_on) \
        if write_valid is not None or write_invalid is not None else None
    past = {} if run is run_validation or recording is None else \
        {"past": partial(series, recording.location, recording.dataset)}
    cluster = None
    if scheduler:
        from quizkit.cluster.checking import checking

        cluster = partial(checking, scheduler)
    done = run(
        paths, s, format=format, output=output, reports=reports, color=color, show=show,
        quiet=quiet, verbose=verbose, progress=progress, reporter=reporter, notes=notes,
        cluster=cluster,
        stdin_format=stdin_format, schemas=schemas, cache=cache, quarantine=quarantine,
        **past)
    if recording is not None:
        report = getattr(done, "report", done)
        recording.finish(report, s.exit_code(report), getattr(done, "metrics", None))
    return done


def schema_book(profile: str | os.PathLike[str] | None = None) -> SchemaBook:
    """The schemas of a profile (``None``: every enum open), compiled as they are used, for
    :func:`validate`'s ``schemas``: repeated calls then compile nothing again."""
    return SchemaBook(read_profile_file(profile).enums)


def infer(paths: Iterable[str] | str, *, exclude: Iterable[str] = (),
          include_hidden: bool = False, stdin_format: str = "auto",
          format: str | None = None, output: str | None = None,
          skipped: SkippedInputs | None = None, config: ConfigSource = None,
          baseline: str | os.PathLike[str] | None = None,
          notes: Callable[[str], None] | None = None) -> Inferred:
    """The enum values seen in ``paths`` (``quizkit enums infer``), with counts and examples.

    With ``output``, also writes them there (atomically) in ``format``: ``toml`` (default, a
    profile for ``profile=``) or ``json``. Inputs that cannot be read or parsed are listed in
    ``skipped`` with the reason, documents of unknown kind counted, and reported as
    ``validate`` reports them in ``Inferred.inputs`` (:mod:`quizkit.checks.input_report`; a
    ``baseline`` absorbs the findings it holds). ``exclude``, ``include_hidden`` and
    ``stdin_format`` are the walk's (:mod:`quizkit.inputs.walk`), added to the configuration's
    (``config`` as for :func:`validate`); ``notes`` hears of exclude patterns that matched
    nothing.
    """
    from quizkit.checks.enum_inference import INFER_FORMATS, inferred_text
    from quizkit.checks.enum_inference import infer as infer_values

    if format not in (None, *INFER_FORMATS):
        raise ConfigError(f"unknown format {format!r} (use {', '.join(INFER_FORMATS)})")
    paths = path_list(paths)
    s = settings(config, exclude=exclude, include_hidden=include_hidden)
    sources = expand_paths(paths, s.exclude, s.include_hidden, stdin_format, notes)
    if output is not None:  # a bad output fails now, not after reading the corpus
        resolve_output(output)
        refuse_inputs([output], [*(source.path for source in sources), *s.files_read, baseline])
    skipped = skipped if skipped is not None else SkippedInputs()
    seen = infer_values(iter_documents(sources, skipped))
    seen.inputs = input_report.report(skipped.sources, files=len(sources),
                                      documents=skipped.documents, baseline=baseline)
    if output is not None:
        with atomic_write(output) as fh:
            fh.write(inferred_text(seen, format or "toml", ", ".join(paths)))
    return seen
