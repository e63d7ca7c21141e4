"""The HTML findings report, opened in a real headless Chromium and looked at as a person would."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser import Browser, Page, chromium
from tests.conftest import ROOT

HOSTILE_DIR = "<script>alert(1)<"  # with the file below: ".../<script>alert(1)</script>.json"
HOSTILE_FILE = "script>.json"
HOSTILE_KEY = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


def validate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quizkit", "validate", *args, "-q"], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The invalid samples plus hostile names and keys; an HTML and a JSON report of one run."""
    work = tmp_path_factory.mktemp("report")
    shutil.copytree(ROOT / "samples/invalid", work / "exports")
    hostile = work / "exports" / HOSTILE_DIR
    hostile.mkdir()
    banner = json.loads((ROOT / "samples/banner.json").read_text())
    banner[HOSTILE_KEY] = "</script><script>alert(3)</script>"
    banner["position"] = "first"
    (hostile / HOSTILE_FILE).write_text(json.dumps(banner, indent=2, ensure_ascii=False))
    proc = validate("exports", "--format", "json", "-o", "report.json",
                    "--report", "html:report.html", cwd=work)
    assert proc.returncode == 3, proc.stderr  # some invalid samples cannot be parsed
    return work / "report.html", json.loads((work / "report.json").read_text())


def _looks_clean(page: Page) -> None:
    """No console error, and no request but the page itself."""
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    assert page.resource_entries() == []


def _shown(page: Page) -> int:
    return int(page.driver.find_element(By.ID, "shown").get_attribute("data-value"))


def _severities_listed(page: Page) -> set[str]:
    return {e.get_attribute("data-severity")
            for e in page.driver.find_elements(By.CSS_SELECTOR, "#finding-list .finding")}


def test_page_is_self_contained_and_counts_match_the_json_report(
        browser: Browser, run: tuple[Path, dict]) -> None:
    html, report = run
    page = browser.open(html)
    _looks_clean(page)
    s = report["summary"]
    for key in ("files", "documents", "errors", "warnings", "infos"):
        shown = page.driver.find_element(By.CSS_SELECTOR, f'[data-count="{key}"]')
        assert int(shown.get_attribute("data-value")) == s[key], key
        assert shown.text == f"{s[key]:,}"
    for sev in ("error", "warning", "info"):
        cell = page.driver.find_element(By.CSS_SELECTOR, f'[data-count="severity-{sev}"]')
        assert int(cell.text) == sum(f["severity"] == sev for f in report["findings"])
    by_rule = Counter(f["code"] for f in report["findings"])
    for code, n in by_rule.items():
        cell = page.driver.find_element(By.CSS_SELECTOR, f'[data-count="rule-{code}"]')
        assert int(cell.get_attribute("data-value")) == n, code
    assert _shown(page) == len(report["findings"])
    page.screenshot("html-report")


def test_severity_filter_changes_what_is_shown(browser: Browser, run: tuple[Path, dict]) -> None:
    html, report = run
    page = browser.open(html)
    counts = Counter(f["severity"] for f in report["findings"])
    assert "error" in _severities_listed(page)
    page.driver.find_element(By.CSS_SELECTOR, '[data-testid="filter-error"]').click()
    assert _shown(page) == counts["warning"] + counts["info"]
    listed = _severities_listed(page)
    assert listed and "error" not in listed
    page.driver.find_element(By.CSS_SELECTOR, '[data-testid="filter-warning"]').click()
    assert _shown(page) == counts["info"] and _severities_listed(page) <= {"info"}
    page.driver.find_element(By.CSS_SELECTOR, '[data-testid="filter-error"]').click()
    # a rule, then a file
    Select(page.driver.find_element(By.ID, "rule-filter")).select_by_value("S001")
    assert _shown(page) == sum(f["code"] == "S001" for f in report["findings"])
    rules = {e.text.split()[0] for e in page.driver.find_elements(By.CSS_SELECTOR,
                                                                  "#finding-list .rule-link")}
    assert rules == {"S001"}
    Select(page.driver.find_element(By.ID, "rule-filter")).select_by_value("")
    box = page.driver.find_element(By.ID, "file-filter")
    box.send_keys("game-history-date")
    wanted = [f for f in report["findings"] if f["severity"] != "warning"
              and "game-history-date" in f["path"]]
    assert _shown(page) == len(wanted) > 0
    _looks_clean(page)


