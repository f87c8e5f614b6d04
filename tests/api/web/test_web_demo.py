"""`mjtable demo` shows the game in a browser too: it prints the page's address, and the
page's API follows the game to its end (`--stay` keeps it open after)."""
import json
import re
import subprocess
import urllib.request

from ...support.processes import wait_for


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_the_demo_prints_the_pages_address_and_serves_the_game(procs):
    demo = procs.start("demo", "--speed", "10000", "--web", "127.0.0.1:0", "--stay", name="demo",
                       stdout=subprocess.PIPE, text=True)
    first = demo.stdout.readline()
    url = re.match(r"the table's web page: (http://127\.0\.0\.1:\d+/)  \(operator secret", first)[1]
    assert _get(url + "api/session")["role"] == "spectator"
    wait_for(lambda: _get(url + "api/status")["state"] == "game_over", "the demo's game to end", timeout=90,
             interval=0.5)
    journal = json.loads(urllib.request.urlopen(urllib.request.Request(url + "api/op/journal", data=b"{}"),
                                                timeout=10).read())
    assert journal["game"]["status"] == "finished" and journal["records"][-1]["final"] is True


def test_a_demo_tables_page_serves_its_metrics(procs):
    """README and docs/FLOOR.md: a table's page serves /metrics; a demo table's too."""
    demo = procs.start("demo", "--speed", "10000", "--web", "127.0.0.1:0", "--stay", name="demo",
                       stdout=subprocess.PIPE, text=True)
    url = re.match(r"the table's web page: (http://127\.0\.0\.1:\d+/)", demo.stdout.readline())[1]
    wait_for(lambda: _get(url + "api/status")["state"] == "game_over", "the demo's game to end", timeout=90,
             interval=0.5)
    with urllib.request.urlopen(url + "metrics", timeout=10) as response:
        metrics = response.read().decode()
    assert response.headers["Content-Type"].startswith("text/plain")
    assert re.search(r"^mjtable_games_finished_total 1\.0$", metrics, re.M)
    assert re.search(r"^mjtable_hands_played_total [1-9]", metrics, re.M)
