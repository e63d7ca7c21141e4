"""The page of ``quizkit history --format html`` in a real headless Chromium: self-contained,
a drawn chart per metric that moved, the runs' table as the JSON output has them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import Browser, Page, chromium
from tests.conftest import INVALID, SAMPLES


def quizkit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True, env={**os.environ, "CI": "true"}, timeout=300)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


def _clean(page: Page) -> None:
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    assert page.resource_entries() == []


def test_history_page(browser: Browser, tmp_path: Path) -> None:
    location = tmp_path / "history.duckdb"
    runs = [[SAMPLES / "banner.json"],
            [INVALID / "package-negative-audio-size.json"],
            [INVALID / "package-negative-audio-size.json", INVALID / "user-without-pkgcount.json"]]
    for paths in runs:
        quizkit("validate", *map(str, paths), "--history", str(location), "--dataset", "nightly")
    out = tmp_path / "history.html"
    proc = quizkit("history", "--history", str(location), "--format", "html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(quizkit("history", "--history", str(location), "--format", "json").stdout)
    moved = sorted({m["metric"] for m in data["metrics"] if m["value"]})
    assert len(moved) >= 2
    page = browser.open(out)
    _clean(page)
    charts = page.js("""
        const out = {};
        for (const fig of document.querySelectorAll('figure.chart')) {
          const marks = fig.querySelectorAll('g[class*="mark-line"] path');
          const points = fig.querySelectorAll('g[class*="mark-symbol"] path');
          out[fig.dataset.chart] = {
            line: Array.from(marks, m => m.getBBox().width),
            points: points.length};
        }
        return out;""")
    assert sorted(charts) == [f"metric-{name}" for name in moved]
    for name, chart in charts.items():
        assert chart["points"] == 3, name  # one point per run
        assert chart["line"] and max(chart["line"]) > 100, name  # drawn across the runs
    cells = page.js("""return Array.from(document.querySelectorAll('#runs tbody tr'),
                                   tr => tr.cells[4].textContent);""")
    assert cells == [str(r["exit_code"]) for r in data["runs"]]
    page.screenshot("history")
