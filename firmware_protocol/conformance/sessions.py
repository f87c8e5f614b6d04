"""§Sessions, §Session start, §Boot: the handshake, identify, and sessions resumed or new."""
from __future__ import annotations

from ..catalog import PROTOCOL_VERSION, WIND_MARKER_KINDS
from ..codes import Code
from ..frame import MIN_FRAME
from ..link import MAX_WINDOW
from .check import NotApplicable, check
from .kit import QUIET, Kit
from .probe import CheckFailed

SESSIONS, START, BOOT = "§Sessions", "§Session start", "§Boot"
MIN_HEARTBEAT_MS = 200  # PROTOCOL.md "Errors": a host refuses a shorter watchdog


@check(SESSIONS, "session.reset", "RESET is answered by RESET_ACK echoing the reset number")
async def reset_handshake(kit: Kit) -> str:
    mark = len(kit.probe.delivered)
    ack = await kit.probe.session()
    await kit.probe.quiet(QUIET)  # a freshly booted table sends `booted` in the first session
    kit.booted = next(iter(kit.probe.events_after(mark, "booted")), None)
    return f"table epoch 0x{kit.probe.peer_epoch:08x}, expects seq {ack.seq}"


@check(START, "session.not_identified", "a command before identify is rejected NOT_IDENTIFIED")
async def not_identified(kit: Kit) -> None:
    try:
        await kit.refused(Code.NOT_IDENTIFIED, "get_status")
    except CheckFailed as failed:
        if kit.booted is None:  # cannot tell a fresh table from one a host identified before
            raise CheckFailed(f"{failed} (if a host identified the table before the kit ran, "
                              "power-cycle it and run the kit again)") from None
        raise


@check(START, "session.version_mismatch", "identify with another protocol version is rejected VERSION_MISMATCH")
async def version_mismatch(kit: Kit) -> None:
    await kit.refused(Code.VERSION_MISMATCH, "identify", protocol_version=PROTOCOL_VERSION + 1)


@check(START, "session.identity", "identify is answered by an identity a host can work with")
async def identity(kit: Kit) -> str:
    reply = await kit.ok("identify", protocol_version=PROTOCOL_VERSION)
    if reply.name != "identity":
        raise CheckFailed(f"identify was answered {reply.name}, not identity")
    kit.identity = i = reply.args
    problems = [text for bad, text in (
        (i["protocol_version"] != PROTOCOL_VERSION, f"protocol_version {i['protocol_version']}"),
        (i["frame_size"] < MIN_FRAME, f"frame_size {i['frame_size']} (at least {MIN_FRAME})"),
        (not 1 <= i["receive_window"] <= MAX_WINDOW, f"receive_window {i['receive_window']}"),
        (i["heartbeat_timeout_ms"] < MIN_HEARTBEAT_MS, f"heartbeat_timeout_ms {i['heartbeat_timeout_ms']}"),
        (len(i["stacks"]) != 4 or 2 * sum(i["stacks"]) < i["tiles"] or min(i["stacks"], default=0) < 1,
         f"stacks {i['stacks']} cannot hold {i['tiles']} tiles in four walls"),
        (i["tile_sets"] < 1, f"tile_sets {i['tile_sets']}"),
        (i["dice"] < 1, f"dice {i['dice']}"),
        (i["wind_marker"] >= len(WIND_MARKER_KINDS), f"wind_marker {i['wind_marker']}"),
    ) if bad]
    if problems:
        raise CheckFailed("identity: " + ", ".join(problems))
    return f"{i['model']} firmware {i['firmware']}, {i['tiles']} tiles, {i['tile_sets']} sets"


@check(BOOT, "boot.booted", "a table just powered on sends booted(boot_id) in its first session")
async def booted(kit: Kit) -> None:
    if kit.booted is None:
        raise NotApplicable("no booted event: the table was powered on before a host connected")
    if kit.booted["boot_id"] != kit.identity["boot_id"]:
        raise CheckFailed(f"booted({kit.booted['boot_id']}) differs from identity.boot_id {kit.identity['boot_id']}")


@check(SESSIONS, "session.repeat_reset", "a repeated RESET is answered again and changes nothing")
async def repeat_reset(kit: Kit) -> None:
    probe = kit.probe
    number = probe.reset_number
    before = await probe.session()  # a new session, then its RESET again
    again = await probe.session(number=number)
    if again.seq != before.seq or again.payload != before.payload:
        raise CheckFailed("the repeated RESET got a different RESET_ACK")
    await _answered_once(kit)


@check(SESSIONS, "session.same_epoch", "a new session with the same host epoch resends what was not acknowledged")
async def same_epoch(kit: Kit) -> None:
    probe = kit.probe
    expected = probe.rx_next
    await probe.unheard_reply()
    mark = len(probe.delivered)
    await probe.session()
    await probe.until(lambda: probe.delivered[mark:], 1.5, "retransmission after the new session")
    await probe.quiet(QUIET)
    got = probe.delivered[mark:]
    if [getattr(m, "name", None) for m in got] != ["ok"]:
        raise CheckFailed(f"after the session the table sent {_names(got)} from seq {expected}, not the one ok")
    await _answered_once(kit)


@check(SESSIONS, "session.new_epoch", "a new host epoch drops what the previous session had queued")
async def new_epoch(kit: Kit) -> None:
    probe = kit.probe
    await probe.unheard_reply()
    mark = len(probe.delivered)
    await probe.session(epoch=probe.epoch ^ 0xFFFFFFFF)  # another host process
    try:
        await probe.quiet(QUIET)
        if probe.delivered[mark:]:
            raise CheckFailed(f"the table sent {_names(probe.delivered[mark:])} of the previous session")
        await _answered_once(kit)
    finally:
        await probe.session()  # back to the kit's own epoch (new again for the table)


async def _answered_once(kit: Kit) -> None:
    """The link still works: get_status gets its status, and nothing else comes."""
    mark = len(kit.probe.delivered)
    await kit.status()
    extra = [m for m in kit.probe.delivered[mark:] if getattr(m, "name", None) != "status"]
    if extra:
        raise CheckFailed(f"get_status was answered with {_names(extra)} before its status")


def _names(items: list) -> str:
    return ", ".join(getattr(m, "name", "an undecodable frame") for m in items) or "nothing"


CHECKS = (reset_handshake, not_identified, version_mismatch, identity, booted, repeat_reset, same_epoch, new_epoch)
