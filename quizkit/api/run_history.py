"""``history``: the runs a run history holds, with each metric over them."""

from __future__ import annotations

import os

from quizkit.history.trends import HistoryView, show_history


def history(history: str | os.PathLike[str], *, dataset: str | None = None,
            last: int | None = None, format: str = "text",
            output: str | os.PathLike[str] | None = None) -> HistoryView:
    """The runs of a run history (``quizkit history``; recorded by ``validate(history=...)``)
    with each metric over them, as ``format`` (text, json, csv, markdown, html) text, also
    written to ``output``: only the runs of ``dataset``, the ``last`` newest. Raises
    :class:`~quizkit.history.history_store.HistoryError` for a location that is no history.
    """
    return show_history(os.fspath(history), dataset=dataset, last=last, format=format,
                        output=output)
