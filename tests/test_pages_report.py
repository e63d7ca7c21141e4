"""The HTML findings report, opened in a real headless Chromium and looked at as a person would."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from quizkit.reporters.html_report import MAX_PAGE_FINDINGS
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
    """No console error, and no request but the page itself; a policy that allows none."""
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    assert page.resource_entries() == []
    policy = page.js("return document.querySelector("
                     "'meta[http-equiv=\"Content-Security-Policy\"]').content")
    assert "default-src 'none'" in policy


def test_the_request_log_sees_a_page_that_fetches(browser: Browser, tmp_path: Path) -> None:
    """The checks above can fail: a page with an image from elsewhere (nothing listens there)
    is caught by the browser's network log and by its resource entries."""
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<!DOCTYPE html><title>t</title><img src="http://127.0.0.1:9/pixel.png">')
    page = browser.open(leaky)
    assert "http://127.0.0.1:9/pixel.png" in page.requests()
    assert "http://127.0.0.1:9/pixel.png" in page.resource_entries()


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
    kinds = page.js("""return Array.from(document.querySelectorAll(
        '[data-testid="by-kind"] tbody tr'), tr => [tr.cells[0].textContent,
        Number(tr.cells[1].firstChild.dataset.value),
        Number(tr.cells[3].firstChild.dataset.value)]);""")
    files_by_kind = Counter(f["kind"] or "(unknown)" for f in report["files"])
    assert {k: n for k, n, _ in kinds} == dict(files_by_kind)
    assert sum(n for _, _, n in kinds) == len(report["findings"])
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
    # following the link brings the explanation, in this page, into view
    link.click()
    assert page.js("return location.hash") == f"#rule-{target['code']}"
    assert page.js("return location.href.split('#')[0]") == page.url
    top = page.js("return arguments[0].getBoundingClientRect().top", explained)
    assert 0 <= top < page.js("return window.innerHeight")


