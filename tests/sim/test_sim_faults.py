"""Injected faults, stop/resume, the watchdog and MCU resets."""
from __future__ import annotations

from firmware_protocol.catalog import SENSORS, SET_LOCATIONS, SUBSYSTEMS
from firmware_protocol.codes import Code
from sim import FaultPlan, LidOpening


def fault_of(event) -> tuple[Code, str, str]:
    assert event.name == "fault", event
    return Code(event["code"]), SUBSYSTEMS[event["subsystem"]], SENSORS[event["sensor"]]


def hand_played(b) -> None:
    """Walls of set A up, set B shuffled and waiting: ready to collect."""
    b.run("raise_walls")
    b.run("shuffle")


def test_jam_on_the_nth_shuffle_then_resume_and_retry(bench):
    b = bench(faults=FaultPlan(jam={1: "stacker"}))
    b.run("raise_walls")
    assert fault_of(b.run("shuffle")) == (Code.JAM, "shuffler", "stacker")
    status = b.status()
    assert status["stopped"] and status["fault"] == Code.JAM
    assert SET_LOCATIONS[status["sets"][1]] == "collected"  # the aborted shuffle left it in the hopper
    assert b.refused("shuffle") == Code.STOPPED
    b.ok("resume")
    assert b.run("shuffle").name == "shuffle_done"


def test_missing_tile_counts_135_and_faults_the_shuffle(bench):
    b = bench(faults=FaultPlan(missing_tile={1}))
    hand_played(b)
    assert b.run("collect_tiles").args == {"count": 135}
    b.run("raise_walls")
    event = b.run("shuffle")
    assert fault_of(event)[0] == Code.TILE_COUNT
    assert (event["expected"], event["counted"]) == (136, 135)
    b.ok("resume")  # the operator put the tile back
    assert b.run("shuffle").args == {"count": 136}


def test_extra_tile_counts_137(bench):
    b = bench(faults=FaultPlan(extra_tile={1}))
    hand_played(b)
    assert b.run("collect_tiles").args == {"count": 137}
    b.run("raise_walls")
    event = b.run("shuffle")
    assert (event["code"], event["expected"], event["counted"]) == (Code.TILE_COUNT, 136, 137)


def test_bad_dice_report_the_values_of_the_plan_on_that_roll_only(bench):
    b = bench(faults=FaultPlan(bad_dice={1: [7, 7]}))
    assert b.run("roll_dice", count=2).args == {"values": [7, 7]}
    assert all(1 <= v <= 6 for v in b.run("roll_dice", count=2)["values"])


def test_lift_stuck_on_the_nth_raise_leaves_the_set_stacked(bench):
    b = bench(faults=FaultPlan(lift_stuck={1: 2}))
    assert fault_of(b.run("raise_walls")) == (Code.LIFT_STUCK, "lifts", "lift_2")
    b.ok("resume")
    assert SET_LOCATIONS[b.status()["sets"][0]] == "stacked"
    assert b.run("raise_walls").name == "walls_raised"


def test_build_timeout_fires_at_the_build_limit(bench):
    b = bench(faults=FaultPlan(build_timeout={1}))
    b.run("raise_walls")
    start = b.loop.time()
    assert fault_of(b.run("shuffle"))[0] == Code.BUILD_TIMEOUT
    assert b.loop.time() - start == 80.0


def test_a_fault_stops_all_motion_without_completions(bench):
    b = bench()
    b.ok("set_wind_marker", wind=2, seat=1)  # 1 s
    b.ok("raise_walls")                      # 6 s
    b.ok("roll_dice", count=2)               # 2 s
    b.wait(1.5)
    b.table.open_lid()
    b.wait(100)
    assert [e.name for e in b.events()] == ["wind_marker_set", "fault"]
    assert fault_of(b.events()[-1]) == (Code.LID_OPENED, "lid", "none")
    assert b.model.dice == ()


