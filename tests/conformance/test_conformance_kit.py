"""The conformance kit against simulated tables in virtual time: every shipped profile
passes, with the MCU reset checks run; each broken table fails the check for its rule."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from .broken_tables import BROKEN, make_table
from firmware_protocol.conformance import CHECKS, Report, run_checks
from firmware_protocol.virtual_time import run_virtual
from mjtable_config import shipped_names
from sim.serve import connect_in_process

PROFILES = shipped_names("tables")  # every shipped table profile
PROTOCOL_MD = Path(__file__).parents[2] / "firmware_protocol" / "PROTOCOL.md"
V11 = [c.name for c in CHECKS if c.name.startswith("v11.")]  # the protocol 1.1 checks


def run_kit(profile: str, variant: str | None = None, resettable: bool = True, protocol: str | None = None,
            ended: dict | None = None, reset_delay: float = 0.0, **changes) -> tuple[Report, list[str]]:
    """Run the kit; `ended` gets whether the table ended moving and in maintenance mode;
    the MCU reset takes effect `reset_delay` seconds after the kit asks; `changes` replace
    fields of the table's profile."""
    lines: list[str] = []

    async def scenario() -> Report:
        loop = asyncio.get_running_loop()
        table = make_table(profile, variant, loop=loop, protocol=protocol, **changes)

        async def reset() -> None:
            await asyncio.sleep(reset_delay)
            table.reset_mcu()
        try:
            return await run_checks(connect_in_process(loop, table), lines.append,
                                    reset=reset if resettable else None)
        finally:
            if ended is not None:
                ended.update(moving=dict(table.model.motion), maintenance=table.firmware.maintenance.active)
            table.close()
    return run_virtual(scenario()), lines


@pytest.mark.parametrize("profile", PROFILES)
def test_every_shipped_profile_passes_with_one_line_per_check(profile):
    report, lines = run_kit(profile)
    assert report.failed == [], "\n".join(lines)
    assert len(lines) == len(CHECKS) + 1 and lines[-1].startswith("conformance PASS")
    by_name = {r.check.name: r.verdict for r in report.results}
    assert by_name["reset.state"] == by_name["watchdog.fault"] == by_name["link.duplicate"] == "pass"


def test_checks_for_devices_the_table_lacks_are_not_applicable():
    report, lines = run_kit("basic")  # no separator, no dora flipper
    verdicts = {r.check.name: (r.verdict, r.note) for r in report.results}
    assert verdicts["command.flip_dora"] == ("n/a", "the table has no dora flipper")
    assert verdicts["bad_argument.separate_dead_wall"][0] == "n/a"
    assert verdicts["unsupported"] == ("pass", "separate_dead_wall, flip_dora")


def test_a_stick_reader_and_the_sensor_test_mode_are_checked_and_left_as_found():
    ended: dict = {}
    report, _ = run_kit("four-port-sticks", ended=ended)
    assert ended == {"moving": {}, "maintenance": False}
    verdicts = {r.check.name: r.verdict for r in report.results}
    assert {name: v for name, v in verdicts.items() if name.startswith("v11.")} == dict.fromkeys(V11, "pass")
    assert not next(r for r in report.results if r.check.name == "v11.identity").note.endswith("none")


def test_a_table_without_a_stick_reader_gets_n_a_for_read_sticks_only():
    report, _ = run_kit("four-port")
    verdicts = {r.check.name: (r.verdict, r.note) for r in report.results}
    assert verdicts["v11.read_sticks"] == ("n/a", "the table does not announce stick_reader")
    assert all(verdicts[name][0] == "pass" for name in V11 if name != "v11.read_sticks")


def test_a_protocol_1_0_table_gets_n_a_for_every_1_1_check_and_still_passes():
    report, lines = run_kit("four-port-sticks", protocol="1.0")
    assert report.failed == [] and lines[-1].startswith("conformance PASS"), "\n".join(lines)
    verdicts = {r.check.name: (r.verdict, r.note) for r in report.results}
    assert verdicts["v11.identity"][0] == "n/a" and "VERSION_MISMATCH" in verdicts["v11.identity"][1]
    assert all(verdicts[name] == ("n/a", "the table speaks protocol 1.0") for name in V11 if name != "v11.identity")
    assert verdicts["reset.state"][0] == "pass"


def test_a_table_announcing_32_byte_frames_passes():
    report, lines = run_kit("four-port", frame_size=32)  # PROTOCOL.md "Frames": 32 to 64 bytes
    assert report.failed == [], "\n".join(lines)


def test_a_reset_that_comes_after_the_shuffle_ended_is_not_blamed_on_the_table():
    report, lines = run_kit("four-port", reset_delay=60.0)  # the shuffle takes 30 s
    assert report.failed == [], "\n".join(lines)
    state = next(r for r in report.results if r.check.name == "reset.state")
    assert state.verdict == "n/a" and "faster --reset-with" in state.note


def test_a_contradictory_power_on_status_fails_one_check_naming_the_invariant():
    report, lines = run_kit("four-port", "walls-up-never-reported")
    verdicts = {r.check.name: (r.verdict, r.note) for r in report.results}
    assert "walls_up ⇔ a set on_table" in verdicts["status.invariants"][1]
    assert verdicts["motion.to_rest"][0] == verdicts["reset.state"][0] == "n/a"  # not four failures after it


def test_without_a_way_to_reset_the_mcu_the_reset_checks_are_not_applicable():
    report, _ = run_kit("four-port", resettable=False)
    assert report.failed == []
    assert {r.check.name for r in report.results if r.verdict == "n/a" and "--reset-with" in r.note} == {
        "reset.reset_request", "reset.booted", "reset.state"}


@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_a_table_breaking_a_rule_fails_exactly_that_check(variant):
    report, lines = run_kit("four-port", variant)
    assert report.failed == [BROKEN[variant][1]], "\n".join(lines)
    assert lines[-1].startswith("conformance FAIL: ")
    failed = next(line for line in lines if line.startswith("FAIL"))
    assert BROKEN[variant][1] in failed and "§" in failed


def test_a_table_moving_in_maintenance_mode_is_still_left_in_game_mode():
    ended: dict = {}
    report, _ = run_kit("four-port", "moves-in-maintenance", ended=ended)
    assert "v11.enter_maintenance" in report.failed
    assert ended == {"moving": {}, "maintenance": False}


def test_an_interrupted_run_stops_the_table_at_once():
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        table = make_table("four-port", loop=loop)
        run = loop.create_task(run_checks(connect_in_process(loop, table), lambda line: None))
        while "shuffler" not in table.model.motion:
            await asyncio.sleep(0.01)
        cancelled_at = len(table.trace.records)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        assert table.model.motion == {} and not table.firmware.stopped
        assert "shuffle_done" not in [r.name for r in table.trace.records[cancelled_at:]]  # aborted, not awaited
        table.close()
    run_virtual(scenario())


def test_every_check_names_a_section_of_protocol_md():
    headings = {line.lstrip("#").strip() for line in PROTOCOL_MD.read_text().splitlines() if line.startswith("#")}
    assert {c.section.removeprefix("§") for c in CHECKS} <= headings
    assert len({c.name for c in CHECKS}) == len(CHECKS)
