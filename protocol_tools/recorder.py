"""PROTOCOL.md's worked examples, recorded from the real host and the real simulated table.

The host is `controller.table.Table`, the facade `mjtable run` drives, doing what the
controller does (connect, command, reconnect after a reboot); the table is the simulator's
firmware (`sim/`). They talk over an in-memory line at 115200 baud in virtual time, and a
tap on the host's end logs every frame, loses or damages the ones a scenario names, and
stamps each with the host's clock. Everything is seeded, so the same code records the same
bytes: `python -m protocol_tools.docgen` writes them into the document and the test
suite checks they are still what the code does.
"""
from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from controller.table.facade import McuReset, Table
from firmware_protocol import link as link_module
from firmware_protocol.frame import FrameDecoder, encode_frame
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile
from firmware_protocol.vectors import meaning
from firmware_protocol.virtual_time import run_virtual
from sim.serve import connect_in_process
from sim.table import SimulatedTable

BYTE_TIME = 10 / 115200  # 8N1: ten bit times a byte
TABLE_SEED = 7
WATCHDOG_MS = 60000  # a patient table: heartbeats every 20 s stay out of the examples

Damage = Callable[[bytes], bytes | None]  # a frame -> what arrives (None: lost)


def describe(frame: bytes) -> str:
    """A frame's meaning in the document's words."""
    seq, msg_id, payload = frame[2], frame[3], frame[4:-2]
    m = meaning(msg_id, payload)
    if "control" in m:
        if m["control"] == "reset_request":
            return "RESET_REQUEST"
        extra = f" epoch=0x{m['epoch']:08x} reset#{m['reset_number']}" if "epoch" in m else ""
        return f"{m['control'].upper()} next={seq}{extra}"
    args = ", ".join(f"{k}={v!r}" for k, v in m["args"].items())
    return f"seq {seq}: {m['message']}({args})"


def spaced(data: bytes) -> str:
    return data.hex(" ")


def corrupt(frame: bytes) -> bytes:
    """One bit flipped in the frame's first payload byte (or its id): the CRC fails."""
    at = 4 if len(frame) > 6 else 3
    return frame[:at] + bytes([frame[at] ^ 0x10]) + frame[at + 1:]


class Tap:
    """The host's serial port on the line: each `open()` is one opening of the port (the
    table's UART stays, as on a real serial line). Logs each frame both ways and damages the
    ones planned."""

    def __init__(self, line: Any, loop: asyncio.AbstractEventLoop, log: "Log") -> None:
        self._line, self._loop, self._log = line, loop, log
        self._port: _Port | None = None
        line.set_receiver(self._arrived)

    def open(self) -> "_Port":
        self._port = _Port(self)
        return self._port

    def _arrived(self, data: bytes) -> None:
        port = self._port
        data = self._pass(port, False, data)
        if port is not None and not port.closed and port.receiver is not None:
            port.receiver(data)

    def _pass(self, port: "_Port | None", from_host: bool, data: bytes) -> bytes:
        out = bytearray()
        decoder = port.decoders[from_host] if port else FrameDecoder()
        for frame in (encode_frame(*f) for f in decoder.feed(data)):
            arrived = self._log.damage(from_host, frame)
            self._log.frame(self._loop.time(), from_host, frame, arrived)
            out += arrived or b""
        return bytes(out)