def test_findings_show_their_source_lines_and_rule_explanations(
        browser: Browser, run: tuple[Path, dict]) -> None:
    html, report = run
    page = browser.open(html)
    target = next(f for f in report["findings"] if f["path"].endswith(
        "banner-updated-date-only.json"))
    page.driver.find_element(By.ID, "file-filter").send_keys("banner-updated-date-only")
    finding = page.driver.find_element(By.CSS_SELECTOR, "#finding-list .finding")
    assert f"{target['line']}:{target['column']}" in finding.text
    mark = finding.find_element(By.CSS_SELECTOR, "pre.snippet mark")
    source = (ROOT / "samples/invalid/banner-updated-date-only.json").read_text().splitlines()
    line = source[target["line"] - 1]
    assert mark.text == line[target["column"] - 1:].split(",")[0] == '"2025-12-15"'
    hit = finding.find_element(By.CSS_SELECTOR, "pre.snippet .hit").text
    assert hit.split(None, 1) == [str(target["line"]), line.strip()]
    link = finding.find_element(By.CSS_SELECTOR, "a.rule-link")
    assert link.get_attribute("href").endswith(f"#rule-{target['code']}")
    explained = page.driver.find_element(By.ID, f"rule-{target['code']}")
    assert target["rule"] in explained.text and len(explained.text) > 60


def test_names_and_messages_from_inputs_show_as_text(
        browser: Browser, run: tuple[Path, dict]) -> None:
    html, report = run
    page = browser.open(html)
    with pytest.raises(NoAlertPresentException):
        page.driver.switch_to.alert.text  # noqa: B018 (no script from the inputs ran)
    assert page.js("return document.scripts.length") == 2  # the data block and quizkit's own
    assert page.js("return document.images.length") == 0
    hostile_path = f"exports/{HOSTILE_DIR}/{HOSTILE_FILE}"
    assert hostile_path in {f["path"] for f in report["findings"]}
    page.driver.find_element(By.ID, "file-filter").send_keys("<script>")
    text = page.driver.find_element(By.ID, "finding-list").text
    assert hostile_path in text and HOSTILE_KEY in text
    assert "</script><script>alert(3)</script>" in text  # the source line, as text
    assert hostile_path in page.js(
        "return Array.from(document.querySelectorAll('#file-list option'), o => o.value)")
    page.screenshot("html-report-hostile")
    _looks_clean(page)


def test_a_hundred_thousand_findings_open_in_seconds(
        browser: Browser, tmp_path: Path) -> None:
    base = json.loads((ROOT / "samples/banner-create.json").read_text())
    for i in range(4):  # 4 files of 25,000 unknown fields each
        doc = {**base, **{f"extra{n}": n for n in range(25_000)}}
        (tmp_path / f"big{i}.json").write_text(json.dumps(doc, indent=2))
    proc = validate(".", "--format", "html", "-o", "big.html", "--fail-on", "error",
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    started = time.monotonic()
    page = browser.open(tmp_path / "big.html")
    loaded = time.monotonic() - started
    assert _shown(page) == 100_000
    assert loaded < 15, f"the page took {loaded:.1f} s to open"
    assert len(page.driver.find_elements(By.CSS_SELECTOR, "#finding-list .finding")) == 100
    page.driver.find_element(By.CSS_SELECTOR, "#pager-top button:last-child").click()
    first = page.driver.find_element(By.CSS_SELECTOR, "#finding-list .finding .msg").text
    assert first == 'unknown field "extra100"'
    _looks_clean(page)
