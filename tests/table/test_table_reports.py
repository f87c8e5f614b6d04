"""What the table reports is checked against the request and its capabilities: a lie is a
described fault (E303 bad_report) that the operator retries, never a value in the journal."""
import pytest

from firmware_protocol.codes import Code
from sim.faults import FaultPlan
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile

from controller.table import reports
from controller.table.capabilities import Capabilities
from controller.app.simulation import run_game

from ..support.retry import operator

CAPS = Capabilities.from_profile(vars(load_profile(DEFAULT_PROFILE)))


@pytest.mark.parametrize("values", [[7, 7], [0, 0], [3], [1, 2, 3, 4]])
def test_dice_outside_one_to_six_or_not_the_count_asked_are_a_bad_report(values):
    problem = reports.completion_problem("roll_dice", {"count": 2}, {"values": values}, CAPS)
    assert problem and str(values) in problem


def test_a_fair_throw_is_no_problem():
    assert reports.completion_problem("roll_dice", {"count": 2}, {"values": [1, 6]}, CAPS) is None


@pytest.mark.parametrize("name, asked, reported, where", [
    ("collect_tiles", {}, {"count": 60000}, "count"),
    ("shuffle", {}, {"count": 9999}, "count"),
    ("flip_dora", {"seat": 1, "stack": 3}, {"seat": 1, "stack": 4}, "stack"),
    ("set_wind_marker", {"wind": 0, "seat": 2}, {"wind": 9, "seat": 2}, "wind"),
])
def test_counts_beyond_the_tables_tiles_and_echoes_unlike_the_command_are_bad(name, asked, reported, where):
    problem = reports.completion_problem(name, asked, reported, CAPS)
    assert problem and where in problem


def test_a_tile_too_many_is_a_count_the_controller_handles_not_a_lie():
    # An extra tile in the hopper is real (TILE_COUNT, seen to by the operator).
    assert reports.completion_problem("collect_tiles", {}, {"count": CAPS.tiles + 1}, CAPS) is None


GOOD_STATUS = {"boot_id": 1, "operation": 0, "fault": 0, "stopped": False, "centre_open": False,
               "sets": [1, 4], "walls_up": True, "dead_wall_separated": True, "dora_flipped": 1, "wind": 0,
               "wind_seat": 0, "dealer_lamp": 255, "lid_open": False}


@pytest.mark.parametrize("field, value", [
    ("sets", [1, 9]), ("sets", [1]), ("operation", 42), ("dora_flipped", 200), ("wind", 4), ("wind_seat", 7),
    ("dealer_lamp", 4),
])
def test_status_fields_out_of_range_are_a_bad_report(field, value):
    problem = reports.status_problem({**GOOD_STATUS, field: value}, CAPS)
    assert problem and field in problem


def test_a_sane_status_is_no_problem():
    assert reports.status_problem(GOOD_STATUS, CAPS) is None


@pytest.mark.parametrize("lie", [(7, 7), (0, 0), (4,), (1, 2, 3, 4)], ids=["sevens", "zeros", "one", "four"])
def test_a_table_that_lies_about_the_dice_faults_is_retried_and_the_journal_stays_valid(lie):
    faults = []
    run = run_game("ema-2016", seed=3, faults=FaultPlan(bad_dice={1: list(lie)}),
                   on_controller=operator(5.0, on_fault=faults.append))
    assert faults and faults[0]["code"] == Code.BAD_REPORT
    assert str(list(lie)) in faults[0]["message"]
    assert any(r.name == "show_error" and r.args["code"] == Code.BAD_REPORT for r in run.trace)
    assert run.standings is not None
    for hand in run.hands:
        assert len(hand["dice"]) == 2 and all(1 <= v <= 6 for v in hand["dice"]), hand["dice"]
