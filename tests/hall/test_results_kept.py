"""The table's results for the hall, kept next to its database (controller/api/mqtt/results.py),
in process: the file read back after a restart, a damaged file told and not sent, a file
that cannot be written told while the result is still held and sent."""
from __future__ import annotations

import asyncio
import json

from controller.api.mqtt.results import Results
from controller.api.mqtt.topics import Topics

TOPICS = Topics.of("mjtable", "demo-1", None)
STATUS = {"seats": [0, 1, 2, 3], "starting_dealer": 1, "ruleset": "ema-2016", "round": 2, "table": 7,
          "seat_players": [{"seat": s, "name": n} for s, n in enumerate(("Ann", "Bo", "Cy", "Di"))]}
FINAL = {"event": "game_over", "scores": [28000, 35200, 24800, 32000], "final_scores": [-7000, 20200, -20200, 7000],
         "ranks": [3, 1, 4, 2]}


class Handler:
    async def handle(self, op, args):
        return STATUS


async def _game_over(results: Results) -> None:
    results.on_event({"event": "game_started"})
    results.on_event({"event": "hand_ended", "record": {"hand": "E1", "result": {"kind": "chombo", "offender": 2},
                                                        "payments": [0, 0, 0, 0]}})
    results.on_event(FINAL)
    await asyncio.gather(*results._tasks)


def test_a_result_is_kept_across_a_restart_east_first_with_its_penalties(tmp_path):
    path = tmp_path / "state.results.json"
    asyncio.run(_game_over(Results(TOPICS, Handler(), path)))
    again = Results(TOPICS, Handler(), path)
    (message,) = [json.loads(m) for m in again.pending.values()]
    assert [w["name"] for w in message["winds"]] == ["Bo", "Cy", "Di", "Ann"]  # from the starting dealer, seat 1
    assert [w["table_points"] for w in message["winds"]] == [20200, -20200, 7000, -7000]
    assert message["round"] == 2 and message["table"] == 7 and message["ended"] == "rules"
    assert message["penalties"] == [{"hand": "E1", "seat": 2, "kind": "chombo", "payments": [0, 0, 0, 0]}]


def test_a_damaged_file_is_told(tmp_path, caplog):
    path = tmp_path / "state.results.json"
    path.write_text("{not json")
    assert Results(TOPICS, Handler(), path).pending == {}
    assert f"the results kept for the hall in {path} cannot be read" in caplog.text


def test_a_file_that_cannot_be_written_is_told_and_the_result_still_held(tmp_path, caplog):
    path = tmp_path / "missing-folder" / "state.results.json"
    results = Results(TOPICS, Handler(), path)
    asyncio.run(_game_over(results))
    assert len(results.pending) == 1
    assert f"the results for the hall cannot be kept in {path}" in caplog.text
