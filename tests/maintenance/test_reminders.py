"""Maintenance reminders: the config's service intervals against the table's and the
controller's counters; due in status, cleared by a recorded service, kept across a restart."""
from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from controller import rules as R
from controller.app.config import load_table_config
from controller.game.controller import Controller
from controller.maintenance.intervals import Interval
from controller.maintenance.control import Maintenance
from controller.maintenance.reminders import due, readings
from controller.game.settings import Settings, durations_from
from controller.app.simulation import PlayerDriver, table_rules
from controller.store.database import Store
from firmware_protocol.virtual_time import run_virtual
from mjtable_config.schema import ConfigError
from sim.players import Players
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile
from sim.serve import connect_in_process
from sim.table import SimulatedTable

COUNTERS = {"shuffle_cycles": 2100, "lift_cycles": 2110, "motor_seconds": 36000, "cycles_since_service": 1850,
            "faults": {"stacker": 3, "lift_1": 1}, "jams": {"stacker": 2}}


def test_a_reminder_is_listed_from_90_percent_and_due_from_100():
    now = readings(COUNTERS, {"hands": 5100, "games": 390, "faults": 7})
    intervals = {"clean_tiles": Interval(every=2000, counter="shuffles"),
                 "check_lifts": Interval(every=2000, counter="lift_cycles"),
                 "grease": Interval(every=10, counter="motor_hours"),
                 "felt": Interval(every=400, counter="games"),
                 "jams": Interval(every=3, counter="jams")}
    at_service = {"lift_cycles": 10, "motor_hours": 0.5, "games": 100}
    assert due(intervals, now, at_service) == [
        {"task": "clean_tiles", "counter": "shuffles", "every": 2000, "since": 1850, "due": False},
        {"task": "check_lifts", "counter": "lift_cycles", "every": 2000, "since": 2100, "due": True},
        {"task": "grease", "counter": "motor_hours", "every": 10, "since": 9.5, "due": False},
    ]  # felt: 290 of 400; jams: 2 of 3 — neither near


def test_a_counter_below_its_reading_at_the_service_counts_from_zero_and_a_missing_one_is_skipped():
    intervals = {"felt": Interval(every=100, counter="hands"), "clean": Interval(every=10, counter="shuffles")}
    assert due(intervals, {"hands": 95}, {"hands": 5000}) == [
        {"task": "felt", "counter": "hands", "every": 100, "since": 95, "due": False}]  # another board's store


def config_text(maintenance: str) -> str:
    return (f"kind: table\nserial: {{port: /dev/ttyUSB0, baud: 115200}}\nprofile: {DEFAULT_PROFILE}\n"
            f"ruleset: ema-2016\nstate: {{database: state.db}}\napi: {{socket: api.sock}}\n{maintenance}")


def test_the_maintenance_section_of_the_table_config(tmp_path):
    path = tmp_path / "table.yaml"
    path.write_text(config_text("maintenance:\n  clean_tiles: {every: 2000, counter: shuffles}\n"
                                "  felt: {every: 500, counter: games}\n"))
    assert load_table_config(path).maintenance == {"clean_tiles": Interval(every=2000, counter="shuffles"),
                                                   "felt": Interval(every=500, counter="games")}
    path.write_text(config_text("maintenance:\n  clean_tiles: {every: 0, counter: shufles}\n  bad name: {every: 1, counter: hands}\n"))
    with pytest.raises(ConfigError) as err:
        load_table_config(path)
    text = str(err.value)
    assert "maintenance.clean_tiles.every" in text and "did you mean 'shuffles'" in text
    assert "task name 'bad name'" in text


def test_a_table_without_counters_records_the_service_for_the_controllers_reminders(short_tmp):
    """Protocol 1.0: hands and games only; `record_service` clears them, and the readings at
    the service are written beside the database."""
    profile = dataclasses.replace(load_profile("four-port"), protocol="1.0")
    service_file = short_tmp / "state.service.json"
    settings = Settings(durations=durations_from(profile.timings), service_file=service_file,
                        maintenance={"felt": Interval(every=5, counter="hands"),
                                     "clean_tiles": Interval(every=1, counter="shuffles")})
    rules = R.load_ruleset("ema-2016")

    async def game_then_service():
        table = SimulatedTable(profile, seed=2)
        loop = asyncio.get_running_loop()
        controller = Controller(lambda: _connected(loop, table), rules, store=Store(short_tmp / "state.db"),
                                settings=settings, seed=2)
        PlayerDriver(controller, Players(table_rules(rules), seed=2))
        await controller.start()
        await controller.new_game(0)
        await controller.play()
        await asyncio.sleep(1.0)  # the reminders' reading after the game
        before = controller.reminders.due()
        reply = await Maintenance(controller.table, controller.sm, controller.reminders).reset_service_counter()
        after = controller.reminders.due()
        controller.close()
        return before, reply, after, controller.settled
    before, reply, after, hands = run_virtual(game_then_service())
    assert [(d["task"], d["due"]) for d in before] == [("felt", True)]  # a 1.0 table counts no shuffles
    assert reply == {"counters": None} and after == []
    assert json.loads(service_file.read_text()) == {"at_service": {"hands": hands, "games": 1, "faults": 0}}


async def _connected(loop, table):
    return connect_in_process(loop, table)
