"""§Heartbeat and watchdog: commands keep the table going; silence stops it with WATCHDOG."""
from __future__ import annotations

from ..catalog import SUBSYSTEMS
from ..codes import Code
from .check import NotApplicable, check
from .data_frames import UNKNOWN_ID
from .kit import Kit
from .probe import CheckFailed

WATCHDOG = "§Heartbeat and watchdog"
FED_FOR = 1.5     # heartbeat timeouts the kit keeps the table fed
GRACE = 1.0       # seconds past the timeout the kit waits for the fault


def _timeout(kit: Kit) -> float:
    return kit.identity["heartbeat_timeout_ms"] / 1000


@check(WATCHDOG, "watchdog.fed", "heartbeats every timeout / 3 keep the watchdog from firing")
async def fed(kit: Kit) -> None:
    mark = len(kit.probe.delivered)
    for _ in range(round(FED_FOR * 3)):
        await kit.probe.quiet(_timeout(kit) / 3)
        await kit.ok("heartbeat")
    if kit.probe.events_after(mark, "fault"):
        raise CheckFailed("the watchdog fired although a heartbeat came every timeout / 3")


@check(WATCHDOG, "watchdog.fault", "no command for heartbeat_timeout_ms: fault WATCHDOG, stopped until resume")
async def fault(kit: Kit) -> str:
    probe, timeout = kit.probe, _timeout(kit)
    mark = len(probe.delivered)
    started = probe.loop.time()
    found = await probe.until(lambda: probe.events_after(mark, "fault"), timeout + GRACE, "fault WATCHDOG")
    event = found[0]
    waited = probe.loop.time() - started
    if event["code"] != Code.WATCHDOG or event["subsystem"] != SUBSYSTEMS.index("host_link"):
        raise CheckFailed(f"the silent host got fault {event.args}, not WATCHDOG (205) at host_link")
    status = await kit.status()
    if not status["stopped"] or status["fault"] != Code.WATCHDOG:
        raise CheckFailed(f"after the watchdog fault: {kit.stopped_reason(status)}")
    await kit.refused(Code.STOPPED, "roll_dice", count=1)
    await kit.ok("resume")
    status = await kit.status()
    if status["stopped"] or status["fault"]:
        raise CheckFailed(f"after resume: {kit.stopped_reason(status)}")
    kit.watchdog_fires = True
    return f"fired after {waited:.2f} s of silence (timeout {timeout:g} s)"


@check(WATCHDOG, "watchdog.undecodable", "frames the table cannot decode do not feed the watchdog")
async def undecodable(kit: Kit) -> str:
    if not kit.watchdog_fires:
        raise NotApplicable("the watchdog never fired (see watchdog.fault)")
    probe, timeout = kit.probe, _timeout(kit)
    await kit.ok("heartbeat")  # the last command: the silence starts here
    mark, started = len(probe.delivered), probe.loop.time()
    sent = 0
    while not probe.events_after(mark, "fault") and probe.loop.time() - started < timeout + GRACE:
        await probe.exchange(probe.raw_data_frame(UNKNOWN_ID, b""), "an unknown message id")  # rejected PROTOCOL
        sent += 1
        await probe.quiet(timeout / 6)
    found = probe.events_after(mark, "fault")
    if not found:
        raise CheckFailed(f"no fault within {timeout + GRACE:g} s of the last command: {sent} undecodable frames "
                          "fed the watchdog")
    if found[0]["code"] != Code.WATCHDOG:
        raise CheckFailed(f"the silent host got fault {found[0].args}, not WATCHDOG (205)")
    await kit.ok("resume")
    return f"fired with {sent} undecodable frames in the silence"


CHECKS = (fed, fault, undecodable)
