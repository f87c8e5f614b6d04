"""§Receiving frames: damaged bytes, false sync bytes and abandoned frames."""
from __future__ import annotations

from ..catalog import Message
from .check import check
from .kit import QUIET, Kit
from .probe import CheckFailed

RECEIVING = "§Receiving frames"
# Noise, a 0xA5 with an oversize length (twice), then a false start whose CRC fails: the
# table must drop one byte at a time and find the real frame behind them.
RUBBLE = bytes.fromhex("00 13 a5 a5 3b a5 02")
LONG_START = bytes.fromhex("a5 3a 00 11")  # a frame start announcing 58 bytes that never come
SILENCE = 0.5  # well over the 50 ms, so that a busy table reads the two writes apart


@check(RECEIVING, "frames.bad_crc", "a frame with a bad CRC is dropped, unanswered")
async def bad_crc(kit: Kit) -> None:
    probe = kit.probe
    frame = probe.data_frame(Message("heartbeat"))
    mark, acks = len(probe.delivered), len(probe.controls)
    probe.write(frame[:-1] + bytes([frame[-1] ^ 0x5A]))
    await probe.quiet(QUIET)
    if probe.acked(frame[2], acks) or probe.delivered[mark:]:
        raise CheckFailed("the table acknowledged or answered a frame whose CRC fails")
    await _answered(kit, "the same frame with its CRC right", frame)


@check(RECEIVING, "frames.resync", "after noise, oversize lengths and a false start the next frame is found")
async def resync(kit: Kit) -> None:
    await _answered(kit, "a heartbeat behind line noise", prefix=RUBBLE)


@check(RECEIVING, "frames.truncated", "a frame left incomplete for 50 ms is abandoned and what follows decoded")
async def truncated(kit: Kit) -> None:
    kit.probe.write(LONG_START)
    await kit.probe.quiet(SILENCE)
    await _answered(kit, "a heartbeat after an abandoned frame")


async def _answered(kit: Kit, what: str, frame: bytes | None = None, prefix: bytes = b"") -> None:
    """A heartbeat frame (after `prefix`) must be answered without a resend."""
    frame = frame or kit.probe.data_frame(Message("heartbeat"))
    reply = await kit.probe.exchange(frame, what, resend=False, prefix=prefix)
    if getattr(reply, "name", None) != "ok":
        raise CheckFailed(f"{what} was answered {getattr(reply, 'name', 'undecodably')}")


CHECKS = (bad_crc, resync, truncated)