def test_source_lines_stop_at_the_end_of_the_file_and_explanations_show_code(
        browser: Browser, tmp_path: Path) -> None:
    doc = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc["position"] = "last"  # the last line with a value: the line before "}"
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    (tmp_path / "banner.create.json").write_text(text)
    proc = validate(".", "--format", "html", "-o", "page.html", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    page = browser.open(tmp_path / "page.html")
    numbers = [int(e.text) for e in page.driver.find_elements(
        By.CSS_SELECTOR, "#finding-list pre.snippet .ln")]
    lines = text.count("\n")
    assert numbers == list(range(lines - 3, lines + 1))  # two before the value, one after
    assert page.driver.find_element(By.CSS_SELECTOR, "pre.snippet .hit").text.split() == [
        str(lines - 1), '"position":', '"last"']
    # the catalog's `code` spans are code in the explanation, not backticks
    explained = page.driver.find_element(By.ID, "rule-S001")
    assert "`" not in explained.text
    assert "deletedAt" in [e.text for e in explained.find_elements(By.TAG_NAME, "code")]
    _looks_clean(page)


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


def _page_numbers(page: Page) -> str:
    """``page 2 of 1,000``, or "" when the list fits one page (no pager)."""
    return " ".join(e.text for e in page.driver.find_elements(By.CSS_SELECTOR,
                                                               "#pager-top span"))


def _pager(page: Page, button: str) -> WebElement:
    return page.driver.find_element(By.CSS_SELECTOR, f'#pager-top [data-page="{button}"]')


def _messages(page: Page) -> list[str]:
    return [e.text for e in page.driver.find_elements(By.CSS_SELECTOR,
                                                       "#finding-list .finding .msg")]


def test_a_full_page_of_findings_opens_and_its_list_works(
        browser: Browser, tmp_path: Path) -> None:
    """As many findings as a page carries (``MAX_PAGE_FINDINGS``; its time to open is
    measured by benchmarks/bench_pages.py): the page draws one page of the list, pages
    through it, and filters every finding, in the page."""
    assert MAX_PAGE_FINDINGS == 20_000  # the figures below
    base = json.loads((ROOT / "samples/banner-create.json").read_text())
    for i in range(4):  # 20,000 findings: 19,999 unknown fields and one wrong type
        extra = 5_000 - (i == 3)
        doc = {**base, **{f"extra{n}": n for n in range(extra)}}
        if i == 3:
            doc["current"] = "yes"
        (tmp_path / f"big{i}.json").write_text(json.dumps(doc, indent=2))
    proc = validate(".", "--format", "html", "-o", "big.html", "--report", "json:big.json",
                    "--max-findings", "0", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads((tmp_path / "big.json").read_text())
    assert len(report["findings"]) == 20_000 and report["summary"]["errors"] == 1
    page = browser.open(tmp_path / "big.html")
    assert _shown(page) == 20_000
    assert page.driver.find_element(By.ID, "shown").text == "20,000 findings"
    assert len(_messages(page)) == 100
    assert _page_numbers(page) == "page 1 of 200"
    # paging: the next page holds findings 101 to 200, the last one the last 100
    _pager(page, "next").click()
    assert _page_numbers(page) == "page 2 of 200"
    assert _messages(page)[0] == 'unknown field "extra100"'
    assert _pager(page, "previous").is_enabled() and _pager(page, "first").is_enabled()
    _pager(page, "last").click()
    assert _page_numbers(page) == "page 200 of 200" and not _pager(page, "next").is_enabled()
    assert len(_messages(page)) == 100 and 'unknown field "extra4998"' in _messages(page)
    _pager(page, "first").click()
    assert _page_numbers(page) == "page 1 of 200" and not _pager(page, "previous").is_enabled()
    # severity: errors only
    page.driver.find_element(By.CSS_SELECTOR, '[data-testid="filter-warning"]').click()
    assert _shown(page) == 1 and _page_numbers(page) == ""
    assert page.driver.find_element(By.CSS_SELECTOR, "#finding-list .file").text.endswith(
        "big3.json")
    assert _messages(page) == [next(f["message"] for f in report["findings"]
                                    if f["severity"] == "error")]
    page.driver.find_element(By.CSS_SELECTOR, '[data-testid="filter-warning"]').click()
    # a rule, then a file on top of it
    Select(page.driver.find_element(By.ID, "rule-filter")).select_by_value("S003")
    assert _shown(page) == 19_999 and _page_numbers(page) == "page 1 of 200"
    page.driver.find_element(By.ID, "file-filter").send_keys("big1")
    assert _shown(page) == 5_000 and _page_numbers(page) == "page 1 of 50"
    assert {e.text for e in page.driver.find_elements(
        By.CSS_SELECTOR, "#finding-list .file")} == {"./big1.json"}
    assert page.driver.find_element(By.ID, "shown").text == "5,000 of 20,000 findings shown"
    page.screenshot("html-report-20k")
    _looks_clean(page)


def _page_data(html: str) -> dict:
    start = html.index('<script type="application/json" id="quizkit-data">')
    body = html[html.index(">", start) + 1:html.index("</script>", start)]
    assert "<" not in body  # nothing in the data block can close it
    return json.loads(body)


def test_a_minified_file_keeps_a_window_around_each_value(tmp_path: Path) -> None:
    base = json.loads((ROOT / "samples/banner-create.json").read_text())
    doc = {**base, **{f"extra{k}": f"<v{k}>" for k in range(3000)}}
    (tmp_path / "min.json").write_text(json.dumps(doc, separators=(",", ":")))
    proc = validate("min.json", "--format", "html", "-o", "min.html", "--fail-on", "error",
                    "--max-findings", "0", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "min.html").read_text()
    assert 'data-count="files" data-value="1">1</span>file</div>' in page  # "1 file"
    assert 'data-value="3000">3,000</span>warnings</div>' in page
    data = _page_data(page)
    assert len(data["findings"]) == 3000
    for row in data["findings"][::250]:
        first, last, line, start, end, cut = row[8]
        assert first == last == line == 1
        text = data["lines"][str(row[0])][f"1:{cut}"]
        assert len(text) <= 160
        key = row[5].rsplit("/", 1)[1]  # the pointer's last token: extraN
        assert text[start:end] == f'"<v{key.removeprefix("extra")}>"'


def test_a_clean_run_says_so(browser: Browser, tmp_path: Path) -> None:
    shutil.copy(ROOT / "samples/banner-create.json", tmp_path / "one.create.json")
    proc = validate(".", "--format", "html", "-o", "clean.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = browser.open(tmp_path / "clean.html")
    _looks_clean(page)
    assert page.driver.find_element(By.CSS_SELECTOR, "p.sub").text == (
        "1 file, 1 document: 0 errors, 0 warnings, 0 infos")
    cards = [e.text.split("\n") for e in page.driver.find_elements(By.CSS_SELECTOR, ".card")]
    assert cards == [["1", "file"], ["1", "document"], ["0", "errors"], ["0", "warnings"],
                     ["0", "infos"]]
    assert page.driver.find_element(By.ID, "finding-list").text == "no findings"
    assert page.driver.find_element(By.ID, "shown").text == "0 findings"
    assert [a.text for a in page.driver.find_elements(By.CSS_SELECTOR, "nav.toc a")] == [
        "At a glance", "Findings"]  # no rules to explain
