"""The diff page, opened in a real headless Chromium: counts, filters, old and new side by
side, nothing fetched, nothing from the inputs run as markup."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_script
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser import Browser, Page, chromium

HOSTILE = "<script>alert(1)</script> & <b>bold</b>"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The page and the JSON report of a diff: a package removed, one renamed with markup."""
    base = tmp_path_factory.mktemp("diff-page")
    made = run_script("samples", "generate", "--packages", "4", "--seed", "9",
                      "--out", str(base / "old"))
    assert made.returncode == 0
    shutil.copytree(base / "old", base / "new")
    packages = sorted((base / "new" / "packages").glob("*.json"))
    packages[0].unlink()
    doc = json.loads(packages[1].read_text())
    doc["name"] = HOSTILE
    packages[1].write_text(json.dumps(doc))
    page, report = base / "diff.html", base / "diff.json"
    done = run_script("diff", str(base / "old"), str(base / "new"), "--format", "html",
                      "-o", str(page), "--report", f"json:{report}")
    assert done.returncode == 1, done.stderr
    return page, json.loads(report.read_text())


def _shown(page: Page) -> list[tuple[str, str]]:
    return [(e.get_attribute("data-kind"), e.get_attribute("data-change"))
            for e in page.driver.find_elements(By.CSS_SELECTOR, "#changes .change")]


def test_the_page_lists_every_change_and_filters_them(browser: Browser,
                                                      written: tuple[Path, dict]) -> None:
    path, report = written
    page = browser.open(path)
    assert page.console_errors() == []
    assert page.requests() == [page.url]
    every = [(c["kind"], c["change"]) for c in report["changes"]]
    assert _shown(page) == every
    removed = page.driver.find_element(
        By.CSS_SELECTOR, 'tr[data-table="packages"] td[data-count="removed"]').text
    assert removed == "1"
    Select(page.driver.find_element(By.ID, "table-filter")).select_by_value("packages")
    assert _shown(page) == [k for k in every if k[0] == "packages"]
    page.driver.find_element(By.CSS_SELECTOR, "input[value=removed]").click()
    assert _shown(page) == [k for k in every if k == ("packages", "changed")]
    page.screenshot("diff-page")


def test_old_and_new_sit_side_by_side_as_text(browser: Browser,
                                              written: tuple[Path, dict]) -> None:
    path, _report = written
    page = browser.open(path)
    changed = page.driver.find_element(By.CSS_SELECTOR,
                                       '#changes .change[data-change="changed"]')
    old = changed.find_element(By.CSS_SELECTOR, ".old").text
    new = changed.find_element(By.CSS_SELECTOR, ".new").text
    assert "/name" in old and "/name" in new
    assert HOSTILE in new and HOSTILE not in old
    assert page.driver.find_elements(By.TAG_NAME, "b") == []
    with pytest.raises(NoAlertPresentException):
        page.driver.switch_to.alert.text  # noqa: B018
