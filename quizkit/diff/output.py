"""The diff's reports through the one output layer: ``--format``/``-o`` and ``--report
FORMAT:PATH`` are checked as ``validate`` checks them (:func:`quizkit.reporters.parse_reports`),
before any work, and every file is written atomically (:mod:`quizkit.outputs.writer`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

import orjson

from quizkit.diff.page import html
from quizkit.diff.result import DiffResult
from quizkit.diff.text_diff import markdown, text
from quizkit.outputs.writer import atomic_write, refuse_inputs, resolve
from quizkit.reporters import ReportSpec, ReportSpecError, parse_reports

FORMATS = ("text", "json", "jsonl", "markdown", "html")


def _dumps(value: Any, indent: bool) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(value, indent=2 if indent else None, ensure_ascii=False)


def render(result: DiffResult, fmt: str, *, color: str = "never",
           stream: TextIO | None = None) -> str:
    """The report in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "json":
        return _dumps(result.to_dict(), True) + "\n"
    if fmt == "jsonl":
        return "".join(_dumps(c.to_dict(), False) + "\n" for c in result.changes)
    if fmt == "markdown":
        return markdown(result)
    if fmt == "html":
        return html(result)
    return text(result, color=color, stream=stream)


def plan(fmt: str | None, output: str | None, reports: Sequence[str],
         inputs: Iterable[str]) -> list[ReportSpec]:
    """The reports of a run, checked before any work: known formats, one on standard output,
    writable targets, none of them an input. Raises
    :class:`~quizkit.reporters.ReportSpecError` or :class:`~quizkit.outputs.writer.OutputError`."""
    specs = parse_reports(fmt, output, reports)
    for spec in specs:
        if spec.format not in FORMATS:
            raise ReportSpecError(f"diff writes no {spec.format} report (choose from "
                                  f"{', '.join(FORMATS)})")
        if spec.path is not None:
            resolve(spec.path)
    refuse_inputs([s.path for s in specs], list(inputs))
    return specs


def write(result: DiffResult, specs: Sequence[ReportSpec], *, color: str = "auto") -> None:
    """Write each report: a file atomically, standard output as it is."""
    for spec in specs:
        if spec.path is None:
            sys.stdout.write(render(result, spec.format, color=color, stream=sys.stdout))
        else:
            with atomic_write(spec.path) as fh:
                fh.write(render(result, spec.format, color="never"))
