"""Protocol 1.1 on the simulated table: the version offer, the odometer, the sensor test
mode and its state rules, the stick reader; and a 1.0 table that knows none of it."""
from __future__ import annotations

import dataclasses

import pytest

from firmware_protocol.catalog import FEATURES, SENSORS, TEST_SUBSYSTEMS, version_byte
from firmware_protocol.codes import Code
from sim import FaultPlan
from firmware_protocol.profile import CONFIG_DIR, StickReader, load_profile
from mjtable_config.schema import ConfigError

V1_1 = version_byte(1, 1)


def profile(**changes):
    return dataclasses.replace(load_profile("four-port"), **changes)


def features(identity) -> set[str]:
    return {f for i, f in enumerate(FEATURES) if identity["features"] >> i & 1}


def test_a_1_1_table_answers_an_offer_of_1_1_with_its_capability_bits(bench):
    b = bench(profile(stick_reader=StickReader()), identify=False)
    identity = b.send("identify", protocol_version=V1_1)
    assert identity.name == "identity_1_1" and identity["protocol_version"] == V1_1
    assert features(identity) == {"counters", "sensor_test", "stick_reader"}
    assert features(bench(identify=False).send("identify", protocol_version=V1_1)) == {"counters", "sensor_test"}


def test_a_1_1_table_answers_a_1_0_host_as_a_1_0_table(bench):
    b = bench(identify=False)
    assert b.send("identify", protocol_version=1).name == "identity"
    assert b.send("identify", protocol_version=version_byte(1, 7))["protocol_version"] == V1_1  # the older minor
    assert b.refused("identify", protocol_version=2) == Code.VERSION_MISMATCH


def test_a_1_0_table_refuses_the_offer_and_knows_no_1_1_message(bench):
    b = bench(profile(protocol="1.0"), identify=False)
    assert b.refused("identify", protocol_version=V1_1) == Code.VERSION_MISMATCH
    assert b.send("identify", protocol_version=1).name == "identity"
    for name in ("get_counters", "enter_maintenance", "read_sticks"):
        reply = b.send(name)
        assert (reply["code"], reply["detail"][:18]) == (Code.PROTOCOL, "unknown message id"), name


def test_the_odometer_counts_cycles_motor_time_and_faults_per_sensor_until_serviced(bench):
    b = bench(faults=FaultPlan(jam={2: "stacker"}))
    b.run("raise_walls")
    assert b.run("shuffle").name == "shuffle_done"
    b.run("collect_tiles")
    b.run("raise_walls")
    assert b.run("shuffle").name == "fault"  # the second shuffle jams
    counters = b.send("get_counters")
    timings = b.model.profile.timings
    assert (counters["shuffle_cycles"], counters["lift_cycles"], counters["cycles_since_service"]) == (1, 2, 1)
    assert counters["motor_seconds"] == int(2 * timings.raise_walls + timings.shuffle + timings.collect)
    stacker = SENSORS.index("stacker")
    assert counters["faults"][stacker] == counters["jams"][stacker] == 1 and sum(counters["faults"]) == 1
    b.table.firmware.reset()  # non-volatile: an MCU reset keeps them
    b.identify()
    b.ok("reset_service_counter")
    after = b.send("get_counters")
    assert (after["shuffle_cycles"], after["cycles_since_service"]) == (1, 0)


