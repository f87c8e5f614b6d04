"""The floor view trusts no table's account: a malformed retained status or a `javascript:`
web_url shows that tile as "bad status", every other tile is drawn and no script runs (in
Chromium); requests naming a foreign Host or from a foreign page's Origin are refused, the
page forbids inline script and framing, streams are capped and a message to /ws ends it."""
from __future__ import annotations

import asyncio
import http.client
from urllib.parse import urlsplit

import aiohttp
import pytest
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from controller.api.floor.web import MAX_STREAMS_PER_ADDRESS

from ...support.browser import chromium
from ..web.web_harness import SECRET, SECRET_HASH
from .conftest import publish, start_floor, status

WAIT = 15.0
PWN = "javascript:document.title='pwned';window.pwned=1"


def test_bad_statuses_show_as_such_and_hide_no_other_tile(broker, floor):
    publish(broker, "t1", "status", status(seat_players=[{"seat": 0, "name": "Ann"}]))
    publish(broker, "t2", "status", {"seats": 5})
    publish(broker, "t3", "status", status(seat_players=[None]))
    publish(broker, "fleet-1", "status", status(web_url=PWN))
    publish(broker, "fleet-2", "status", status(hand="S3"))
    with chromium() as page:
        page.get(floor.url)
        wait = WebDriverWait(page, WAIT)
        wait.until(lambda p: len(p.find_elements(By.CSS_SELECTOR, ".tile")) == 5)
        text = {t: page.find_element(By.ID, f"tile-{t}").text for t in ("t1", "t2", "t3", "fleet-1", "fleet-2")}
        assert "Ann" in text["t1"] and "S3" in text["fleet-2"]
        for bad in ("t2", "t3", "fleet-1"):
            assert "bad status" in text[bad], text[bad]
        link = page.find_element(By.ID, "tile-fleet-1")
        assert link.tag_name == "div"
        link.click()
        assert page.execute_script("return window.pwned") is None and page.title != "pwned"


def _get(url: str, path: str, headers: dict) -> tuple[int, dict]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=WAIT)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.headers  # case-insensitive names, as HTTP's
    finally:
        connection.close()


def test_foreign_hosts_and_origins_are_refused_and_the_page_cannot_be_framed(floor):
    host = urlsplit(floor.url).netloc
    status, headers = _get(floor.url, "/", {})
    assert status == 200 and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert "unsafe-inline" not in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
    assert _get(floor.url, "/tables", {"Host": "evil.example:8088", "Origin": "http://evil.example:8088"})[0] == 403
    ws = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
          "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    assert _get(floor.url, "/ws", {**ws, "Origin": "http://evil.example"})[0] == 403
    assert _get(floor.url, "/ws", {**ws, "Origin": f"http://{host}"})[0] == 101


def test_streams_are_capped_and_a_message_to_ws_ends_it(floor):
    async def probe():
        async with aiohttp.ClientSession() as session:
            streams = [await session.ws_connect(f"{floor.url}ws") for _ in range(MAX_STREAMS_PER_ADDRESS)]
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(f"{floor.url}ws")
            assert refused.value.status == 503
            await streams[0].receive(timeout=WAIT)  # the whole floor
            try:
                await streams[0].send_bytes(b"x" * 3_000_000)
            except ConnectionError:
                pass  # closed while it was being sent
            closing = await streams[0].receive(timeout=WAIT)
            while closing.type == aiohttp.WSMsgType.TEXT:  # what was sent before it
                closing = await streams[0].receive(timeout=WAIT)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)
            for stream in streams:
                await stream.close()
    asyncio.run(probe())


def test_with_a_secret_file_the_floor_asks_for_the_operator_secret(procs, broker):
    (procs.folder / "floor-secret").write_text(SECRET_HASH + "\n")
    floor = start_floor(procs, broker, "--secret-file", str(procs.folder / "floor-secret"))
    publish(broker, "t1", "status", status(seat_players=[{"seat": 0, "name": "Ann"}]))
    assert _get(floor.url, "/tables", {})[0] == 401
    assert _get(floor.url, "/tables", {"Authorization": f"Bearer {SECRET}"})[0] == 200
    with chromium() as page:
        page.get(floor.url)
        wait = WebDriverWait(page, WAIT)
        secret = wait.until(lambda p: p.find_element(By.NAME, "secret"))
        assert page.find_elements(By.CSS_SELECTOR, ".tile") == []
        secret.send_keys("not the secret", Keys.ENTER)
        wait.until(lambda p: "wrong operator secret" in p.find_element(By.ID, "login-error").text)
        secret.clear()
        secret.send_keys(SECRET, Keys.ENTER)
        assert "Ann" in wait.until(lambda p: p.find_element(By.ID, "tile-t1")).text
