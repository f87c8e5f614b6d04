"""§MCU reset and §Sessions after it: a reset in the middle of a shuffle.

The protocol has no command that resets the MCU, so these checks need a way from the
table maker (`mjtable conformance --reset-with CMD`); without one they are n/a.
"""
from __future__ import annotations

from ..catalog import PROTOCOL_VERSION, Message
from ..link import RESET_REQUEST
from .check import NotApplicable, check
from .kit import QUIET, Kit, consistent
from .probe import RESEND_EVERY, CheckFailed

RESET, SESSIONS = "§State rules", "§Sessions"  # "MCU reset" is a paragraph of the state rules
REBOOT_WITHIN = 5.0  # seconds the kit gives the MCU to come back
LAMP = 3


def _resettable(kit: Kit) -> None:
    if kit.reset is None:
        raise NotApplicable("the protocol cannot reset the MCU: give --reset-with CMD to test")


def _before(kit: Kit) -> dict:
    """What the table was before the reset that reset.reset_request brought about."""
    _resettable(kit)
    if not kit.before_reset:
        raise NotApplicable("the reset did not happen (see reset.reset_request)")
    return kit.before_reset


@check(SESSIONS, "reset.reset_request", "after an MCU reset a data frame is answered RESET_REQUEST")
async def reset_request(kit: Kit) -> None:
    _resettable(kit)
    probe = kit.probe
    await kit.ok("set_dealer_lamp", seat=LAMP)  # volatile: the reset must clear it
    where = await kit.locations()
    if "collected" not in where or "stacked" in where:
        raise NotApplicable(f"no set to shuffle (sets {where})")
    kit.before_reset = before = {"boot_id": kit.identity["boot_id"], "epoch": probe.peer_epoch,
                                 "mark": len(probe.delivered)}
    await kit.ok("shuffle")
    started = probe.loop.time()
    await kit.reset()
    reset_after = probe.loop.time() - started  # the reset line has been pulled by now
    mark = len(probe.controls)
    frame = probe.data_frame(Message("heartbeat"))
    for _ in range(round(REBOOT_WITHIN / RESEND_EVERY)):
        probe.write(frame)
        try:
            await probe.until(lambda: any(c.kind == RESET_REQUEST for c in probe.controls[mark:]), RESEND_EVERY,
                              "RESET_REQUEST")
            before["late"] = _late(kit, reset_after)
            return
        except CheckFailed:
            continue
    raise CheckFailed(f"no RESET_REQUEST within {REBOOT_WITHIN:g} s of the reset")


def _late(kit: Kit, reset_after: float) -> str | None:
    """Why the reset may have come after the shuffle ended (a race, not the firmware's fault):
    its shuffle_done came first, or the reset came later than a whole shuffle lasts."""
    before, shuffle = kit.before_reset, kit.durations.get("shuffle")
    if kit.probe.events_after(before["mark"], "shuffle_done"):
        return "the shuffle ended (shuffle_done) before the reset took effect"
    if shuffle is not None and reset_after >= shuffle:
        return f"the reset took effect {reset_after:.2f} s after the shuffle began, which takes {shuffle:.2f} s"
    return None


@check(RESET, "reset.booted", "the new session has a new epoch and sends booted(new boot id) first")
async def booted(kit: Kit) -> None:
    before = _before(kit)
    probe = kit.probe
    mark = len(probe.delivered)
    await probe.session()
    if probe.peer_epoch == before["epoch"]:
        raise CheckFailed("the table's link epoch did not change with the reset")
    got = await probe.until(lambda: probe.delivered[mark:], 1.0, "booted")
    if getattr(got[0], "name", None) != "booted" or got[0]["boot_id"] == before["boot_id"]:
        raise CheckFailed(f"the first message after the reset is {got[0]}, not booted with a new boot id")
    reply = await kit.ok("identify", protocol_version=PROTOCOL_VERSION)
    if reply["boot_id"] != got[0]["boot_id"]:
        raise CheckFailed(f"identity.boot_id {reply['boot_id']} differs from booted({got[0]['boot_id']})")
    kit.identity = reply.args


@check(RESET, "reset.state", "the interrupted shuffle sends nothing; volatile state is lost, tiles stay put")
async def state(kit: Kit) -> None:
    before = _before(kit)
    probe = kit.probe
    if before.get("late"):
        raise NotApplicable(f"{before['late']}: slow the table or give a faster --reset-with")
    await kit.pause(max(QUIET, 2 * kit.durations.get("shuffle", 0.0)))
    if probe.events_after(before["mark"], "shuffle_done"):
        raise CheckFailed("the shuffle interrupted by the reset sent shuffle_done")
    status = await kit.status()
    where = await kit.locations()
    problems = [text for bad, text in (
        (status["operation"] != 0, f"operation {status['operation']}"),
        (status["stopped"] or status["fault"], "stopped or faulted"),
        (status["dealer_lamp"] == LAMP, "the dealer lamp survived"),
        ("collected" not in where, f"the interrupted set is not collected (sets {where})"),
    ) if bad]
    if problems:
        raise CheckFailed("after the reset: " + ", ".join(problems))
    await kit.operate("shuffle", "shuffle_done")  # re-issued, as a host does after reconciling


CHECKS = tuple(map(consistent, (reset_request, booted, state)))
