"""The web page in a real browser: Debian's headless Chromium driven by selenium through
/usr/bin/chromedriver (no browser is downloaded), against `mjtable run` with a `web:`
section on a simulated table, both started the way the docs tell a user
(`mjtable sim --pty`, `mjtable run --config table.yaml`).

`Page` is what a player does on the page: open a tab, log in, tap a seat, choose han and
fu, confirm; each step waits (with a deadline) for the page to show its outcome.

Not in conftest.py: conftest modules hold fixtures, which pytest finds by itself; tests
import helpers from modules.
"""
from __future__ import annotations

import json
import re
import socket
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from controller.api.web.secret import hash_secret

from ..e2e.e2e_harness import SPEED, TableSession, start_sim, wait_for
from ..support.browser import CHROMEDRIVER, CHROMIUM, close_browser, new_browser, text_of  # noqa: F401 (the browser tests import them from here)
from ..support.processes import Processes, stderr_of

PHONE = (390, 844)
DESKTOP = (1366, 768)
WAIT = 20.0  # seconds any one step of the page may take
OPERATOR_SECRET = "operator-secret-for-tests"
PLAYERS = ("Ann", "Bo", "Cy", "Di")
# A short game for the browser: EMA riichi, the East round only (four hands at least).
EAST_ONLY = "east-only"


def east_only_ruleset(folder: Path) -> Path:
    """The config's rule-set folder with EMA 2016 played over the East round only."""
    from controller.rules import PRESETS_DIR

    rulesets = folder / "rulesets"
    rulesets.mkdir(exist_ok=True)
    text = (PRESETS_DIR / "ema-2016.yaml").read_text()
    text = text.replace("name: ema-2016", f"name: {EAST_ONLY}").replace("  rounds: 2 ", "  rounds: 1 ")
    assert "rounds: 1 " in text
    (rulesets / f"{EAST_ONLY}.yaml").write_text(text)
    return rulesets


def free_port() -> int:
    """A loopback port free now; kept by the config over a restart of the controller."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class WebTable(TableSession):
    """A simulated table and `mjtable run` on it with the web page on a loopback port; the
    config's rule-set folder has the East-only rule set."""

    def __init__(self, procs: Processes, sim_args: tuple[str, ...] = ()) -> None:
        self.sim, port = start_sim(procs, "--pty", "--speed", str(SPEED), "--seed", "1", *sim_args)
        east_only_ruleset(procs.folder)
        self.port = free_port()
        web = (f"rulesets: rulesets\n"
               f"web: {{listen: 127.0.0.1:{self.port}, operator_secret: '{hash_secret(OPERATOR_SECRET)}'}}\n")
        super().__init__(procs, port, "four-port", "ema-2016", extra=web)
        self.url = f"http://127.0.0.1:{self.port}/"

    def start_controller(self) -> None:
        super().start_controller()
        wait_for(lambda: re.search(r"listening on [^:]+:(\d+)\)", stderr_of(self.run)), "the web page to be served")

    def operator_session(self) -> dict:
        """`GET /api/session` as a script of the operator's (a bearer secret): the PIN, the address."""
        request = urllib.request.Request(f"{self.url}api/session", headers={"Authorization": f"Bearer {OPERATOR_SECRET}"})
        with urllib.request.urlopen(request) as reply:
            return json.load(reply)


def cli_table(procs: Processes) -> TableSession:
    """A second table like WebTable's (same simulator seed, same rule sets) without the page,
    for the same game through the CLI."""
    _, port = start_sim(procs, "--pty", "--speed", str(SPEED), "--seed", "1")
    east_only_ruleset(procs.folder)
    return TableSession(procs, port, "four-port", "ema-2016", extra="rulesets: rulesets\n")


