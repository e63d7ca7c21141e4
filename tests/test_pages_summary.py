"""Summary pages with charts, opened in a real headless Chromium; chart files; --every."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By

from quizkit import api
from quizkit.outputs.numbers import human_bytes, thousands
from quizkit.pages.charts import CHARTS
from quizkit.settings.config import ConfigError
from tests.browser import Browser, Page, chromium

HOSTILE = "<script>alert(1)</script> & <b>bold</b>"
#: The charts the summary pages draw: sizes and media per package, size by media kind, the largest
#: packages, starts and games per package, the four groupings of both, games over time.
ASKED = {"sizes.size_histogram", "sizes.media_per_package", "sizes.distribution",
         "sizes.largest", "starts.top", "starts.games_per_package", "starts.games_over_time",
         *(f"{s}.by_{g}" for s in ("sizes", "starts")
           for g in ("author", "type", "difficulty", "category"))}


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
    """No console error, no request but the page itself, a policy that allows none."""
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    assert page.resource_entries() == []
    assert "default-src 'none'" in page.js("return document.querySelector("
                                           "'meta[http-equiv=\"Content-Security-Policy\"]')"
                                           ".content")


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
    assert set(charts) == expected and set(charts) >= ASKED
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


def _data_marks(page: Page, chart: str) -> list[dict]:
    """The data marks (bars) of one chart: box as laid out, fill colour."""
    return page.js("""
        const svg = document.querySelector(`figure[data-chart="${arguments[0]}"] > svg`);
        return Array.from(svg.querySelectorAll('g.role-mark path'), m => {
          const b = m.getBoundingClientRect();
          return {x: b.left, w: b.width, h: b.height, fill: m.getAttribute('fill')};
        });""", chart)


def _labels(page: Page, chart: str, axis: str = "X") -> list[str]:
    """The labels a person sees on an axis of a chart (overlapping ones are hidden)."""
    return page.js("""
        const svg = document.querySelector(`figure[data-chart="${arguments[0]}"] > svg`);
        return Array.from(svg.querySelectorAll(
            `g.role-axis[aria-label^="${arguments[1]}-axis"] g.role-axis-label text`))
          .filter(t => getComputedStyle(t).opacity !== '0' && t.getAttribute('opacity') !== '0')
          .map(t => t.textContent);""", chart, axis)


@pytest.mark.parametrize("every", ["day", "week", "month"])
def test_games_over_time_chart_per_period(browser: Browser, db: Path, tmp_path: Path,
                                          every: str) -> None:
    """One bar per period and status with games, each as wide as its period."""
    rows = summary_json(db, "starts", "--section", "games_over_time", "--every", every)
    out = tmp_path / f"{every}.html"
    proc = quizkit("summary", "starts", "--db", str(db), "--format", "html", "-o", str(out),
                   "--every", every)
    assert proc.returncode == 0, proc.stderr
    page = browser.open(out)
    _clean(page)
    bars = [m for m in _data_marks(page, "starts.games_over_time") if m["h"] > 0.5]
    assert len(bars) == sum(r[s] > 0 for r in rows for s in ("completed", "stopped", "open"))
    colours = {m["fill"] for m in bars}
    assert len(colours) == len({s for r in rows for s in ("completed", "stopped", "open")
                                if r[s] > 0})
    counts = [t for t in _labels(page, "starts.games_over_time", "Y") if t]
    assert counts and all(re.fullmatch(r"\d[\d,]*", t) for t in counts), counts  # no 0.5 game
    widths = [m["w"] for m in bars]
    assert min(widths) > 0
    if every in ("day", "week"):  # equal periods, equal bars
        assert max(widths) - min(widths) < 0.5
    else:  # months of 28 to 31 days
        assert max(widths) / min(widths) <= 31 / 28 + 0.01
    # a bar spans its period: the plot's width shared by every period, empty ones included
    plot = sum(widths) / len(widths) * len(rows)
    svg_width = page.js("return document.querySelector("
                        "'figure[data-chart=\"starts.games_over_time\"] > svg')"
                        ".getBoundingClientRect().width")
    assert plot <= svg_width and plot > svg_width / 2
    assert page.driver.find_element(By.CSS_SELECTOR, "#starts-games_over_time h3").text == (
        f"Games per {every} (createdAt)")
    page.screenshot(f"summary-games-per-{every}")


def test_chart_axes_speak_human_units_and_media_have_one_colour(
        browser: Browser, db: Path, tmp_path: Path) -> None:
    out = tmp_path / "sizes.html"
    proc = quizkit("summary", "sizes", "--db", str(db), "--format", "html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    page = browser.open(out)
    _clean(page)
    unit = re.compile(r"^\d+(\.\d+)? (B|kB|MB|GB|TB)$")
    for chart in ("sizes.largest", "sizes.distribution", "sizes.size_histogram",
                  "sizes.by_author"):
        sizes = _labels(page, chart)
        numeric = [t for t in sizes if t[:1].isdigit()]
        assert numeric and all(unit.match(t) for t in numeric), (chart, numeric)
    # the media kinds: named as people say them, one colour each, the same in every chart
    legend = page.js("""return Array.from(document.querySelectorAll(
        'figure[data-chart="sizes.largest"] g.role-legend-label text'), t => t.textContent);""")
    assert legend == ["text", "image", "audio", "video"]
    assert set(_labels(page, "sizes.distribution", "Y")) == {"text", "image", "audio", "video"}
    fills = {m["fill"] for m in _data_marks(page, "sizes.distribution")}
    assert fills == {m["fill"] for m in _data_marks(page, "sizes.largest")}
    facets = {m["fill"] for m in _data_marks(page, "sizes.media_per_package")}
    assert len(facets) == 3 and facets < fills  # audio, image, video
    # the tables beside the charts: human units, and the JSON of the same summary exact
    largest = summary_json(db, "sizes", "--section", "largest")
    cells = page.js("""return Array.from(document.querySelectorAll(
        'table[data-section="largest"] tbody tr'),
        tr => Array.from(tr.cells, c => c.textContent));""")
    head = page.js("""return Array.from(document.querySelectorAll(
        'table[data-section="largest"] thead th'), th => th.textContent);""")
    column = head.index("size_total")
    assert [row[column] for row in cells] == [human_bytes(r["size_total"]) for r in largest]


def _corpus_without_games(tmp_path: Path) -> Path:
    """A small generated corpus with its game records removed (no games over time)."""
    corpus = tmp_path / "corpus"
    made = quizkit("samples", "generate", "--packages", "3", "--seed", "5", "--out",
                   str(corpus))
    assert made.returncode == 0, made.stderr
    for game in (corpus / "games").glob("*.json"):
        game.unlink()
    return corpus


def test_sections_without_values_say_so_instead_of_an_empty_chart(
        browser: Browser, tmp_path: Path) -> None:
    corpus = _corpus_without_games(tmp_path)
    for package in (corpus / "packages").glob("*.json"):
        doc = json.loads(package.read_text())
        doc["meta"]["starts"] = 0
        package.write_text(json.dumps(doc))
    out = tmp_path / "starts.html"
    proc = quizkit("summary", "starts", str(corpus), "--format", "html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    page = browser.open(out)
    _clean(page)
    charts = _charts(page)
    assert "starts.top" not in charts and "starts.games_over_time" not in charts
    for marks in charts.values():  # what is drawn has something to show
        assert any(m["w"] > 0 and m["h"] > 0 for m in marks)
    said = {e.get_attribute("data-no-chart"): e.text for e in
            page.driver.find_elements(By.CSS_SELECTOR, "[data-no-chart]")}
    assert said["starts.top"] == "no chart: every value is 0"
    assert said["starts.by_type"] == "no chart: every value is 0"
    assert said["starts.games_over_time"] == "no chart: no rows"


def test_summary_charts_says_which_charts_it_could_not_draw(tmp_path: Path) -> None:
    """A section whose values are all 0 (or which has no rows) writes no chart file; the
    command says so on stderr instead of leaving the user to count files."""
    corpus = _corpus_without_games(tmp_path)
    out = tmp_path / "charts"
    proc = quizkit("summary", "charts", str(corpus), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "quizkit: no chart for starts.games_over_time: no rows" in proc.stderr.splitlines()
    assert not list(out.glob("starts.games_over_time.*"))
    assert list(out.glob("sizes.*.svg")) and list(out.glob("sizes.*.png"))
    done = api.charts(tmp_path / "api", [str(corpus)])
    assert "starts.games_over_time: no rows" in done.missing
