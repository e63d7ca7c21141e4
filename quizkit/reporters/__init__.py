"""Report formats, one module each; ``REPORTERS`` maps a format name to its class.

:func:`open_reporters` is the one place that turns the command line's ``--format``,
``--output`` and ``--report FORMAT:PATH`` options into the reporters of a run.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from quizkit.catalog.findings import Finding, Report
from quizkit.outputs.interrupts import signals_deferred
from quizkit.outputs.progress import ProgressLine
from quizkit.outputs.writer import AtomicFile, resolve
from quizkit.reporters.base import Reporter, ReportOptions


class _Formats(Mapping[str, type[Reporter]]):
    """Format name → reporter class, each module imported when its format is first used: a
    run writes one or two formats, and importing all of them cost a tenth of a start-up."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._where = where

    def __getitem__(self, name: str) -> type[Reporter]:
        module, cls = self._where[name]
        return getattr(importlib.import_module(f"quizkit.reporters.{module}"), cls)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


#: Each format's module and class (tests/test_report_options.py checks that the class has
#: the name it is listed under).
REPORTERS: Mapping[str, type[Reporter]] = _Formats({
    "text": ("text", "TextReporter"), "concise": ("text", "ConciseReporter"),
    "json": ("json_report", "JsonReporter"), "jsonl": ("jsonl", "JsonLinesReporter"),
    "sarif": ("sarif", "SarifReporter"), "junit": ("junit", "JUnitReporter"),
    "github": ("github", "GitHubReporter"), "markdown": ("markdown", "MarkdownReporter"),
    "service": ("service", "ServiceReporter"),
    "service-jsonl": ("service", "ServiceLinesReporter"),
    "gitlab": ("gitlab", "GitLabReporter"), "html": ("html_report", "HtmlReporter"),
})

STDOUT = "-"


class ReportSpecError(ValueError):
    """A ``--format``/``--output``/``--report`` value that cannot be used (exit code 2)."""


@dataclass(frozen=True, slots=True)
class ReportSpec:
    """One report of a run: a format, and a file path or ``None`` for standard output."""

    format: str
    path: str | None = None

    @property
    def target(self) -> str:
        return self.path if self.path is not None else "standard output"


def _check_format(fmt: str, where: str) -> str:
    name = fmt.strip().lower()
    if name not in REPORTERS:
        raise ReportSpecError(
            f"unknown report format {fmt!r} in {where} (choose from {', '.join(REPORTERS)})")
    return name


def parse_report_spec(spec: str) -> ReportSpec:
    """``FORMAT:PATH`` -> ReportSpec; ``FORMAT:-`` means standard output.

    Only the first ``:`` separates, so ``sarif:C:\\out.sarif`` works.
    """
    fmt, sep, path = spec.partition(":")
    if not sep or not fmt.strip() or not path:
        raise ReportSpecError(f"--report wants FORMAT:PATH (e.g. sarif:out.sarif), got {spec!r}")
    name = _check_format(fmt, f"--report {spec}")
    return ReportSpec(name, None if path == STDOUT else path)


def parse_reports(fmt: str | None, output: str | None,
                  reports: Sequence[str] = ()) -> list[ReportSpec]:
    """Every report of a run, checked: known formats, one report per file, one on stdout.

    ``fmt`` is ``--format`` (``None``: no main report, e.g. under ``--quiet``) and ``output``
    its ``--output`` file. Raises :class:`ReportSpecError` (a ``ValueError``) with a one-line
    message fit for ``click.UsageError``.
    """
    specs: list[ReportSpec] = []
    if fmt is not None:
        name = _check_format(fmt, "--format")
        specs.append(ReportSpec(name, None if output in (None, STDOUT) else output))
    elif output not in (None, STDOUT):
        raise ReportSpecError("--output needs a --format")
    specs += [parse_report_spec(s) for s in reports]

    on_stdout = [s.format for s in specs if s.path is None]
    if len(on_stdout) > 1:
        raise ReportSpecError(
            f"several reports write to standard output ({', '.join(on_stdout)}); "
            "give all but one a file (--report FORMAT:PATH)")
    seen: dict[str, ReportSpec] = {}
    for s in specs:
        if s.path is None:
            continue
        key = os.path.normcase(os.path.abspath(s.path))
        if key in seen:
            raise ReportSpecError(
                f"two reports write to {s.path} ({seen[key].format} and {s.format})")
        if os.path.isdir(s.path):
            raise ReportSpecError(f"cannot write the {s.format} report to {s.path}: "
                                  "it is a directory")
        seen[key] = s
    return specs