def test_maintenance_mode_runs_one_subsystem_at_a_time_and_refuses_the_game(bench):
    b = bench()
    assert b.refused("test_subsystem", subsystem=0, seat=0) == Code.NOT_IN_MAINTENANCE
    assert b.refused("read_sensors") == Code.NOT_IN_MAINTENANCE
    b.ok("raise_walls")
    assert b.refused("enter_maintenance") == Code.BUSY  # an operation runs
    b.next_event()
    b.ok("enter_maintenance")
    assert b.refused("shuffle") == Code.MAINTENANCE
    lifts = TEST_SUBSYSTEMS.index("lifts")
    b.ok("test_subsystem", subsystem=lifts, seat=0)
    assert b.refused("test_subsystem", subsystem=TEST_SUBSYSTEMS.index("dice"), seat=0) == Code.BUSY
    assert b.refused("leave_maintenance") == Code.BUSY
    assert b.next_event().args == {"subsystem": lifts, "seat": 0, "result": 0, "sensor": 0}
    display = TEST_SUBSYSTEMS.index("display")
    b.ok("test_subsystem", subsystem=display, seat=3)
    assert b.next_event()["seat"] == 3
    assert b.refused("test_subsystem", subsystem=display, seat=4) == Code.BAD_ARGUMENT
    values = b.send("read_sensors")["values"]
    assert [SENSORS[i] for i, v in enumerate(values) if v] == ["hopper", "lift_0", "lift_1", "lift_2", "lift_3"]
    b.ok("leave_maintenance")
    assert b.run("shuffle").name == "shuffle_done"


def test_a_table_without_the_device_refuses_its_test_and_a_reset_or_a_new_session_leaves_the_mode(bench):
    b = bench(profile(dora_flipper=False))
    b.ok("enter_maintenance")
    assert b.refused("test_subsystem", subsystem=TEST_SUBSYSTEMS.index("dora"), seat=0) == Code.UNSUPPORTED
    b.table.firmware.reset()
    b.identify()
    assert b.refused("read_sensors") == Code.NOT_IN_MAINTENANCE
    b.ok("enter_maintenance")
    b.identify()  # a host that lost the link midway connects again: its game is not refused
    assert b.run("raise_walls").name == "walls_raised"


def test_stop_aborts_a_test_which_then_reports_nothing(bench):
    b = bench()
    b.ok("enter_maintenance")
    b.ok("test_subsystem", subsystem=TEST_SUBSYSTEMS.index("centre"), seat=0)
    b.ok("stop")
    b.wait(60)
    assert b.events("subsystem_tested") == []
    b.ok("leave_maintenance")


def test_the_lid_opened_during_a_test_is_a_fault_that_aborts_it(bench):
    b = bench()
    b.ok("enter_maintenance")
    b.ok("test_subsystem", subsystem=TEST_SUBSYSTEMS.index("lifts"), seat=0)
    b.table.open_lid()
    b.wait(60)
    assert [e["code"] for e in b.events("fault")] == [Code.LID_OPENED]
    assert b.events("subsystem_tested") == []


def test_a_profile_names_the_protocol_and_the_reader_rates_are_shares(tmp_path):
    text = (CONFIG_DIR / "tables" / "four-port-sticks.yaml").read_text()
    path = tmp_path / "t.yaml"
    path.write_text(text.replace("misread_rate: 0.0", "misread_rate: 0.25"))
    assert load_profile(path).stick_reader == StickReader(misread_rate=0.25)
    path.write_text(text.replace("misread_rate: 0.0", "misread_rate: 2.0"))
    with pytest.raises(ConfigError, match=r"stick_reader.misread_rate: 2.0 is out of range; allowed: a number from 0 to 1"):
        load_profile(path)
    path.write_text(text + 'protocol: "2.0"\n')
    with pytest.raises(ConfigError, match="protocol"):
        load_profile(path)


def test_the_stick_reader_reads_the_trays_and_misreads_at_its_rate(bench):
    scores = [25000, 33000, -1200, 23200]
    exact = bench(profile(stick_reader=StickReader()))
    exact.ok("show_scores", scores=scores, mode=0, dealer=0)
    assert exact.send("read_sticks").args == {"totals": scores, "wrong_slot": 0}
    wrong = bench(profile(stick_reader=StickReader(misread_rate=1.0, wrong_slot_rate=1.0)))
    wrong.ok("show_scores", scores=scores, mode=0, dealer=0)
    reading = wrong.send("read_sticks")
    assert reading["wrong_slot"] == 0b1111 and all(t != s for t, s in zip(reading["totals"], scores))
    assert bench().refused("read_sticks") == Code.UNSUPPORTED
