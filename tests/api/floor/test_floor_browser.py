"""The floor view in a real headless Chromium: tiles appear, a fault turns its tile red (and
sounds) until recovered, a dead controller shows offline, a tile opens its table's page."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from ...support.browser import chromium, text_of
from .conftest import publish, status

WAIT = 15.0


def waiter(page) -> WebDriverWait:
    """A wait that looks again when the page redrew what it read (a tile is drawn anew on
    each status)."""
    return WebDriverWait(page, WAIT, ignored_exceptions=(StaleElementReferenceException,))


class _TablePage(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<title>table t1</title><h1>table t1</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@contextmanager
def table_page() -> Iterator[str]:
    """A stand-in for a table's own page, on loopback: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TablePage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_floor_in_the_browser(broker, floor):
    with table_page() as web_url:
        _walk_the_floor(broker, floor, web_url)


def _walk_the_floor(broker, floor, web_url: str) -> None:
    publish(broker, "t1", "status", status(hand="E2", web_url=web_url))
    publish(broker, "t1", "availability", "online")
    publish(broker, "t2", "status", status(seat_players=[{"seat": 0, "name": "Ann"}], waiting_for="shuffle",
                                           maintenance_due=[{"task": "clean_tiles", "counter": "shuffles",
                                                             "every": 2000, "since": 2004, "due": True}]))
    with chromium() as page:
        page.get(floor.url)
        wait = waiter(page)
        t1 = wait.until(lambda p: p.find_element(By.ID, "tile-t1"))
        t2 = wait.until(lambda p: p.find_element(By.ID, "tile-t2"))
        assert t1.tag_name == "a" and t1.get_attribute("href") == web_url
        assert t2.tag_name == "div"  # no web_url: nothing to open
        t2_text = text_of(page, By.ID, "tile-t2")
        assert "Ann" in t2_text and "waiting for shuffle" in t2_text
        assert "due: clean_tiles (2004 of 2000 shuffles)" in t2_text

        def classes(table: str) -> list[str]:
            return page.find_element(By.ID, f"tile-{table}").get_attribute("class").split()

        publish(broker, "t1", "status", status(hand="E2", fault_code=200, web_url=web_url, fault={
        "code": 200, "message": "E200 jam at stacker; clear the jammed tile, then retry", "since": time.time() - 75}))
        wait.until(lambda p: "fault" in classes("t1"))
        assert "E200 jam at stacker" in text_of(page, By.ID, "tile-t1")
        assert "1 min" in text_of(page, By.CSS_SELECTOR, "#tile-t1 .age")  # its age, from the table's since
        assert page.execute_script("return window.floorBeeps") == 1
        assert "1 in fault" in text_of(page, By.ID, "summary")

        publish(broker, "t1", "status", status(hand="E2", web_url=web_url))  # recovered
        wait.until(lambda p: "fault" not in classes("t1"))
        publish(broker, "t1", "availability", "offline")  # the last will of a killed controller
        wait.until(lambda p: "offline" in classes("t1"))
        assert "1 offline" in text_of(page, By.ID, "summary")

        page.find_element(By.ID, "tile-t1").click()
        wait.until(lambda p: p.title == "table t1")


def test_the_floor_in_the_browser_language_and_by_its_switch(broker, floor):
    """A Japanese browser sees the floor in Japanese; the switch turns it to Traditional Chinese."""
    publish(broker, "t1", "status", status(hand="E2", seat_players=[{"seat": 0, "name": "Ann"}], waiting_for="shuffle"))
    with chromium() as page:
        agent = page.execute_script("return navigator.userAgent")
        page.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "ja-JP,ja"})
        page.get(floor.url)
        wait = waiter(page)
        wait.until(lambda p: p.find_element(By.ID, "tile-t1"))
        assert page.execute_script("return document.documentElement.lang") == "ja"
        tile = text_of(page, By.ID, "tile-t1")
        assert "洗牌待ち" in tile and "対局中" in tile, tile
        assert text_of(page, By.ID, "summary").startswith("1卓")
        page.find_element(By.CSS_SELECTOR, "#language option[value='zh-Hant']").click()
        wait.until(lambda p: p.execute_script("return document.documentElement.lang") == "zh-Hant")
        wait.until(lambda p: "等待洗牌" in p.find_element(By.ID, "tile-t1").text)
        assert text_of(page, By.ID, "summary").startswith("1張牌桌")
        assert [e for e in page.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"] == []