def test_stop_aborts_and_blocks_motion_until_resume(bench):
    b = bench()
    b.ok("raise_walls")
    b.ok("stop")
    b.wait(20)
    assert b.events() == []
    assert SET_LOCATIONS[b.status()["sets"][0]] == "stacked"
    assert b.refused("raise_walls") == Code.STOPPED
    b.ok("show_text", seats=0, text="paused")  # displays stay usable
    b.ok("resume")
    assert b.run("raise_walls").name == "walls_raised"


def test_lid_opened_at_a_time_refuses_resume_until_closed(bench):
    b = bench(faults=FaultPlan(lid_open=[LidOpening(at=10.0, duration=5.0)]))
    b.run("raise_walls")
    b.ok("shuffle")
    event = b.next_event()
    assert fault_of(event)[0] == Code.LID_OPENED and b.loop.time() == 10.0
    assert b.refused("resume") == Code.LID_OPEN
    b.wait(5)
    assert b.status()["lid_open"] is False
    b.ok("resume")
    assert b.run("shuffle").name == "shuffle_done"


def test_open_lid_refuses_motion(bench):
    b = bench()
    b.table.open_lid()
    assert b.events() == []  # nothing moved: no fault
    assert b.refused("raise_walls") == Code.LID_OPEN
    b.table.close_lid()
    b.ok("raise_walls")


# --- the watchdog ---------------------------------------------------------------------------
def test_watchdog_stops_motion_when_the_host_falls_silent(bench):
    b = bench(watchdog=True)
    b.ok("raise_walls")
    assert fault_of(b.next_event()) == (Code.WATCHDOG, "host_link", "none")
    assert b.loop.time() == 3.0
    assert b.status()["stopped"] and b.model.set_at("stacked") is not None


def test_heartbeats_keep_the_watchdog_quiet(bench):
    b = bench(watchdog=True)
    b.ok("raise_walls")
    for _ in range(10):
        b.wait(2.5)
        b.ok("heartbeat")
    assert [e.name for e in b.events()] == ["walls_raised"]


def test_watchdog_sleeps_until_identify(bench):
    b = bench(watchdog=True, identify=False)
    b.wait(30)
    assert b.events() == []


# --- MCU resets -------------------------------------------------------------------------------
def test_reset_loses_volatile_state_and_aborts_motion(bench):
    b = bench()
    b.ok("show_scores", scores=[1, 2, 3, 4], mode=0, dealer=0)
    b.ok("set_dealer_lamp", seat=1)
    b.run("set_wind_marker", wind=1, seat=1)
    b.ok("raise_walls")
    old_boot = b.table.boot_id
    b.table.reset_mcu()
    booted = b.events()[-1]
    assert booted.name == "booted" and booted["boot_id"] == b.table.boot_id != old_boot
    assert b.refused("get_status") == Code.NOT_IDENTIFIED
    b.identify()
    status = b.status()
    assert SET_LOCATIONS[status["sets"][0]] == "stacked"  # the interrupted raise never happened
    assert status["dealer_lamp"] == 0xFF and b.model.seat_displays[0].scores is None
    assert (status["wind"], status["wind_seat"]) == (1, 1)  # the marker is where the motor left it
    b.wait(10)
    assert b.events()[-1].name == "booted"  # no walls_raised from the old boot


def test_interrupted_shuffle_leaves_the_set_collected(bench):
    b = bench(faults=FaultPlan(reset_at=[20.0]))
    b.run("raise_walls")
    b.ok("shuffle")
    assert b.next_event().name == "booted"
    b.identify()
    assert [SET_LOCATIONS[i] for i in b.status()["sets"]] == ["on_table", "collected"]


def test_reset_after_the_nth_command(bench):
    b = bench(faults=FaultPlan(reset_after_command={3}))  # identify was the first
    b.ok("get_status")
    b.ok("raise_walls")
    assert b.next_event().name == "booted"
    assert b.model.set_at("stacked") is not None
