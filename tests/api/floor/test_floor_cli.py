"""`mjtable floor` on a real broker: retained tables at once, live changes, a broker restart."""
from __future__ import annotations

import json
import urllib.request

from ...support.processes import wait_for
from .conftest import publish, start_floor, status


def board(floor) -> dict:
    with urllib.request.urlopen(floor.url + "tables", timeout=5) as reply:
        return json.load(reply)


def tile(floor, table: str) -> dict | None:
    return next((t for t in board(floor)["tiles"] if t["table_id"] == table), None)


def test_a_floor_opened_later_shows_every_retained_table_at_once(procs, broker):
    publish(broker, "t1", "status", status(hand="E3", hands_played=2))
    publish(broker, "t1", "availability", "online")
    publish(broker, "t2", "status", status(state="idle"))
    publish(broker, "t2", "availability", "offline")
    floor = start_floor(procs, broker)
    wait_for(lambda: [t["online"] for t in board(floor)["tiles"]] == [True, False], "both retained tables on the floor")
    t1, t2 = tile(floor, "t1"), tile(floor, "t2")
    assert (t1["hand"], t1["hands_played"], t1["online"]) == ("E3", 2, True)
    assert (t2["state"], t2["online"]) == ("idle", False)


def test_the_floor_catches_up_after_a_broker_restart(procs, broker, floor):
    publish(broker, "t1", "status", status(hand="E1"))
    wait_for(lambda: (tile(floor, "t1") or {}).get("hand") == "E1", "t1 on the floor")
    broker.kill()
    wait_for(lambda: not board(floor)["broker"]["up"], "the floor to notice the broker is gone")
    broker.start()  # the same port, nothing retained (no persistence): the table republishes
    wait_for(lambda: board(floor)["broker"]["up"], "the floor to reconnect", timeout=15)
    publish(broker, "t1", "status", status(hand="E2", hands_played=1))
    wait_for(lambda: (tile(floor, "t1") or {}).get("hand") == "E2", "t1's new status after the restart")
    assert floor.proc.poll() is None


def test_a_bad_broker_url_or_listen_address_is_refused(procs):
    import subprocess
    from ...support.processes import MJTABLE
    for args, said in ((["--broker", "http://x"], "mqtt://"), (["--broker", "mqtt://h", "--listen", "nowhere"], "HOST:PORT"),
                       (["--broker", "mqtt://h", "--prefix", "mjtable/#"], "no wildcards")):
        done = subprocess.run([MJTABLE, "floor", *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and said in done.stderr, done.stderr