class ReporterSet(Reporter):
    """Fans the engine's calls out to several reporters.

    When a progress line is on the terminal, it is cleared before a finding is written to a
    terminal, so that the two do not end up on one line.
    """

    def __init__(self, reporters: list[Reporter], progress: ProgressLine | None = None) -> None:
        super().__init__(sys.stdout)
        self.reporters = reporters
        self.needs_findings = any(r.needs_findings for r in reporters)
        self.needs_files = any(r.needs_files for r in reporters)
        self.snippet_lines = max((r.snippet_lines for r in reporters), default=0)
        self.needs_outlines = any(r.needs_outlines for r in reporters)
        self.progress = progress
        self.finished = False
        self._on_terminal = any(_isatty(r.stream) for r in reporters)

    def start(self) -> None:
        for r in self.reporters:
            r.start()

    def finding(self, finding: Finding) -> None:
        if self.progress is not None and self._on_terminal:
            self.progress.clear()
        for r in self.reporters:
            r.finding(finding)

    def file_done(self, path: str) -> None:
        for r in self.reporters:
            r.file_done(path)

    def finish(self, report: Report) -> None:
        if self.progress is not None:
            self.progress.close()
        for r in self.reporters:
            r.finish(report)
        self.finished = True


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def open_reporters(fmt: str | None, output: str | None = None, reports: Sequence[str] = (),
                   *, options: ReportOptions | None = None, stdout: TextIO | None = None,
                   progress: ProgressLine | None = None) -> Iterator[ReporterSet]:
    """The reporters of one run, every report file written atomically.

    All specs are checked and every file is opened (as a temporary file beside its target, or
    the device or FIFO itself) before the run starts, so a bad spec fails early with a
    :class:`ReportSpecError` and an unwritable target with an
    :class:`quizkit.outputs.writer.OutputError`. The files replace their targets when the block
    ends, or as soon as ``finish`` has run even if the block then raises (the reports are
    complete by then); when the block raises before ``finish`` — an error, Ctrl-C — every
    temporary file is removed and every previous report is left as it was.
    """
    specs = parse_reports(fmt, output, reports)
    for spec in specs:  # every target checked before any is opened (a FIFO blocks on open)
        if spec.path is not None:
            resolve(spec.path)
    options = options or ReportOptions()
    stdout = stdout if stdout is not None else sys.stdout
    files: list[AtomicFile] = []
    reporters: list[Reporter] = []
    try:
        for spec in specs:
            if spec.path is None:
                stream: TextIO = stdout
            else:
                with signals_deferred():  # a stop comes once the file is in ``files``
                    f = AtomicFile(spec.path)
                    files.append(f)
                stream = f.stream  # type: ignore[assignment]
            reporters.append(REPORTERS[spec.format](stream, options))
    except BaseException:
        for f in files:
            f.discard()
        raise

    rset = ReporterSet(reporters, progress)
    try:
        yield rset
    except BaseException:
        if progress is not None:
            progress.close()
        if not rset.finished:
            for f in files:
                f.discard()
            raise
        _commit(files)
        raise
    if progress is not None:
        progress.close()
    _commit(files)
    stdout.flush()


def _commit(files: list[AtomicFile]) -> None:
    try:
        for f in files:
            f.commit()
    finally:
        for f in files:
            f.discard()  # no-op for the committed ones


__all__ = ["REPORTERS", "ReportOptions", "ReportSpec", "ReportSpecError", "Reporter",
           "ReporterSet", "open_reporters", "parse_report_spec", "parse_reports"]
