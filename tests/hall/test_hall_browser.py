"""The hall's page in a real headless Chromium: the standings appear and change when a
table's result comes in, the tables not yet reported are named, each table's time left
counts down on its tile, the director's
correction is refused without the hall's operator secret and recorded with it, and a
player disqualified on the running hall is shown so, at the bottom."""
from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, timezone

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from ..api.mqtt.listener import Listener
from ..support.browser import chromium
from .conftest import hall
from .test_results import GAMES, Table

WAIT = 15.0


def rows(page) -> list[list[str]]:
    """The standings' cells, read at once (the page redraws the table after each result)."""
    return page.execute_script("return [...document.querySelectorAll('#standings tbody tr')]"
                               ".map((tr) => [...tr.cells].map((td) => td.textContent))")


def test_the_standings_live_in_the_browser_and_the_director_needs_the_secret(hall_process, broker):
    hall_process.start()
    with chromium() as page:
        page.get(hall_process.url)
        wait = WebDriverWait(page, WAIT)
        wait.until(lambda p: len(rows(p)) == 8)
        assert all(r[4] == "0.0" for r in rows(page))
        ends = datetime.now(timezone.utc) + timedelta(minutes=90)
        with Listener(broker.port, "demo-2") as other:  # a table on the rule set's clock
            other.publish("mjtable/demo-2/status", {"state": "playing", "hand": "E1", "scores": [30000] * 4,
                                                    "time_limit": {"ends_at": ends.isoformat(timespec="seconds")}},
                          retain=True)
        wait.until(lambda p: re.fullmatch(r"time left (90:00|89:[0-5]\d)",
                                          p.execute_script("return document.querySelector('#tile-demo-2 .time-left')"
                                                           "?.textContent || ''")))
        table = Table(broker, "demo-1")
        with table.mqtt:
            sent = time.monotonic()
            table.send("demo-1-a", GAMES[0][3])
            wait.until(lambda p: rows(p)[0][1] == "Ann Archer" and rows(p)[0][4] == "20.2")
            shown = time.monotonic() - sent
        assert rows(page)[0] == ["1", "Ann Archer", "FRA", "1", "20.2", "35200"]
        assert page.find_element(By.ID, "unreported").text == "not reported · round 1: tables 2 · round 2: tables 1, 2"

        form = page.find_element(By.ID, "correction")
        for name, value in (("player", "2"), ("points", "-2000"), ("who", "A. Referee"), ("why", "chombo")):
            form.find_element(By.NAME, name).send_keys(value)
        form.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(lambda p: p.find_element(By.ID, "answers").text.startswith("refused"))
        assert page.find_element(By.ID, "answers").text == \
            "refused: the director's actions need the hall's operator secret"
        page.find_element(By.ID, "secret").send_keys(hall_process.secret)
        form.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(lambda p: p.find_element(By.ID, "answers").text == "correction 1 recorded")
        wait.until(lambda p: next(r for r in rows(p) if r[1] == "Bo Berg")[4] == "5.0")
        disqualified = hall("penalty", "1", "disqualified", "--who", "A. Referee", "--why", "cheating",
                            cwd=hall_process.folder)
        assert disqualified.returncode == 0, disqualified.stderr
        wait.until(lambda p: rows(p)[-1] == ["8", "Ann Archer (disqualified)", "FRA", "1", "20.2", "35200"])
    print(f"result to the page: {shown * 1000:.0f} ms")
