"""Browser figures: the time from a table event to the page's DOM showing it, in a real
headless Chromium on the table page of `mjtable run` (console script, simulator on a pty),
and the page's weight (what a phone downloads: the HTML, scripts, style sheet and its language's catalog).

The event's time is when a subscriber on the control socket receives it; the DOM's is when
a MutationObserver in the page sees the body's state change. Both read the machine's
wall clock (milliseconds since the epoch), so the two processes' times compare.
"""
from __future__ import annotations

import gzip
import json
import re
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.bench_system import MJTABLE, Figures, spawn_first_line, stop
from benchmarks.bench_web import SECRET, _config, _start

CYCLES = 20  # pause / resume pairs
STATIC = Path(__file__).resolve().parent.parent / "controller" / "api" / "web" / "static"
PAGE_FILES = ("*.html", "*.js", "*.css", "i18n/en.json")  # and the one catalog of its language
LISTENING = r"listening on 127\.0\.0\.1:(\d+)"

WATCH_DOM = """
window.seen = [];
new MutationObserver(() => window.seen.push([document.body.dataset.state, performance.timeOrigin + performance.now()]))
  .observe(document.body, {attributes: true, attributeFilter: ["data-state"]});
"""


def page_weight() -> tuple[int, int]:
    """Bytes of the page's files, plain and gzipped (each file on its own, as served)."""
    files = [p for pattern in PAGE_FILES for p in STATIC.glob(pattern)]
    data = [p.read_bytes() for p in files]
    return sum(map(len, data)), sum(len(gzip.compress(d)) for d in data)


def _op(base: str, name: str) -> None:
    request = urllib.request.Request(f"{base}/api/op/{name}", data=b"{}", method="POST",
                                     headers={"Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as reply:
        assert json.load(reply)["ok"]


def _events(socket_path: Path, into: list, stop_flag: threading.Event) -> None:
    """Every state the control socket's subscriber sees, with the wall clock (ms) it came at."""
    from controller.api.client import Client

    with Client(socket_path, timeout=None).subscribe() as events:
        for event in events:
            into.append((event.get("state"), time.time() * 1e3))
            if stop_flag.is_set():
                return


def _wait_state(driver, state: str) -> None:
    deadline = time.monotonic() + 20
    while driver.execute_script("return document.body.dataset.state") != state:
        assert time.monotonic() < deadline, f"the page never showed state {state}"
        time.sleep(0.01)


def event_to_dom() -> list[float]:
    """Milliseconds from each pause's and resume's state event to the page showing it."""
    from tests.browser.browser_harness import PHONE, close_browser, new_browser

    events: list[tuple[str, float]] = []
    done = threading.Event()
    sim, device = spawn_first_line([MJTABLE, "sim", "--pty", "--speed", "1000"])
    driver = None
    try:
        with tempfile.TemporaryDirectory(prefix="mjtable-bench-browser-") as tmp:
            from controller.api.web.secret import hash_secret

            folder = Path(tmp)
            web = f"web:\n  listen: 127.0.0.1:0\n  operator_secret: {hash_secret(SECRET)}\n"
            run, _, log = _start(_config(folder, device, web))
            base = f"http://127.0.0.1:{re.search(LISTENING, log)[1]}"
            try:
                _op(base, "start")
                driver = new_browser(PHONE)
                driver.get(f"{base}/#table")
                _wait_state(driver, "playing")
                driver.execute_script(WATCH_DOM)
                threading.Thread(target=_events, args=(folder / "api.sock", events, done), daemon=True).start()
                time.sleep(0.3)  # subscribed
                for _ in range(CYCLES):
                    for op, state in (("pause", "paused"), ("resume", "playing")):
                        _op(base, op)
                        _wait_state(driver, state)
                seen = driver.execute_script("return window.seen")
            finally:
                done.set()
                stop(run)
    finally:
        if driver is not None:
            close_browser(driver)
        stop(sim)
    return _delays(events, seen)


def _delays(events: list[tuple[str, float]], seen: list[list]) -> list[float]:
    """For each change of state on the page, the time since the event that brought it."""
    delays, shown = [], None
    for state, at in seen:
        if state == shown:
            continue  # a redraw of the same state
        shown = state
        came = [t for s, t in events if s == state and t <= at]
        if came:
            delays.append(at - came[-1])
    return delays


def main() -> None:
    plain, zipped = page_weight()
    delays = event_to_dom()
    figures = Figures("browser: the table page in a real browser")
    median = statistics.median(delays)
    figures.add(f"table event to the page's DOM (headless Chromium), median / max of {len(delays)}",
                f"{median:.1f} / {max(delays):.1f} ms", "≤ 100 ms median", median <= 100)
    figures.add("page weight: HTML + JS + CSS, plain / gzipped", f"{plain / 1024:.1f} / {zipped / 1024:.1f} KB")
    figures.print()

if __name__ == "__main__":
    main()
