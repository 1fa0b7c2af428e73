"""One headless Chromium per test process for the page tests (Debian's ``chromium`` +
``chromium-driver``, via Selenium), started on first use and ended with the process.

Starting the browser and its driver is most of a page test's CPU; a page test reaches the
browser through the ``browser`` fixture, which hands it a tab that has forgotten the tests
before it: every origin the tab showed has its storage (the page's ``localStorage``) and
cookies cleared, the cache is emptied, the tab is back on ``about:blank`` at the size the
browser started with. A browser that cannot be put back (a test left a dialog open, the
driver died, a second window is open) is ended, and the next test starts a new one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def browser_missing() -> str | None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    return ", ".join(missing) or None


class Chromium:
    def __init__(self, profile: Path) -> None:
        self.profile = profile
        self.driver: webdriver.Chrome | None = None
        self.size: dict[str, int] = {}

    def tab(self) -> webdriver.Chrome:
        """The browser on one blank tab, started anew if it is not running or not so."""
        if self.driver is not None and not self._blank(self.driver):
            self.quit()
        if self.driver is None:
            options = Options()
            options.binary_location = CHROMIUM
            for flag in FLAGS:
                options.add_argument(flag)
            shutil.rmtree(self.profile, ignore_errors=True)
            options.add_argument(f"--user-data-dir={self.profile}")
            service = Service(executable_path=CHROMEDRIVER)
            self.driver = webdriver.Chrome(options=options, service=service)
            self.size = self.driver.get_window_size()
            self.driver.get("about:blank")
        assert self._blank(self.driver), "a new browser is not on one blank tab"
        return self.driver

    @staticmethod
    def _blank(driver: webdriver.Chrome) -> bool:
        try:
            handles = driver.window_handles
            return handles == [driver.current_window_handle] and driver.current_url == "about:blank"
        except WebDriverException:
            return False

    def forget(self) -> None:
        """Clear what the last test left in the browser, or end the browser if it cannot."""
        driver = self.driver
        if driver is None:
            return
        try:
            history = driver.execute_cdp_cmd("Page.getNavigationHistory", {})
            driver.get("about:blank")
            for origin in {_origin(entry["url"]) for entry in history["entries"]} - {None}:
                clear = {"origin": origin, "storageTypes": "all"}
                driver.execute_cdp_cmd("Storage.clearDataForOrigin", clear)
            driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
            driver.execute_cdp_cmd("Network.clearBrowserCache", {})
            driver.set_window_size(self.size["width"], self.size["height"])
        except WebDriverException:
            self.quit()

    def quit(self) -> None:
        """End the browser; its driver is stopped even when the browser no longer answers."""
        if self.driver is not None:
            driver, self.driver = self.driver, None
            with contextlib.suppress(WebDriverException):
                driver.quit()


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    return f"{parts.scheme}://{parts.netloc}"
