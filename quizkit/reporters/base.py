"""What every reporter implements, and what several reporters share.

The engine calls ``start`` once, ``finding`` for each finding as soon as it is final (files in
input order, so the stream is deterministic), ``file_done`` after each file, and ``finish``
once with the whole report. Streaming formats write in ``finding``; whole-document formats
write in ``finish``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TextIO

from quizkit.catalog.findings import Finding, Report, Severity
from quizkit.catalog.rule import Rule
from quizkit.rules import REGISTRY


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """Settings that some formats use; every reporter receives the same object.

    ``root`` is the directory that report paths are made relative to (SARIF, GitHub
    annotations): the working directory, which in CI is the repository's checkout.
    """

    root: Path = field(default_factory=Path.cwd)
    #: Markdown: how many findings to list, and how many files in "worst files".
    max_listed: int = 50
    worst_files: int = 10
    #: SARIF: GitHub code scanning rejects uploads with more results than this in a run.
    sarif_max_results: int = 25_000
    #: Text: ``auto`` (colour on a terminal unless NO_COLOR is set), ``always`` or ``never``.
    color: str = "auto"
    #: Text: findings below this severity are not listed (they are still counted).
    show: Severity = Severity.INFO
    #: Text: the config file of the run, named at the head of the report (``None``: none).
    config: Path | None = None
    #: The run's own rules beside the catalog: the team's checks of the configuration.
    rules: tuple[Rule, ...] = ()
    #: The paths of this run made relative to ``root`` (see :meth:`relative`), kept here, with
    #: the run, rather than in a module-level cache.
    relatives: dict[str, tuple[str, bool]] = field(default_factory=dict, repr=False,
                                                   compare=False)

    def relative(self, path: str) -> tuple[str, bool]:
        """:func:`relative_path` of ``path`` to :attr:`root`, worked out once per path."""
        hit = self.relatives.get(path)
        if hit is None:
            hit = self.relatives[path] = relative_path(path, self.root)
        return hit


class Reporter:
    """Base class: subclasses set ``name`` and ``description`` and override what they need."""

    name = ""
    #: One line for ``--help`` and docs/reports.md.
    description = ""
    #: True when the reporter needs the findings kept in memory until ``finish``.
    needs_findings = True
    #: True when the reporter needs every file's result (``Report.files``) at ``finish``;
    #: the counts (``Report.summary``) are always there.
    needs_files = True
    #: Source lines either side of each finding that the reporter shows (``Finding.snippet``);
    #: 0 for none, so the engine does not cut them.
    snippet_lines = 0
    #: True when the reporter makes the service's blocks (``Report.outlines``), so the engine
    #: outlines every document that holds versions.
    needs_outlines = False

    def __init__(self, stream: TextIO, options: ReportOptions | None = None) -> None:
        self.stream = stream
        self.options = options or ReportOptions()

    def start(self) -> None:
        """Called before the first file is checked."""

    def finding(self, finding: Finding) -> None:
        """Called for each finding, in the report's order, as soon as it is known."""

    def file_done(self, path: str) -> None:
        """Called when a file has been checked and all its findings were given."""

    def finish(self, report: Report) -> None:
        """Called once at the end with the complete report."""


class LineReporter(Reporter):
    """A report of one line per finding, written and flushed as soon as the finding is known
    (nothing kept in memory): subclasses say what the line is."""

    needs_findings = False
    needs_files = False

    def line(self, finding: Finding) -> str:
        """The finding's line, without the newline."""
        raise NotImplementedError

    def finding(self, finding: Finding) -> None:
        self.stream.write(self.line(finding) + "\n")
        self.stream.flush()


def rule_of(finding: Finding) -> Rule | None:
    """The catalog rule of a finding (by its code or its rule, whichever the catalog knows)."""
    return _lookup(finding.code, finding.rule)


def _lookup(code: str, rule: str) -> Rule | None:
    for key in (code, rule):
        if key:
            try:
                return REGISTRY.get(key)
            except KeyError:
                continue
    return None


def rule_code(finding: Finding) -> str:
    """The stable rule code of a finding (``S001``), or what it carries when not catalogued."""
    r = rule_of(finding)
    return r.code if r else (finding.code or finding.rule)


def rule_label(finding: Finding) -> str:
    """``S001 wrong-type``: code and name, for titles people read."""
    r = rule_of(finding)
    return f"{r.code} {r.name}" if r else (finding.code or finding.rule)


def relative_path(path: str, root: Path) -> tuple[str, bool]:
    """``path`` as a POSIX path relative to ``root``, and whether it lies inside ``root``.

    Paths outside ``root`` (or not on disk at all, such as ``<stdin>``) come back as they
    were, made absolute only when they are real paths outside ``root``.
    """
    if path in ("-", "<stdin>") or path.startswith("<"):
        return path, False
    p = PurePath(path)
    absolute = Path(os.path.abspath(p))
    try:
        rel = absolute.relative_to(Path(os.path.abspath(root)))
    except ValueError:
        return absolute.as_posix(), False
    return rel.as_posix(), True