class _Port:
    def __init__(self, tap: Tap) -> None:
        self._tap = tap
        self.on_close = None
        self.receiver = None
        self.closed = False
        self.decoders = {True: FrameDecoder(), False: FrameDecoder()}

    def set_receiver(self, callback) -> None:
        self.receiver = callback

    def write(self, data: bytes) -> None:
        if not self.closed:
            self._tap._line.write(self._tap._pass(self, True, data))

    def close(self) -> None:
        self.closed = True  # the line stays: the host may open the port again


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self._plan: list[tuple[bool, Callable[[bytes], bool], Damage]] = []
        self._start = 0.0

    def plan(self, from_host: bool, which: Callable[[bytes], bool], damage: Damage) -> None:
        """Damage the next frame in that direction that `which` picks."""
        self._plan.append((from_host, which, damage))

    def damage(self, from_host: bool, frame: bytes) -> bytes | None:
        for i, (direction, which, damage) in enumerate(self._plan):
            if direction == from_host and which(frame):
                del self._plan[i]
                return damage(frame)
        return frame

    def frame(self, now: float, from_host: bool, frame: bytes, arrived: bytes | None) -> None:
        head = f"{(now - self._start) * 1000:8.1f} ms  {'host → table' if from_host else 'table → host'}  "
        if arrived is None:
            text = describe(frame) + "  ← lost on the line"
        elif arrived != frame:
            frame, text = arrived, "damaged on the line: the CRC fails"
        else:
            text = describe(frame)
        hex_ = spaced(frame)
        if len(hex_) > 40:  # long frames: the meaning goes under the bytes
            self.lines += [head + hex_, " " * len(head) + "  = " + text]
        else:
            self.lines.append(f"{head}{hex_:<40}  {text}")

    def note(self, now: float, text: str) -> None:
        self.lines.append(f"{(now - self._start) * 1000:8.1f} ms  ({text})")

    def block(self, now: float) -> str:
        """The example logged so far; the next one's clock starts at `now`."""
        text = "```\n" + "\n".join(self.lines) + "\n```\n"
        self.lines, self._start = [], now
        return text


@contextmanager
def _seeded_epochs():
    """The host draws its epoch from os.urandom: seed it, so the examples stay the same."""
    rng = random.Random("host epochs")
    real_os = link_module.os
    link_module.os = SimpleNamespace(urandom=rng.randbytes)
    try:
        yield
    finally:
        link_module.os = real_os


def record() -> list[tuple[str, str]]:
    """(title, block) for each worked example, in order, all in one run."""
    with _seeded_epochs():
        return run_virtual(_scenarios())


async def _scenarios() -> list[tuple[str, str]]:
    loop = asyncio.get_running_loop()
    profile = load_profile(DEFAULT_PROFILE)
    profile = dataclasses.replace(profile, heartbeat_timeout_ms=WATCHDOG_MS)
    table = SimulatedTable(profile, seed=TABLE_SEED, loop=loop)
    log = Log()
    line = Tap(connect_in_process(loop, table, byte_time=BYTE_TIME), loop, log)
    table.reset_mcu()  # the MCU has just started: its `booted` waits for the first session

    async def connector():
        return line.open()

    host = Table(connector, operation_limits={})
    out: list[tuple[str, str]] = []

    def done(title: str) -> None:
        out.append((title, log.block(loop.time())))

    async def settle(seconds: float = 0.05) -> None:
        await asyncio.sleep(seconds)

    await host.connect()
    await settle()
    done("Session start: the table's `booted`, then identify")

    await host.roll_dice(2)
    await settle()
    done("A command, its reply, its completion event")

    log.plan(False, lambda f: f[3] == link_module.ACK, lambda f: None)
    await host.raise_walls()
    await settle()
    done("A lost acknowledgement: the command still runs once")

    log.plan(True, lambda f: f[3] == 0x1B, corrupt)  # show_round
    await asyncio.gather(host.show_round(wind=0, hand=3, honba=1, riichi_sticks=2), host.set_dealer_lamp(1))
    await settle()
    done("A corrupted frame: NAK and go-back-N")

    table.reset_mcu()
    log.note(loop.time(), "the table's MCU resets")
    try:
        await host.command("heartbeat")
    except McuReset:
        log.note(loop.time(), "the host fails what was in flight (McuReset) and reconnects, as the controller does")
    host.close()
    await host.connect()
    await host.configure(4, profile.tiles, list(profile.stacks))
    await host.get_status()
    await settle()
    done("The table rebooted: it asks for a reset, the host reconnects and reconciles")
    host.close()
    table.close()
    return out
