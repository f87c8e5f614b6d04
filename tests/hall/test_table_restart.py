"""A table whose game ends while it is cut from the broker, and whose controller is then
killed and started again before the broker is back: the result it kept next to its
database reaches the hall once, through `mjtable run` on a simulated table, a real
mosquitto and `mjtable hall serve`."""
from __future__ import annotations

import json
import signal

from ..api.mqtt.harness import MqttTable
from ..support.processes import wait_for
from .conftest import hall

# E1 a chombo by Cy (seat 2: re-dealt, the EMA's penalty at the end); E1 Bo (seat 1) ron on Cy;
# E2 Di (seat 3) ron on Ann; then six draws nobody is tenpai for: the game is over
HANDS = [{"kind": "chombo", "offender": 2},
         {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}]},
         {"kind": "ron", "discarder": 0, "winners": [{"seat": 3, "han": 2, "fu": 30}]},
         *[{"kind": "draw", "tenpai": []}] * 6]


def test_a_result_kept_across_a_cut_and_a_killed_controller_reaches_the_hall_once(hall_process, broker, procs):
    table = MqttTable(procs, broker, table_id="demo-1")
    table.client.request("start", players=[{"name": n} for n in ("Ann", "Bo", "Cy", "Di")])
    seq = 0
    for n, result in enumerate(HANDS, 1):
        seq = table.wait_hand_after(seq)["hand_in_play"]["seq"]
        if n == len(HANDS):
            broker.kill()  # cut from the broker across the game's end
        table.client.request("result", hand=seq, result=result)
    table.wait_game_over()
    kept = procs.folder / "state.results.json"
    wait_for(lambda: kept.exists() and json.loads(kept.read_text()), "the result kept next to the database")
    table.stop_controller(signal.SIGKILL)
    table.start_controller()
    broker.start()
    hall_process.start()
    wait_for(lambda: "round 1 table 1 (demo-1): result" in hall_process.logs(), "the hall to store it", 30)
    wait_for(lambda: json.loads(kept.read_text()) == {}, "the table to hear the hall's confirmation", 30)
    hall_process.stop()
    assert hall_process.logs().count(" stored\n") == 1
    final = table.journal()[-1]
    rows = [r.split(",") for r in hall("export", "rounds", cwd=hall_process.folder).stdout.splitlines()[1:]]
    assert [int(r[8]) for r in rows] == final["final_scores"]  # East (seat 0) first, the chombo deducted
    assert [r[11] for r in rows] == ["0", "0", "1", "0"]
