"""The table's MCU program: the session, one handler per command, the watchdog, resets,
and the binding to the host over a reliable link.

Every command gets exactly one reply (ok / rejected / identity / status), sent before
any event the command causes; motion commands then end with their completion event or
a `fault`. The link delivers each command once, so a retransmitted `shuffle` never
shuffles twice.
"""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from firmware_protocol.catalog import (BUTTONS, BY_NAME, COMMANDS_1_1, FEATURES, NO_SEAT, OPERATIONS,
                                       PROTOCOL_MINOR, PROTOCOL_VERSION, SET_LOCATIONS, SUBSYSTEM_OF,
                                       WIND_MARKER_KINDS, Message, ProtocolError, split_version, version_byte)
from firmware_protocol.codes import Code
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.frame import MAX_PAYLOAD
from firmware_protocol.link import FIRST_MESSAGE_ID, Link
from firmware_protocol.transport import ByteTransport
from sim.faults import FaultPlan
from sim.interlocks import refusal
from sim.maintenance import Maintenance
from sim.mechanics import Fault, Mechanics
from sim.model import Round, TableModel
from sim.odometer import Odometer
from sim.sticks import Reader
from sim.trace import Trace
from sim.uart import Uart
from sim.walls import SEATS

OK = Message("ok")
_DETAIL_BYTES = MAX_PAYLOAD - 3  # after the code (u16) and the string's length byte


def rejected(code: Code, detail: str) -> Message:
    return Message("rejected", {"code": int(code), "detail": detail[:_DETAIL_BYTES]})


