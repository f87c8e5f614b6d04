"""§Protocol 1.1: the version offer, the odometer, the sensor test mode, the stick reader.

The kit offers 1.1 once the 1.0 checks are done. A table that refuses the offer speaks
1.0, and one that does not announce a feature bit lacks the feature: their checks are
n/a, never failures. The kit leaves the table in game mode whatever fails (the runner
sends leave_maintenance while `kit.maintenance` is set).
"""
from __future__ import annotations

from typing import Any

from ..catalog import FEATURES, PROTOCOL_MINOR, PROTOCOL_VERSION, SENSORS, TEST_SUBSYSTEMS, version_byte
from ..codes import Code
from .check import Needs, NotApplicable, check
from .kit import Kit, consistent
from .probe import CheckFailed

VERSIONS, ODOMETER = "§Versions and capability bits", "§The odometer"
SENSOR_TEST, STICKS = "§The sensor test mode", "§The point-stick reader"
OFFER = version_byte(PROTOCOL_VERSION, PROTOCOL_MINOR)  # 0x11
RESERVED_BITS = 0xFF & ~((1 << len(FEATURES)) - 1)
TESTED = TEST_SUBSYSTEMS.index("dice")  # every table has dice, and rolling them moves no tiles
SEATS = 4
KEPT = ("shuffle_cycles", "lift_cycles", "motor_seconds", "faults", "jams")  # what a service leaves alone


def feature(name: str) -> Needs:
    """n/a unless the table's identity_1_1 announces FEATURES `name`."""
    bit = 1 << FEATURES.index(name)

    def needs(identity: dict[str, Any]) -> str | None:
        if "features" not in identity:
            return "the table speaks protocol 1.0"
        return None if identity["features"] & bit else f"the table does not announce {name}"
    return needs


@check(VERSIONS, "v11.identity", "a 1.1 offer is answered identity_1_1 with sane feature bits, a 1.0 offer identity")
async def identity(kit: Kit) -> str:
    reply = await kit.probe.command("identify", protocol_version=OFFER)
    if reply.name == "rejected" and reply["code"] == Code.VERSION_MISMATCH:
        await _plain_identity(kit)  # the host's fallback: the 1.0 offer must still work
        raise NotApplicable("the table speaks protocol 1.0 (it refused the 1.1 offer VERSION_MISMATCH)")
    i = await _identity_1_1(kit, reply)
    await _plain_identity(kit)  # a 1.1 table answers a 1.0 host as a 1.0 table
    kit.identity = await _identity_1_1(kit, await kit.ok("identify", protocol_version=OFFER))  # speak 1.1 on
    return "features " + (", ".join(f for b, f in enumerate(FEATURES) if i["features"] >> b & 1) or "none")


async def _identity_1_1(kit: Kit, reply) -> dict[str, Any]:
    if reply.name != "identity_1_1":
        raise CheckFailed(f"identify(0x{OFFER:02x}) was answered {reply.name} {reply.args}, not identity_1_1")
    i = reply.args
    problems = [text for bad, text in (
        (i["protocol_version"] != OFFER, f"protocol_version 0x{i['protocol_version']:02x}, not 0x{OFFER:02x}"),
        (i["features"] & RESERVED_BITS, f"reserved feature bits set (features 0x{i['features']:02x})"),
        *((i[k] != v, f"{k} {i[k]} differs from identity's {v}") for k, v in kit.identity.items()
          if k != "protocol_version" and k in i),
    ) if bad]
    if problems:
        raise CheckFailed("identity_1_1: " + ", ".join(problems))
    return i


async def _plain_identity(kit: Kit) -> None:
    reply = await kit.ok("identify", protocol_version=PROTOCOL_VERSION)
    if reply.name != "identity" or reply["protocol_version"] != PROTOCOL_VERSION:
        raise CheckFailed(f"identify({PROTOCOL_VERSION}) was answered {reply.name} "
                          f"(protocol_version {reply.args.get('protocol_version')}), not identity of version 1")


async def _counters(kit: Kit) -> dict[str, Any]:
    reply = await kit.probe.command("get_counters")
    if reply.name != "counters":
        raise CheckFailed(f"get_counters was answered {reply.name} {reply.args}")
    return reply.args


@check(ODOMETER, "v11.counters", "get_counters: one fault and jam count per sensor, the kit's cycles counted",
       feature("counters"))
async def counters(kit: Kit) -> str:
    c = await _counters(kit)
    shuffles, raises = (len(kit.probe.events_after(0, name)) for name in ("shuffle_done", "walls_raised"))
    problems = [text for bad, text in (
        (len(c["faults"]) != len(SENSORS) or len(c["jams"]) != len(SENSORS),
         f"{len(c['faults'])} fault and {len(c['jams'])} jam counts for {len(SENSORS)} sensors"),
        (any(j > f for j, f in zip(c["jams"], c["faults"])), f"more jams {c['jams']} than faults {c['faults']}"),
        (c["shuffle_cycles"] < shuffles, f"shuffle_cycles {c['shuffle_cycles']}, the kit saw {shuffles} shuffles"),
        (c["lift_cycles"] < raises, f"lift_cycles {c['lift_cycles']}, the kit saw {raises} wall raises"),
        (c["cycles_since_service"] > c["shuffle_cycles"],
         f"cycles_since_service {c['cycles_since_service']} above shuffle_cycles {c['shuffle_cycles']}"),
    ) if bad]
    if problems:
        raise CheckFailed("counters: " + ", ".join(problems))
    return f"{c['shuffle_cycles']} shuffles, {c['cycles_since_service']} since service, {c['motor_seconds']} motor s"


