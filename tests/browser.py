"""A real headless Chromium (Debian's chromium + chromium-driver) driven by selenium, for the
tests of the HTML pages. Under CI the browser must be there: the tests fail, never skip."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from tests.conftest import requires

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER = ("/usr/bin/chromedriver",)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600")
SCREENSHOTS = Path(os.environ.get("QUIZKIT_SCREENSHOTS", tempfile.gettempdir())) / "quizkit-pages"


def _first(paths: tuple[str, ...]) -> str | None:
    return next((p for p in paths if os.path.exists(p)), None)


class Page:
    """One page open in the browser, with what a person (and a network log) would see."""

    def __init__(self, driver: Any, url: str) -> None:
        self.driver = driver
        self.url = url

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def console_errors(self) -> list[dict]:
        return [e for e in self.driver.get_log("browser") if e.get("level") == "SEVERE"]

    def requests(self) -> list[str]:
        """Every URL the page asked for (CDP network log), the page itself included."""
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def resource_entries(self) -> list[str]:
        return self.js("return performance.getEntriesByType('resource').map(e => e.name)")

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(target))
        return target


class Browser:
    def __init__(self, driver: Any) -> None:
        self.driver = driver

    def open(self, path: Path) -> Page:
        url = path.resolve().as_uri()
        self.driver.get("about:blank")
        self.driver.get_log("browser")  # drop what earlier pages (and the new tab) logged
        self.driver.get_log("performance")
        self.driver.get(url)
        return Page(self.driver, url)


@contextmanager
def chromium() -> Iterator[Browser]:
    """A fresh headless Chromium with its own profile directory, closed afterwards."""
    chrome, driver_path = _first(CHROMIUM), _first(DRIVER)
    requires("headless Chromium", found=chrome is not None and driver_path is not None,
             install="apt-get install chromium chromium-driver")
    profile = tempfile.mkdtemp(prefix="quizkit-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(60)
    try:
        yield Browser(driver)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
