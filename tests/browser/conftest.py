"""Fixtures of the browser tests: one headless Chromium per test worker, and a table with
its web page per test. The harness is in browser_harness.py."""
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from controller.api.web.server import STATIC

from ..support.processes import Processes
from .browser_harness import CHROMEDRIVER, CHROMIUM, PHONE, WebTable, close_browser, new_browser


@pytest.fixture(scope="session")
def chromium():
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail(f"{CHROMIUM} and {CHROMEDRIVER} are needed: `make test` installs them "
                    "(apt-get install chromium chromium-driver)")
    driver = new_browser(PHONE)
    yield driver
    close_browser(driver)


@pytest.fixture
def browser(chromium):
    """The worker's browser, as a fresh phone: no cookies, phone-sized, its log read out."""
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.set_window_size(*PHONE)
    chromium.get_log("browser")
    return chromium


@pytest.fixture
def web_table(procs):
    return WebTable(procs)


@pytest.fixture
def more_procs(short_tmp):
    """Children in a folder of their own (a second table), killed at teardown."""
    folder = short_tmp / "more"
    folder.mkdir()
    running = Processes(folder)
    yield running
    running.stop_all()


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test's output is the page's, not the requests'
        pass


@pytest.fixture
def static_site():
    """The page's files alone, served from a thread: for what needs no table (the QR encoder,
    the result form's choices)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietFiles, directory=STATIC))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