class Firmware:
    def __init__(self, model: TableModel, faults: FaultPlan, trace: Trace, loop: asyncio.AbstractEventLoop,
                 speed: float = 1.0, seed: int = 0) -> None:
        self.model = model
        self.faults = faults
        self.trace = trace
        self.speed = speed
        self.watchdog_enabled = True
        self._loop = loop
        self.mechanics = Mechanics(model, faults, loop, speed, self._on_outcome)
        self.odometer = Odometer(model.profile.timings)
        self.maintenance = Maintenance(model, self.odometer, loop, speed, lambda event: self._emit("event", event))
        reader = model.profile.stick_reader
        self.sticks = Reader(model, reader, seed) if reader is not None else None
        self._seed = seed
        self._boot_ids = random.Random(f"{seed}:boot")
        self.boot_id = self._boot_ids.getrandbits(32)
        self.identified = False
        self.stopped = False
        self.fault = 0  # the code of the fault that stopped the table, until resume
        self.commands = 0  # commands received since power-on, for reset_after_command
        self._send: Callable[[Message], None] | None = None
        self._heard_at: float | None = None  # last host message, for the watchdog
        self._watchdog: asyncio.TimerHandle | None = None
        self._link: Link | None = None
        self._endpoint: LinkEndpoint | None = None
        self._uart: Uart | None = None
        self._schedule_faults()

    # --- to and from the host -----------------------------------------------------
    def attach(self, line: ByteTransport) -> None:
        """Serve the host on `line`; a new connection replaces (and hangs up) the old one."""
        self.detach()
        self._uart = Uart(line, self._loop, self.faults.link, self._seed)
        self._start_link()

    def detach(self) -> None:
        if self._uart is not None:
            self._stop_link()
            self._uart.close()
            self._uart = None

    def bind(self, send: Callable[[Message], None]) -> None:
        """Exchange messages without a link: replies and events go to `send`, commands
        come in through `on_message` (for tests of the table alone)."""
        self._send = send

    def _start_link(self) -> None:
        # One link per boot, whatever the host connections: a host that comes back with its
        # epoch resumes the session and gets what was queued while it was away.
        if self._link is None:
            # A new incarnation per boot: the host drops old sessions. Longer frames than
            # the announced frame size do not fit the receive buffer.
            self._link = Link(role="table", epoch=self.boot_id, frame_size=self.model.profile.frame_size)
        else:
            self._link.reset()
        self._endpoint = LinkEndpoint(self._link, self._uart.port(), on_message=self.on_message,
                                      on_protocol_error=self._on_protocol_error, loop=self._loop)
        self._send = self._endpoint.send

    def _stop_link(self) -> None:
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None

    def _emit(self, direction: str, msg: Message) -> None:
        if self._send is None:
            return  # nobody listening: nothing is sent, nothing traced
        self.trace.record(direction, msg)
        self._send(msg)

    def on_message(self, msg: Message) -> None:
        self.trace.record("cmd", msg)
        self._emit("reply", self._execute(msg))
        self._heard_from_host()
        self.commands += 1
        if self.commands in self.faults.reset_after_command:
            self._loop.call_soon(self.reset)

    def _on_protocol_error(self, error: ProtocolError) -> None:
        if error.msg_id >= FIRST_MESSAGE_ID:  # an undecodable command still gets its one reply
            self._emit("reply", rejected(Code.PROTOCOL, error.reason))

    def _execute(self, msg: Message) -> Message:
        if msg.name == "heartbeat" and self.identified:
            return OK  # the most frequent command, which nothing else refuses: no checks to run
        if msg.name in COMMANDS_1_1 and not self._minor:  # a 1.0 table's decoder knows no such id
            return rejected(Code.PROTOCOL, f"unknown message id 0x{BY_NAME[msg.name].id:02x}")
        if msg.name == "identify":
            return self._identify(msg.args)
        if not self.identified:
            return rejected(Code.NOT_IDENTIFIED, "identify first")
        if msg.name in COMMANDS_1_1:
            return self._execute_1_1(msg)
        refused = self.maintenance.refusal(msg.name, msg.args, self.stopped) or refusal(
            self.model, self.stopped, msg.name, msg.args)
        if refused:
            return rejected(refused.code, refused.detail)
        if msg.name in SUBSYSTEM_OF:
            self.mechanics.start(msg.name, msg.args)
            return OK
        return getattr(self, "_" + msg.name)(msg.args) or OK

    def _on_outcome(self, outcome: Message | Fault) -> None:
        if isinstance(outcome, Fault):
            self._stop_on_fault(outcome)
        else:
            self.odometer.completed(outcome)
            self._emit("event", outcome)

    def _stop_on_fault(self, fault: Fault) -> None:
        self.odometer.faulted(fault.code, fault.sensor)
        self.mechanics.abort_all()
        self.maintenance.abort()
        self.stopped, self.fault = True, int(fault.code)
        self._emit("event", fault.message())

    # --- command handlers (motion commands go to `mechanics`) -----------------------
    @property
    def _minor(self) -> int:
        return 0 if self.model.profile.protocol == "1.0" else PROTOCOL_MINOR

    def _identify(self, a: dict) -> Message:
        major, minor = split_version(a["protocol_version"])
        if major != PROTOCOL_VERSION or (minor and not self._minor):  # a 1.0 table knows the byte 1 only
            return rejected(Code.VERSION_MISMATCH, f"this table speaks protocol "
                                                   f"{PROTOCOL_VERSION}{f'.{self._minor}' if self._minor else ''}")
        self.identified = True
        self.maintenance.end()
        agreed = min(minor, self._minor)  # a table answers in the older of the two minors
        if not agreed:
            return self._identity()
        features = {"counters": True, "sensor_test": True, "stick_reader": self.sticks is not None}
        return Message("identity_1_1", {**self._identity().args, "protocol_version": version_byte(major, agreed),
                                        "features": sum(features[f] << i for i, f in enumerate(FEATURES))})

    def _identity(self) -> Message:
        p = self.model.profile
        return Message("identity", {
            "protocol_version": PROTOCOL_VERSION, "firmware": p.firmware, "model": p.model,
            "boot_id": self.boot_id, "tiles": p.tiles, "stacks": list(p.stacks), "tile_sets": p.tile_sets,
            "dice": p.dice, "dead_wall_separator": p.dead_wall_separator, "dora_flipper": p.dora_flipper,
            "seat_displays": p.seat_displays, "centre_display": p.centre_display,
            "wind_marker": WIND_MARKER_KINDS.index(p.wind_marker), "seat_buttons": p.seat_buttons,
            "heartbeat_timeout_ms": p.heartbeat_timeout_ms, "frame_size": p.frame_size,
            "receive_window": p.receive_window,
        })

    def _get_status(self, a: dict) -> Message:
        m = self.model
        return Message("status", {
            "boot_id": self.boot_id,
            "operation": OPERATIONS.index(next(reversed(m.motion.values()), "idle")),
            "fault": self.fault, "stopped": self.stopped, "centre_open": m.centre_open,
            "sets": [SET_LOCATIONS.index(m.location(s)) for s in m.sets],
            "walls_up": m.walls_up, "dead_wall_separated": m.dead_wall is not None,
            "dora_flipped": len(m.dora_flipped), "wind": m.wind_marker.wind, "wind_seat": m.wind_marker.seat,
            "dealer_lamp": NO_SEAT if m.dealer_lamp is None else m.dealer_lamp, "lid_open": m.lid_open,
        })

    def _configure(self, a: dict) -> None:
        self.model.geometry.players, self.model.geometry.stacks = a["players"], tuple(a["stacks"])

    def _show_scores(self, a: dict) -> None:
        self.model.show_scores(a["scores"], a["mode"], a["dealer"])

    def _show_round(self, a: dict) -> None:
        self.model.centre_display.round = Round(**a)

    def _set_dealer_lamp(self, a: dict) -> None:
        self.model.dealer_lamp = None if a["seat"] == NO_SEAT else a["seat"]

    def _show_error(self, a: dict) -> None:
        for display in self.model.displays_in(a["seats"], zero_is_all=True):
            display.error = a["code"]

    def _show_text(self, a: dict) -> None:
        for display in self.model.displays_in(a["seats"], zero_is_all=False):
            display.text = a["text"]

    def _stop(self, a: dict) -> None:
        self.mechanics.abort_all()
        self.maintenance.abort()
        self.stopped = True

    def _resume(self, a: dict) -> None:
        self.model.restore_tile_counts()  # the operator has seen to the fault
        self.stopped, self.fault = False, 0

    # --- protocol 1.1: the odometer, the sensor test mode, the stick reader ---------
    def _execute_1_1(self, msg: Message) -> Message:
        if msg.name == "read_sticks":
            return self.sticks.read() if self.sticks else rejected(Code.UNSUPPORTED, "this table has no stick reader")
        refused = self.maintenance.refusal(msg.name, msg.args, self.stopped)
        if refused:
            return rejected(refused.code, refused.detail)
        handlers = {"get_counters": self.odometer.message, "reset_service_counter": self.odometer.serviced,
                    "enter_maintenance": self.maintenance.enter, "leave_maintenance": self.maintenance.leave,
                    "test_subsystem": lambda: self.maintenance.test(msg.args),
                    "read_sensors": self.maintenance.sensors}
        return handlers[msg.name]() or OK

    # --- the watchdog -------------------------------------------------------------------
    def _heard_from_host(self) -> None:
        self._heard_at = self._loop.time()
        if self._watchdog is None and self.identified and self.watchdog_enabled:
            self._arm_watchdog()

    def _arm_watchdog(self) -> None:
        timeout = self.model.profile.heartbeat_timeout_ms / 1000  # link time: never scaled by speed
        self._watchdog = self._loop.call_at(self._heard_at + timeout, self._watchdog_due, self._heard_at)

    def _watchdog_due(self, armed_at: float) -> None:
        self._watchdog = None
        if self._heard_at != armed_at:  # heard from the host since: wait from then
            self._arm_watchdog()
        elif not self.fault:  # a pending fault stays: the operator must see it, not the host's silence
            self._stop_on_fault(Fault(Code.WATCHDOG, "host_link"))

    def _disarm_watchdog(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    # --- things that happen to the table ------------------------------------------
    def reset(self) -> None:
        """MCU reset: motion and volatile state lost, a new boot id, the link restarts."""
        self.mechanics.abort_all()
        self.maintenance.end()
        self.model.clear_volatile()
        self._disarm_watchdog()
        self.identified = self.stopped = False
        self.fault = 0
        self.boot_id = self._boot_ids.getrandbits(32)
        self._link = None
        if self._uart is not None:
            self._stop_link()
            self._start_link()
        self._emit("event", Message("booted", {"boot_id": self.boot_id}))

    def press_button(self, seat: int, name: str) -> None:
        if not self.model.profile.seat_buttons:
            raise ValueError("this table has no seat buttons")
        if not 0 <= seat < SEATS or name not in BUTTONS:
            raise ValueError(f"no button {name!r} at seat {seat} (buttons: {', '.join(BUTTONS)})")
        self._emit("event", Message("button", {"seat": seat, "name": BUTTONS.index(name)}))

    def open_lid(self) -> None:
        self.model.lid_open = True
        if self.model.motion or self.maintenance.testing:  # a test moves its mechanism too
            self._stop_on_fault(Fault(Code.LID_OPENED, "lid"))

    def close_lid(self) -> None:
        self.model.lid_open = False

    def _schedule_faults(self) -> None:
        later = self._loop.call_later
        for opening in self.faults.lid_open:
            later(opening.at / self.speed, self.open_lid)
            later((opening.at + opening.duration) / self.speed, self.close_lid)
        for at in self.faults.reset_at:
            later(at / self.speed, self.reset)
