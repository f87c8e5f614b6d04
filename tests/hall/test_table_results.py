"""The table's side (controller/api/mqtt/results.py) through `mjtable demo --mqtt`: a
finished game's result stays retained on the broker for a hall that is not there yet, and
the hall started later stores it, for the round and table its seating gives."""
from __future__ import annotations

import json
import subprocess

from ..api.mqtt.listener import Listener
from ..support.mosquitto import PASSWORD
from ..support.processes import MJTABLE, wait_for
from .conftest import hall


def test_a_result_waits_on_the_broker_for_a_hall_started_later(hall_process, broker):
    folder = hall_process.folder
    (folder / "table-password").write_text(PASSWORD)
    played = subprocess.run([MJTABLE, "demo", "--tables", "1", "--mqtt", broker.url, "--mqtt-password-file",
                             "table-password", "--speed", "1000", "--no-web", "--journal", "game.jsonl"],
                            cwd=folder, capture_output=True, text=True, timeout=180)
    assert played.returncode == 0, played.stderr
    with Listener(broker.port, "floor", "mjtable/demo-1/results/+") as floor:
        kept = wait_for(lambda: [m for m in floor.messages if m.payload], "the retained result", 20)[0]
    assert kept.retain and kept.json()["table_id"] == "demo-1" and len(kept.json()["winds"]) == 4
    final = (folder / "game.jsonl").read_text().splitlines()[-1]
    hall_process.start()
    wait_for(lambda: f"round 1 table 1 (demo-1): result {kept.json()['key']} stored" in hall_process.logs(),
             "the hall to store it", 20)
    hall_process.stop()
    rows = hall("export", "rounds", cwd=folder).stdout.splitlines()[1:]
    assert sorted(int(r.split(",")[8]) for r in rows) == sorted(json.loads(final)["final_scores"])
