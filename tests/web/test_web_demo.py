"""`mjtable demo` shows the game in a browser too: it prints the page's address, and the
page's API follows the game to its end (`--stay` keeps it open after)."""
import json
import re
import subprocess
import urllib.request

from ..support.processes import wait_for


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
