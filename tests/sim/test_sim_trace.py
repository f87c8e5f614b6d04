"""The hardware trace: what the table did, in memory and as JSON lines."""
from __future__ import annotations

import asyncio
import json

from firmware_protocol.catalog import Message
from firmware_protocol.virtual_time import VirtualTimeLoop
from sim import DEFAULT_PROFILE, SimulatedTable


def test_trace_file_matches_records_and_carries_the_decoded_fields(bench, tmp_path):
    path = tmp_path / "trace.jsonl"
    b = bench(trace_path=path)
    b.ok("show_scores", scores=[25000, 25000, 30000, 20000], mode=0, dealer=1)
    b.run("raise_walls")
    values = b.run("roll_dice", count=2)["values"]
    b.run("separate_dead_wall", breaker=3, position=4, length=7)
    b.refused("flip_dora", seat=0, stack=30)
    b.table.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == [r.as_dict() for r in b.table.trace.records]
    trace = b.table.trace
    assert trace.named("show_scores")[0].args == {"scores": [25000, 25000, 30000, 20000], "mode": 0, "dealer": 1}
    assert trace.named("dice_rolled", "event")[0].args == {"values": values}
    assert trace.named("separate_dead_wall", "cmd")[0].args == {"breaker": 3, "position": 4, "length": 7}
    assert trace.named("rejected", "reply")[0].args["code"] == 106
    assert trace.named("walls_raised")[0].t == 6.0


def test_trace_time_is_simulated_time_at_any_speed():
    loop = VirtualTimeLoop()
    table = SimulatedTable(DEFAULT_PROFILE, speed=10, loop=loop)
    table.firmware.bind(lambda msg: None)
    table.firmware.on_message(Message("identify", {"protocol_version": 1}))
    table.firmware.on_message(Message("raise_walls"))
    loop.run_until_complete(asyncio.sleep(0.7))
    assert loop.time() == 0.7
    assert table.trace.named("walls_raised")[0].t == 6.0
    loop.close()