class Page:
    """One browser on the table's page."""

    def __init__(self, driver: webdriver.Chrome, url: str) -> None:
        self.driver = driver
        self.url = url

    # -- finding and waiting ----------------------------------------------------------

    def wait(self, condition, what: str):
        def attempt(driver):
            try:
                return condition()
            except StaleElementReferenceException:  # redrawn meanwhile: look again
                return False
        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=0.02).until(attempt)
        except TimeoutException:
            raise AssertionError(f"the page did not show {what} within {WAIT} s; it shows: {self.shown()}") from None

    def shown(self) -> str:
        """What the page shows now, for a failure's message: state, link, role, the open tab."""
        tab = next((t for t in self.all("main > section") if t.is_displayed()), None)
        return (f"state {self.driver.execute_script('return document.body.dataset.state')!r}, "
                f"link {self.text('#link')!r}, role {self.role()!r}, tab: {tab.text[:800] if tab else None!r}")

    def find(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return text_of(self.driver, By.CSS_SELECTOR, css)

    def wait_text(self, css: str, text: str) -> str:
        """Wait for an element ``css`` whose text contains ``text``; its whole text."""
        def shown():
            return next((e.text for e in self.all(css) if text in e.text and e.is_displayed()), None)
        return self.wait(shown, f"{text!r} in {css}")

    def click(self, css: str) -> None:
        """Click it once it is clickable; found and clicked again if the page drew it anew
        in between (a status arriving redraws the form)."""
        def clicked() -> bool:
            element = self.find(css)
            if not (element.is_enabled() and element.is_displayed()):
                return False
            element.click()
            return True
        self.wait(clicked, f"{css} to be clickable")

    # -- the tabs and the session ------------------------------------------------------

    def open(self, tab: str = "table") -> "Page":
        self.driver.get(f"{self.url}#{tab}")
        self.wait(lambda: self.find("#link").get_attribute("data-live") == "true", "the live link")
        return self

    def tab(self, name: str) -> None:
        self.find(f'nav [data-tab="{name}"]').click()
        self.wait(lambda: self.find(f"#tab-{name}").is_displayed(), f"the {name} tab")

    def role(self) -> str:
        """The session's role (its words are in the page's language)."""
        return self.find("#role").get_attribute("data-role")

    def log_in_operator(self, secret: str = OPERATOR_SECRET) -> None:
        self.tab("operator")
        self.find("#operator-login [name=secret]").send_keys(secret)
        self.find("#operator-login button").click()
        self.wait(lambda: self.role() == "operator", "the operator's role")

    def log_in_player(self, pin: str) -> None:
        self.tab("result")
        self.find("#pin-login [name=pin]").send_keys(pin)
        self.find("#pin-login button").click()
        self.wait(lambda: self.role() == "player", "the player's role")

    def log_out(self) -> None:
        self.click("#logout")
        self.wait(lambda: self.role() == "spectator", "the spectator's role")

    def console_errors(self) -> list[dict]:
        """What the page's scripts logged as errors (or threw) since the last call. A refused
        request (a 4xx reply) and a stream that cannot connect while the controller restarts
        are the network's entries, which the pages expect."""
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"]

    # -- the operator ----------------------------------------------------------------

    def start_game(self, ruleset: str, players: tuple[str, ...] = (), east_only: bool = False) -> str:
        """Start a game from the operator's page; the players' PIN it then shows."""
        self.tab("operator")
        before = self.text(".pin") if self.all(".pin") else None
        Select(self.find(".start [name=ruleset]")).select_by_visible_text(ruleset)
        if east_only:
            Select(self.find(".start [name=length]")).select_by_value("east")
        for field, name in zip(self.all(".start [name=player]"), players):
            field.clear()
            field.send_keys(name)
        self.click('[data-action="start"]')
        self.wait_text("#operator-view .notice", "the game starts")
        return self.wait(lambda: (lambda pin: pin if pin and pin != before else None)(self.text(".pin")), "a new PIN")

    # -- result entry ----------------------------------------------------------------

    def wait_hand(self, label: str) -> None:
        self.tab("result")
        self.wait_text("#entry h2", f"Hand {label}")

    def riichi(self, seat: int) -> None:
        self.click(f'button.riichi[data-seat="{seat}"]')
        self.wait(lambda: not self.find(f'button.riichi[data-seat="{seat}"]').is_enabled(), f"seat {seat}'s riichi")

    def kan(self, count: int) -> None:
        self.click("button.kan")
        self.wait_text("button.kan", f"({count} so far)")

    def kind(self, kind: str) -> None:
        self.click(f'button.kind[data-kind="{kind}"]')

    def pick(self, role: str, seat: int) -> None:
        css = f'.picker[data-role="{role}"] button[data-seat="{seat}"]'
        pressed, = self.wait(lambda: (self.find(css).get_attribute("aria-pressed"),), f"seat {seat}'s {role} button")
        self.click(css)
        self.wait(lambda: self.find(css).get_attribute("aria-pressed") != pressed, f"seat {seat} tapped as {role}")

    def hand_value(self, seat: int, han: str, fu: str | None = None) -> None:
        """A winner's han ("3", "y1" for a yakuman) and fu ("40")."""
        Select(self.find(f'.winner[data-seat="{seat}"] [name=han]')).select_by_value(han)
        if fu is not None:
            Select(self.find(f'.winner[data-seat="{seat}"] [name=fu]')).select_by_value(fu)

    def preview(self) -> list[str]:
        """The payments the page shows (one text per seat), once the engine answered."""
        self.wait(lambda: self.all("#preview .payments"), "the payments")
        return [row.text for row in self.all("#preview .payments tbody tr")]

    def refusal(self) -> str:
        """The engine's refusal the page shows in place of the payments."""
        return self.wait(lambda: self.text("#preview .refused") if self.all("#preview .refused") else None,
                         "the refusal")

    def confirm(self) -> str:
        """Confirm the result; the notice the page then shows."""
        self.click("#confirm")
        return self.wait_text("#entry .notice", "recorded")


def game_both_ways(browser, web_table: WebTable, more_procs: Processes, cli_game: list, play, page_class=None):
    """A game played on the page by ``play(page)`` (as a player, the operator having started
    it) while ``cli_game`` is typed at the CLI on a second table: (the page, the CLI's journal)."""
    from concurrent.futures import ThreadPoolExecutor

    from ..e2e.e2e_harness import play_game

    with ThreadPoolExecutor(1) as background:
        typed = background.submit(lambda: play_game(cli_table(more_procs), cli_game,
                                                    "--ruleset", EAST_ONLY, "--players", *PLAYERS))
        page = (page_class or Page)(browser, web_table.url).open()
        page.log_in_operator()
        pin = page.start_game(EAST_ONLY, PLAYERS)
        page.log_out()
        page.log_in_player(pin)
        play(page)
        return page, typed.result().journal
