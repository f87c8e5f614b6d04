"""The one browser for page tests: the Debian chromium, headless, through /usr/bin/chromedriver.

Each driver gets a fresh profile folder (removed by `close_browser`), so tests on several
workers never share one; as root chromium needs --no-sandbox. The browser's console is
logged, for the tests that read it.
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")
DESKTOP = (1280, 900)


def new_browser(size: tuple[int, int] = DESKTOP) -> "selenium.webdriver.Chrome":  # noqa: F821 (imported lazily)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="mjchrome")
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver: selenium-manager is never asked to find (or download) one.
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.profile_dir = profile
    return driver


def close_browser(driver) -> None:
    driver.quit()
    shutil.rmtree(driver.profile_dir, ignore_errors=True)


@contextmanager
def chromium(size: tuple[int, int] = DESKTOP) -> Iterator["selenium.webdriver.Chrome"]:  # noqa: F821
    driver = new_browser(size)
    try:
        yield driver
    finally:
        close_browser(driver)


def text_of(driver, by: str, what: str, tries: int = 5) -> str:
    """An element's text, found again when the page redrew it between finding and reading
    (a stale element); any other failure is the caller's."""
    from selenium.common.exceptions import StaleElementReferenceException
    for _ in range(tries - 1):
        try:
            return driver.find_element(by, what).text
        except StaleElementReferenceException:
            continue
    return driver.find_element(by, what).text
