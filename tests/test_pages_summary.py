"""Summary pages with charts, opened in a real headless Chromium; chart files; --every."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By

from quizkit import api
from quizkit.analysis.charts import CHARTS
from quizkit.config import ConfigError
from quizkit.numbers import thousands
from tests.browser import Browser, Page, chromium

HOSTILE = "<script>alert(1)</script> & <b>bold</b>"


def quizkit(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quizkit", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated corpus whose largest package is named with markup, loaded into DuckDB."""
    base = tmp_path_factory.mktemp("pages")
    corpus = base / "corpus"
    made = quizkit("samples", "generate", "--packages", "25", "--seed", "7", "--out",
                   str(corpus))
    assert made.returncode == 0, made.stderr
    files = sorted((corpus / "packages").glob("*.json"))
    biggest = max(files, key=lambda p: sum(json.loads(p.read_text())["meta"]["size"].values()))
    doc = json.loads(biggest.read_text())
    doc["name"] = HOSTILE
    biggest.write_text(json.dumps(doc))
    loaded = quizkit("load", str(corpus), "--db", str(base / "q.duckdb"))
    assert loaded.returncode == 0, loaded.stderr
    return base / "q.duckdb"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


def summary_json(db: Path, name: str, *args: str) -> dict:
    proc = quizkit("summary", name, "--db", str(db), "--format", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _clean(page: Page) -> None:
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    assert page.resource_entries() == []


def _charts(page: Page) -> dict[str, list[dict]]:
    """Per chart: the size of each of its marks, as the browser lays them out."""
    return page.js("""
        const out = {};
        for (const fig of document.querySelectorAll('figure.chart')) {
          const svg = fig.querySelector(':scope > svg');
          out[fig.dataset.chart] = svg === null ? null : Array.from(
            svg.querySelectorAll('g[class*="mark-"] path, g[class*="mark-"] rect'),
            m => { const b = m.getBBox(); return {w: b.width, h: b.height}; });
        }
        return out;""")


def test_summary_all_page(browser: Browser, db: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    proc = quizkit("summary", "all", "--db", str(db), "--format", "html", "-o", str(out),
                   "--top", "40")
    assert proc.returncode == 0, proc.stderr
    page = browser.open(out)
    _clean(page)
    charts = _charts(page)
    every = summary_json(db, "all", "--top", "40")
    expected = {name for name, rows in every.items()
                if rows and name.split(".")[1] in CHARTS[name.split(".")[0]]}
    assert set(charts) == expected and len(expected) >= 15
    for name, marks in charts.items():
        assert marks, f"{name}: no SVG or no marks"
        assert any(m["w"] > 0 and m["h"] > 0 for m in marks), f"{name}: every mark is empty"
    # the numbers on the page are those of the JSON output of the same summary
    cells = page.js("""
        return Array.from(document.querySelectorAll('table[data-section="entities"] tbody tr'),
                          tr => Array.from(tr.cells, c => c.textContent));""")
    assert cells == [[r["entity"], thousands(r["rows"])] for r in every["overview.entities"]]
    histogram = every["sizes.size_histogram"]
    assert sum(r["packages"] for r in histogram) == 25
    # a package name with markup is text, in the tables and the charts
    with pytest.raises(NoAlertPresentException):
        page.driver.switch_to.alert.text  # noqa: B018
    assert page.js("return document.scripts.length") == 0
    assert page.js("return document.querySelectorAll('b').length") == 0
    largest = page.driver.find_element(By.CSS_SELECTOR, 'table[data-section="largest"]')
    assert HOSTILE in largest.text
    svg_text = page.js("return document.querySelector("
                       "'figure[data-chart=\"sizes.largest\"] svg').textContent")
    assert HOSTILE[:20] in svg_text
    page.screenshot("summary-all")
    page.js("document.getElementById('starts-games_over_time').scrollIntoView()")
    page.screenshot("summary-all-games-over-time")


@pytest.mark.parametrize("name", ["overview", "sizes", "starts"])
def test_each_summary_has_its_page(browser: Browser, db: Path, tmp_path: Path,
                                   name: str) -> None:
    out = tmp_path / f"{name}.html"
    proc = quizkit("summary", name, "--db", str(db), "--format", "html", "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    page = browser.open(out)
    _clean(page)
    charts = _charts(page)
    assert charts and all(n.startswith(f"{name}.") for n in charts)
    for marks in charts.values():
        assert any(m["w"] > 0 and m["h"] > 0 for m in marks)
    page.screenshot(f"summary-{name}")


def test_summary_charts_writes_svg_and_png(db: Path, tmp_path: Path) -> None:
    proc = quizkit("summary", "charts", "--db", str(db), "--out", str(tmp_path / "charts"))
    assert proc.returncode == 0, proc.stderr
    written = {Path(line) for line in proc.stdout.splitlines()}
    svgs = sorted(p for p in written if p.suffix == ".svg")
    pngs = sorted(p for p in written if p.suffix == ".png")
    assert {p.stem for p in svgs} == {p.stem for p in pngs} and len(svgs) >= 15
    assert "sizes.size_histogram" in {p.stem for p in svgs}
    for svg in svgs:
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg") and float(root.get("width")) > 100
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


@pytest.mark.parametrize("every", ["day", "week", "month"])
def test_games_over_time_every_period(db: Path, every: str) -> None:
    rows = summary_json(db, "starts", "--section", "games_over_time", "--every", every)
    games = summary_json(db, "overview", "--section", "entities")
    total = next(r["rows"] for r in games if r["entity"] == "games")
    assert sum(r["games"] for r in rows) == total > 0
    assert all(r["games"] == r["completed"] + r["stopped"] + r["open"] for r in rows)
    days = [dt.date.fromisoformat(r["period"]) for r in rows]
    steps = {(b - a).days for a, b in itertools.pairwise(days)}
    assert steps <= {"day": {1}, "week": {7}, "month": {28, 29, 30, 31}}[every]
    if every == "week":
        assert all(d.weekday() == 0 for d in days)  # ISO weeks start on Monday
    if every == "month":
        assert all(d.day == 1 for d in days)
    table = quizkit("summary", "starts", "--db", str(db), "--section", "games_over_time",
                    "--every", every).stdout
    assert table.splitlines()[0].split() == ["period", "games", "completed", "stopped", "open"]


def test_output_file_is_refused_when_it_is_an_input(db: Path, tmp_path: Path) -> None:
    export = tmp_path / "game.json"
    export.write_text((Path(__file__).parent.parent / "samples/game.json").read_text())
    before = export.read_bytes()
    proc = quizkit("summary", "starts", str(export), "--format", "html", "-o", str(export))
    assert proc.returncode == 2 and "also an input" in proc.stderr
    assert export.read_bytes() == before
    bad = quizkit("summary", "all", "--db", str(db), "--section", "nope")
    assert bad.returncode == 2 and "sizes.largest" in bad.stderr


def test_the_api_gives_what_the_cli_gives(db: Path, tmp_path: Path) -> None:
    for fmt in ("json", "markdown"):
        cli = quizkit("summary", "all", "--db", str(db), "--format", fmt, "--every", "week",
                      "--by", "type").stdout
        answer = api.summary("all", db=str(db), format=fmt, every="week", by=["type"])
        assert answer.text == cli
    page = tmp_path / "starts.html"
    text = api.summary("starts", db=str(db), format="html", output=str(page)).text
    assert page.read_text() == text and text.count("<svg") >= 5
    written = api.charts(str(tmp_path / "c"), db=str(db), by=["type"]).written
    assert {p.name for p in written} >= {"starts.games_over_time.svg",
                                         "starts.games_over_time.png"}
    with pytest.raises(ConfigError, match="no section"):
        api.summary("sizes", db=str(db), section="nope")
