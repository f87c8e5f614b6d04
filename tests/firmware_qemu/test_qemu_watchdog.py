"""The board's hardware watchdog: a main loop that hangs is reset by the chip, and the
host learns it as from any MCU reset — RESET_REQUEST, a new epoch, booted(new boot id)."""
import asyncio

from firmware_protocol.catalog import Message
from firmware_protocol.conformance.probe import Probe
from firmware_protocol.link import RESET_REQUEST
from firmware_protocol.transport import SerialTransport

from .conftest import STALL_AFTER_MS

REBOOTED_WITHIN = STALL_AFTER_MS / 1000 + 5.0  # the hang, the watchdog's two time-outs (2 s), QEMU's drift


async def reboot_seen(port: str) -> tuple[int, int, list]:
    """The boot id before the hang, the table's epoch after it, and what it sent first."""
    loop = asyncio.get_running_loop()
    probe = Probe(SerialTransport.open(port, 115200), 0x5EED, loop)
    try:
        await probe.session()
        before = (await probe.command("identify", protocol_version=1))["boot_id"]
        mark, deadline = len(probe.controls), loop.time() + REBOOTED_WITHIN
        while not any(c.kind == RESET_REQUEST for c in probe.controls[mark:]) and loop.time() < deadline:
            probe.write(probe.data_frame(Message("heartbeat")))  # answered ok until the hang
            await asyncio.sleep(0.25)
        delivered = len(probe.delivered)
        await probe.session()
        await asyncio.sleep(0.3)
        return before, probe.peer_epoch, probe.delivered[delivered:]
    finally:
        probe.close()


def test_a_hung_main_loop_is_reset_by_the_chip_watchdog(stalling_board):
    before, epoch, sent = asyncio.run(reboot_seen(stalling_board.port))
    assert sent and sent[0].name == "booted", sent
    assert sent[0]["boot_id"] != before and epoch == sent[0]["boot_id"]  # a new boot id, the new epoch
