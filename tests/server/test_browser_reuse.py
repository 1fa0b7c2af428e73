"""The page tests' shared browser forgets each test: what a page stored, the cookies it set,
the window size and any second window are gone before the next test gets its tab."""

from __future__ import annotations

from selenium import webdriver

from .browser import Chromium
from .test_page import foreign_site

STORE = """<!doctype html><html><body><script>
document.body.dataset.before = localStorage.getItem("left") || "" ;
document.body.dataset.cookie = document.cookie;
localStorage.setItem("left", "by the test before");
document.cookie = "left=1; max-age=600";
</script></body></html>
"""


def _before(driver: webdriver.Chrome, url: str) -> tuple[str, str]:
    driver.get(url)
    body = driver.find_element("tag name", "body")
    return str(body.get_attribute("data-before")), str(body.get_attribute("data-cookie"))


def test_the_next_tab_remembers_nothing_of_the_test_before(
    browser: webdriver.Chrome, chromium: Chromium
) -> None:
    size = browser.get_window_size()
    with foreign_site({"/": STORE}) as origin:
        assert _before(browser, origin + "/") == ("", "")
        assert _before(browser, origin + "/") == ("by the test before", "left=1")
        browser.set_window_size(size["width"] + 123, size["height"] + 45)
        chromium.forget()
        tab = chromium.tab()
        assert tab is browser, "the browser was started anew instead of cleared"
        assert tab.get_window_size() == size
        assert _before(tab, origin + "/") == ("", "")


def test_a_test_that_leaves_a_second_window_gets_a_new_browser(
    browser: webdriver.Chrome, chromium: Chromium
) -> None:
    browser.switch_to.new_window("window")
    chromium.forget()
    tab = chromium.tab()
    assert tab is not browser
    assert tab.window_handles == [tab.current_window_handle]
