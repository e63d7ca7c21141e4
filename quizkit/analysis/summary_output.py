"""What ``quizkit summary`` writes, for the CLI and the API alike: the text of the summaries
in a format (``html``: a page with charts), or every chart as files."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from quizkit.analysis import summaries
from quizkit.analysis.sections import Section
from quizkit.outputs.writer import make_directory, refuse_inputs, write_bytes
from quizkit.pages.formats import FORMATS, render
from quizkit.pages.html_summary import charts_of, render_page

SUMMARY_FORMATS = (*FORMATS, "html")


def summary_text(groups: list[tuple[str, list[Section]]], fmt: str,
                 section: str | None = None) -> str:
    """The summaries in ``groups`` as ``fmt``; ``section``: only that section (named as
    :func:`quizkit.analysis.summaries.flatten` names it). Raises ValueError for an unknown
    format or section."""
    if fmt not in SUMMARY_FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use {', '.join(SUMMARY_FORMATS)})")
    if section is not None:
        known = [s.name for s in summaries.flatten(groups)]
        if section not in known:
            raise ValueError(f"no section {section!r} (sections: {', '.join(known)})")
        groups = summaries.only(groups, section)
    if fmt == "html":
        return render_page(groups)
    return render(summaries.flatten(groups), fmt, titles=section is None)


def write_charts(groups: list[tuple[str, list[Section]]], out_dir: str | Path, *,
                 inputs: Iterable[str | os.PathLike[str] | None] = (),
                 read_trees: Iterable[str | os.PathLike[str] | None] = ()) -> list[Path]:
    """Every chart of ``groups`` as ``DIR/summary.section.svg`` and ``.png``; the paths.

    None is written if one of them would be one of the run's ``inputs`` or lie in one of its
    ``read_trees`` (:func:`quizkit.output.refuse_inputs`)."""
    charts = [(Path(out_dir) / f"{chart.name}{suffix}", chart, suffix)
              for chart in charts_of(groups) for suffix in (".svg", ".png")]
    refuse_inputs([path for path, _, _ in charts], inputs, read_trees=read_trees)
    make_directory(out_dir)
    for path, chart, suffix in charts:
        write_bytes(path, chart.svg().encode() if suffix == ".svg" else chart.png())
    return [path for path, _, _ in charts]
