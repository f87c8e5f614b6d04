"""A real mosquitto with its users, `mjtable floor` on it, and a table's hand-published messages."""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

import pytest

from ...support.mosquitto import PASSWORD, Mosquitto
from ...support.processes import Processes

TABLES = ("t1", "t2", "t3", "fleet-1", "fleet-2", "fleet-3")


@pytest.fixture
def broker(short_tmp):
    mosquitto = Mosquitto(short_tmp / "broker", users=TABLES).start()
    yield mosquitto
    mosquitto.kill()


@dataclass
class Floor:
    url: str
    proc: subprocess.Popen


def start_floor(procs: Processes, broker: Mosquitto, *options: str) -> Floor:
    """`mjtable floor` as the docs show it, as the broker's `floor` user, on a free port."""
    secret = procs.folder / "floor.password"
    secret.write_text(PASSWORD + "\n")
    proc = procs.start("floor", "--broker", broker.url, "--listen", "127.0.0.1:0", "--username", "floor",
                       "--password-file", str(secret), *options, name="floor", stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("floor view on http://"), f"mjtable floor said {line!r}"
    return Floor(line.split(" on ", 1)[1].strip(), proc)


@pytest.fixture
def floor(procs, broker) -> Floor:
    return start_floor(procs, broker)


def publish(broker: Mosquitto, table: str, kind: str, payload, retain: bool = True) -> None:
    """What the table's controller would publish, as that table's user."""
    import paho.mqtt.publish as mqtt
    text = payload if isinstance(payload, str) else json.dumps(payload)
    mqtt.single(f"mjtable/{table}/{kind}", text, qos=1, retain=retain, hostname="127.0.0.1", port=broker.port,
                auth={"username": table, "password": PASSWORD})


def status(**fields) -> dict:
    return {"state": "playing", "ruleset": "ema-2016", "hand": "E1", "hands_played": 0, "seats": [0, 1, 2, 3],
            "scores": [30000] * 4, "dealer": 0, "honba": 0, "riichi_sticks": 0, "fault": None, "fault_code": None,
            "waiting_for": "result", **fields}
