"""The C core under the sanitizers, fed what a damaged line and a confused host can send:
frames in sequence with any id and payload, random bytes, then good-CRC frames with any
id, seq and payload (commands in and out of
sequence, control frames, resets with other epochs). It must stay up, report no undefined
behaviour or memory error, and answer a host that starts a new session afterwards."""
import asyncio
import random

from firmware_protocol.conformance.probe import Probe
from firmware_protocol.frame import MAX_PAYLOAD, encode_frame
from firmware_protocol.transport import SerialTransport

from ..support.processes import Processes, stderr_of
from .tables import start_host_table

FRAMES = 3000
COMMANDS = 2000  # in sequence, any id from 0x10, any payload: the dispatch and the state rules


def rubble(rng: random.Random) -> bytes:
    noise = rng.randbytes(20_000)
    frames = b"".join(encode_frame(rng.randrange(256), rng.randrange(256), rng.randbytes(rng.randrange(MAX_PAYLOAD + 1)))
                      for _ in range(FRAMES))
    return noise + frames


async def survives(port: str) -> str:
    loop = asyncio.get_running_loop()
    probe = Probe(SerialTransport.open(port, 115200), 0xC0FFEE, loop)
    try:
        await probe.session()
        await probe.command("identify", protocol_version=0x11)
        rng = random.Random(24)
        for _ in range(COMMANDS):
            probe.write(probe.raw_data_frame(rng.randrange(0x10, 0x100), rng.randbytes(rng.randrange(MAX_PAYLOAD + 1))))
            await asyncio.sleep(0.001)
        data = rubble(rng)
        for at in range(0, len(data), 512):  # as a line delivers it, in pieces
            probe.write(data[at:at + 512])
            await asyncio.sleep(0.002)
        await asyncio.sleep(0.5)
        await probe.session()  # a host that connects afterwards
        await probe.command("identify", protocol_version=0x11)
        return (await probe.command("get_status")).name
    finally:
        probe.close()


def test_random_bytes_and_frames_neither_crash_the_core_nor_stop_it_answering(host_build, tmp_path):
    procs = Processes(tmp_path)
    try:
        table, port = start_host_table(procs, host_build, "--speed", "50")
        assert asyncio.run(survives(port)) == "status"
        assert table.poll() is None, stderr_of(table)
    finally:
        procs.stop_all()
    assert "runtime error" not in stderr_of(table) and "AddressSanitizer" not in stderr_of(table)
