"""§Receiving data frames, §Sending data frames, §Errors: duplicates, gaps, retransmission
and frames the table cannot decode."""
from __future__ import annotations

from ..catalog import Message
from ..codes import Code
from ..link import NAK
from .check import check
from .kit import QUIET, Kit
from .probe import CheckFailed

RECEIVING, SENDING, ERRORS = "§Receiving data frames", "§Sending data frames", "§Errors"
UNKNOWN_ID = 0xFE          # in no version of the catalog
RESERVED_CONTROL = 0x06
MCU_RTO_MAX = 1.0          # an MCU retransmits no later than this after the previous transmission


@check(RECEIVING, "link.duplicate", "a duplicate frame is acknowledged again, not executed again")
async def duplicate(kit: Kit) -> None:
    probe = kit.probe
    frame = probe.data_frame(Message("heartbeat"))
    await probe.exchange(frame, "heartbeat")
    mark, acks = len(probe.delivered), len(probe.controls)
    probe.write(frame)
    await probe.until(lambda: probe.acked(frame[2], acks), QUIET * 3, "ACK of the duplicate")
    await probe.quiet(QUIET)
    if probe.delivered[mark:]:
        raise CheckFailed("the duplicate was executed again: a second reply came")
    await kit.status()


@check(RECEIVING, "link.out_of_order", "a frame ahead of the expected one is discarded and NAKed once")
async def out_of_order(kit: Kit) -> None:
    probe = kit.probe
    missing = probe.data_frame(Message("get_status"))
    ahead = probe.data_frame(Message("heartbeat"))
    mark, controls = len(probe.delivered), len(probe.controls)
    probe.write(ahead)
    probe.write(ahead)
    await probe.quiet(QUIET)
    naks = [c.seq for c in probe.controls[controls:] if c.kind == NAK]
    if probe.delivered[mark:]:
        raise CheckFailed("the table executed a frame that arrived ahead of the one it expected")
    if naks != [missing[2]]:
        raise CheckFailed(f"two frames ahead of seq {missing[2]} got NAKs {naks}, not one NAK({missing[2]})")
    probe.write(missing + ahead)
    replies = await probe.until(lambda: len(probe.delivered) - mark >= 2 and probe.delivered[mark:], 1.0,
                                "replies after the gap was filled")
    if [getattr(m, "name", None) for m in replies] != ["status", "ok"]:
        raise CheckFailed(f"after the gap was filled the replies were {[getattr(m, 'name', m) for m in replies]}")


@check(SENDING, "link.retransmit", "an unacknowledged reply is sent again within 1 s, byte for byte, and again on NAK")
async def retransmit(kit: Kit) -> None:
    probe = kit.probe
    try:
        first = await probe.unheard_reply()
        mark = len(probe.arrivals)
        await probe.until(lambda: probe.arrivals[mark:], MCU_RTO_MAX + QUIET, "retransmission")
        if probe.arrivals[mark] != first:
            raise CheckFailed("the retransmission differs from the frame first sent")
    finally:
        probe.deaf = False
    delivered = len(probe.delivered)
    probe.control(NAK, probe.rx_next)
    await probe.until(lambda: probe.delivered[delivered:], MCU_RTO_MAX, "retransmission after NAK")


@check(ERRORS, "errors.unknown_id", "a data frame with an unknown id is acknowledged and rejected PROTOCOL")
async def unknown_id(kit: Kit) -> None:
    await _protocol_error(kit, UNKNOWN_ID, b"", "an unknown message id")


@check(ERRORS, "errors.malformed", "a command with a malformed payload is rejected PROTOCOL")
async def malformed(kit: Kit) -> None:
    await _protocol_error(kit, 0x11, b"\x00", "heartbeat with a byte left over")


@check(ERRORS, "errors.wrong_direction", "a reply sent by the host is rejected PROTOCOL, like an unknown id")
async def wrong_direction(kit: Kit) -> None:
    await _protocol_error(kit, 0x40, b"", "an `ok` sent to the table")


@check(ERRORS, "errors.reserved_control", "a reserved control frame is ignored")
async def reserved_control(kit: Kit) -> None:
    probe = kit.probe
    mark = len(probe.delivered)
    probe.control(RESERVED_CONTROL, 0)
    await probe.quiet(QUIET)
    if probe.delivered[mark:]:
        raise CheckFailed("a reserved control frame was answered with a data frame")
    await kit.status()


async def _protocol_error(kit: Kit, msg_id: int, payload: bytes, what: str) -> None:
    reply = await kit.probe.exchange(kit.probe.raw_data_frame(msg_id, payload), what)
    if getattr(reply, "name", None) != "rejected" or reply["code"] != Code.PROTOCOL:
        raise CheckFailed(f"{what} was answered {getattr(reply, 'name', 'undecodably')} "
                          f"{reply.args if hasattr(reply, 'args') else ''}, not rejected PROTOCOL (302)")


CHECKS = (duplicate, out_of_order, retransmit, unknown_id, malformed, wrong_direction, reserved_control)