@check(ODOMETER, "v11.reset_service_counter", "reset_service_counter zeroes cycles_since_service and nothing else",
       feature("counters"))
async def reset_service_counter(kit: Kit) -> None:
    before = await _counters(kit)
    await kit.ok("reset_service_counter")
    after = await _counters(kit)
    changed = [k for k in KEPT if after[k] != before[k]]
    if after["cycles_since_service"] != 0 or changed:
        raise CheckFailed(f"after reset_service_counter: cycles_since_service {after['cycles_since_service']}"
                          + (f", {', '.join(changed)} changed" if changed else ""))


@check(SENSOR_TEST, "v11.not_in_maintenance", "test_subsystem and read_sensors outside maintenance: NOT_IN_MAINTENANCE",
       feature("sensor_test"))
async def not_in_maintenance(kit: Kit) -> None:
    await kit.refused(Code.NOT_IN_MAINTENANCE, "test_subsystem", subsystem=TESTED, seat=0)
    await kit.refused(Code.NOT_IN_MAINTENANCE, "read_sensors")


@check(SENSOR_TEST, "v11.enter_maintenance", "enter_maintenance: ok; a game's motion command is then refused "
       "MAINTENANCE", feature("sensor_test"))
async def enter_maintenance(kit: Kit) -> None:
    await kit.settle()  # refused BUSY while anything moves
    await kit.ok("enter_maintenance")
    kit.maintenance = True
    await kit.ok("enter_maintenance")  # ok in the mode already
    await kit.refused(Code.MAINTENANCE, "roll_dice", count=1)
    await kit.status()  # get_status works as always


@check(SENSOR_TEST, "v11.test_subsystem", "test_subsystem: ok, then subsystem_tested as commanded; sets stay put",
       feature("sensor_test"))
async def test_subsystem(kit: Kit) -> str:
    _in_maintenance(kit)
    where = await kit.locations()
    event = await kit.operate("test_subsystem", "subsystem_tested", subsystem=TESTED, seat=0)
    if (event["subsystem"], event["seat"]) != (TESTED, 0):
        raise CheckFailed(f"test_subsystem(subsystem={TESTED}, seat=0) ended with subsystem_tested{event.args}")
    if await kit.locations() != where:
        raise CheckFailed(f"the test moved the tile sets: {where} became {await kit.locations()}")
    result = "passed" if event["result"] == 0 else f"failed {event['result']} at {SENSORS[event['sensor']]}"
    return f"{TEST_SUBSYSTEMS[TESTED]} test {result}"


@consistent
@check(SENSOR_TEST, "v11.read_sensors", "read_sensors: one value 0/1 per sensor, agreeing with status",
       feature("sensor_test"))
async def read_sensors(kit: Kit) -> str:
    _in_maintenance(kit)
    reply = await kit.probe.command("read_sensors")
    if reply.name != "sensors":
        raise CheckFailed(f"read_sensors was answered {reply.name} {reply.args}")
    values = reply["values"]
    if len(values) != len(SENSORS) or any(v not in (0, 1) for v in values):
        raise CheckFailed(f"values {values}: not one 0 or 1 for each of the {len(SENSORS)} sensors")
    status, where = await kit.status(), await kit.locations()
    expected = {"hopper": "collected" in where, "stacker": "stacked" in where, "centre_plate": status["centre_open"],
                "separator": status["dead_wall_separated"], **{f"lift_{s}": status["walls_up"] for s in range(SEATS)}}
    wrong = [f"{s} {values[SENSORS.index(s)]}" for s, active in expected.items() if values[SENSORS.index(s)] != active]
    if wrong:
        raise CheckFailed(f"sensors disagree with status {kit.stopped_reason(status)}, sets {where}: {', '.join(wrong)}")
    return "active: " + (", ".join(s for s, v in zip(SENSORS, values) if v) or "none")


@check(SENSOR_TEST, "v11.leave_maintenance", "leave_maintenance: ok, back to game mode (roll_dice runs again)",
       feature("sensor_test"))
async def leave_maintenance(kit: Kit) -> None:
    _in_maintenance(kit)
    await kit.ok("leave_maintenance")
    kit.maintenance = False
    await kit.refused(Code.NOT_IN_MAINTENANCE, "read_sensors")
    await kit.operate("roll_dice", "dice_rolled", count=1)


def _in_maintenance(kit: Kit) -> None:
    if not kit.maintenance:
        raise NotApplicable("not in maintenance mode (see v11.enter_maintenance)")


@check(STICKS, "v11.read_sticks", "read_sticks: one tray total per seat and a 4-bit wrong-slot mask",
       feature("stick_reader"))
async def read_sticks(kit: Kit) -> str:
    reply = await kit.probe.command("read_sticks")
    if reply.name != "sticks":
        raise CheckFailed(f"read_sticks was answered {reply.name} {reply.args}")
    if len(reply["totals"]) != SEATS or reply["wrong_slot"] >> SEATS:
        raise CheckFailed(f"sticks{reply.args}: not {SEATS} totals and a mask of {SEATS} seats")
    return f"totals {reply['totals']}, wrong slot 0b{reply['wrong_slot']:04b}"


CHECKS = (identity, counters, reset_service_counter, not_in_maintenance, enter_maintenance, test_subsystem,
          read_sensors, leave_maintenance, read_sticks)
