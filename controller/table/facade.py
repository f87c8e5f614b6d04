"""The table facade: one coroutine per hardware command, over the reliable link.

Every command gets exactly one reply, in command order, so replies are matched to a FIFO
of waiting futures. A long operation then ends with its completion event (one operation
per subsystem, so completions are matched by event name) or with a `fault` event, which
means the table stopped all motion: every operation still waiting fails with
:class:`TableFault`. A lost link or an MCU reset fails them with :class:`LinkLost` /
:class:`McuReset`; the state machine decides what to re-run.

A display command for a display the table lacks (see `capabilities`) is not sent: the
table would refuse it, and nothing waits on a display.

Everything else the table sends comes to the user as a typed event
(controller/table/events.py), dispatched by message name; a message nothing waited for
is logged. The last messages either way are kept, and written to the log on a fault (the
table's or a deadline's), a lost link or a reboot (controller/table/traffic.py). The heartbeats run on one
loop timer, which also wakes when an unanswered heartbeat's reply is due; an overdue
reply is chased in a task. The facade cancels them all on close.

Nothing is awaited for ever (docs/ARCHITECTURE.md "Deadlines"). A reply overdue by a few
RTOs is chased: a NAK every 100 ms asks the table to resend it (and wakes a table
link that gave up on a noisy line), and one heartbeat probe, answered after the missing
reply because the table answers in order, shows whether it was ever sent. A table that
keeps acknowledging but never answers (its logic hangs) is one :class:`Overdue` fault
(OPERATION_TIMEOUT) for the session, after 10 s on a clean line, a minute or ten on a line
that damages frames meanwhile; one that sends nothing at all is a lost link. An operation that
outlives its limit is checked against the status: still running, it is stopped; either
way it fails with :class:`Overdue` (BUILD_TIMEOUT for a shuffle). Commands are never sent
twice: the link delivers each exactly once, and the steps reconcile from the status.
"""
from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from firmware_protocol.catalog import (BUTTONS, COMPLETIONS, OPERATIONS, PROTOCOL_MINOR, PROTOCOL_VERSION, REPLIES,
                                       REPLY_OF, SENSORS, SET_LOCATIONS, SUBSYSTEM_OF, TEST_SUBSYSTEMS, Message,
                                       split_version, value_name, version_byte)
from firmware_protocol.codes import Code, describe
from firmware_protocol.endpoint import LinkEndpoint
from firmware_protocol.link import Link
from firmware_protocol.log_throttle import LogThrottle

from controller.backoff import Backoff
from controller.language import ENGLISH, Words
from controller.table.capabilities import Capabilities, UnusableTable, identity_problem
from controller.errors import MjtableError
from controller.table.line_quality import POOR, LineQuality
from controller.table.reports import completion_problem, status_problem
from controller.table.events import (ButtonPressed, Fault, LinkDropped, TableEvent, TableFaulted, TableRebooted,
                                     UnexpectedMessage)
from controller.table.traffic import RECEIVED, SENT, Traffic, shown
from controller.table.link import TableLink

log = logging.getLogger("mjtable.table")

Connector = Callable[[], Awaitable[Any]]  # opens a fresh byte transport to the table

TIMER_SLACK = 0.001  # seconds a timer may wake early by (rounding): a heartbeat then due is sent

# A reply is overdue after REPLY_FLOOR + REPLY_RTOS x the link's current RTO; it is chased
# with a probe each time that passes, and given up after REPLY_PATIENCE seconds (on a line
# that damages most frames a reply may need dozens of tries). On a clean line (no damaged
# frame heard since the command) a reply the table had sent comes with the first NAK: one
# missing for CLEAN_LINE_PATIENCE while the table acknowledges means its logic hangs.
REPLY_FLOOR = 1.0
REPLY_RTOS = 4
CLEAN_LINE_PATIENCE = 10.0
REPLY_PATIENCE = 60.0
# On a poor line (LineQuality's POOR share of frames damaged while waiting) a long reply
# needs hundreds of tries: the identity, 52 bytes, passes 10 % corrupted bytes once in 200.
POOR_LINE_PATIENCE = 600.0
CONNECT_RETRY_FIRST = 0.25  # seconds before the first retry of a failed connect, doubled each time
SOLICIT_EVERY = 0.1  # while a reply is overdue, a NAK this often asks the table to resend
HOST_GIVE_UP_HEARD = 60.0  # nothing acknowledged for this long while the table is heard: lost
WINDOW = 4  # frames in flight at most, fewer if the table's receive window is smaller
OVERDUE_LOG_EVERY = 30.0  # a noisy line makes many replies late: one warning per this many seconds
UNEXPECTED_LOG_EVERY = 10.0  # a confused table may send many: one warning per this many seconds
SUBSYSTEM_TEST_LIMIT = 60.0  # protocol 1.1: a subsystem's test cycle, the slowest (lifts, centre) included
# What moves the table: never sent while the operator's pause holds it, but for its `resume`.
MOTION_COMMANDS = frozenset([*OPERATIONS[1:], "resume"])


class TableError(MjtableError):
    """Base of everything the table facade raises."""


class Rejected(TableError):
    def __init__(self, command: str, code: int, detail: str) -> None:
        super().__init__(f"{command} rejected: E{code} {describe(code)}{': ' + detail if detail else ''}")
        self.command, self.code, self.detail = command, code, detail


class Held(Rejected):
    """A motion command not sent: the operator's pause holds the table until `resume`.
    Refused by the host as the stopped table would refuse it (STOPPED), so that whatever
    handles that refusal handles this one, without the command ever going out."""

    def __init__(self, command: str) -> None:
        super().__init__(command, Code.STOPPED, "not sent: the table is paused until `resume`")


class BadReport(Rejected):
    """A reply or completion whose values cannot be true (controller/table/reports.py): handled as
    a refused step (shown as E303, retried by the operator), its values never used."""

    def __init__(self, command: str, detail: str) -> None:
        TableError.__init__(self, f"{command}: the table reported {detail} (E{Code.BAD_REPORT} bad_report)")
        self.command, self.code, self.detail = command, Code.BAD_REPORT, detail


class TableFault(TableError):
    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.describe())
        self.fault = fault


class Overdue(TableFault):
    """A deadline passed: the table never answered, or an operation outlived its limit."""

    def __init__(self, code: int, subsystem: str, detail: str) -> None:
        super().__init__(Fault(code, subsystem, "none", 0, 0, detail))


class LinkLost(TableError, ConnectionError):
    """The link to the table is gone (closed, or the table went silent)."""


class McuReset(TableError, ConnectionError):
    """The table rebooted: its session and everything in flight are gone."""


class Interrupted(TableError):
    """The host stopped the table (pause) while an operation was running."""


class Table:
    """Typed operations on one table; reconnects through `connector`."""

    def __init__(self, connector: Connector, *, on_event: Callable[[TableEvent], None] | None = None,
                 operation_limits: Mapping[str, float] | None = None, paused: Callable[[], bool] = lambda: False,
                 words: Words = ENGLISH) -> None:
        """`operation_limits`: seconds each long operation may take (by command name);
        `paused`: whether the operator's pause holds the table (the machine's motion);
        `words`: the language its displays speak (the table config's display.language)."""
        self.words = words
        self._connector = connector
        self._paused = paused
        self._limits = {"test_subsystem": SUBSYSTEM_TEST_LIMIT, **(operation_limits or {})}
        self._on_event = on_event or (lambda event: None)
        self._link = _host_link()  # one epoch for the life of the process: see connect()
        self._endpoint: LinkEndpoint | None = None
        self._replies: collections.deque[tuple[str, asyncio.Future]] = collections.deque()
        self._completions: dict[str, asyncio.Future] = {}
        self._tasks: set[asyncio.Task] = set()  # the overdue replies being chased
        self._heartbeat: asyncio.TimerHandle | None = None  # the next tick of the heartbeat timer
        # Heartbeats awaiting their reply: when each is due, what was heard when it was sent, its limit.
        self._beats: dict[asyncio.Future, tuple[float, tuple[int, int], float]] = {}
        self._beat_at = 0.0  # when the heartbeat timer next looks whether the line has been idle long enough
        self._sent_at = 0.0  # loop time the last command went out: it fed the table's watchdog
        self._handlers: dict[str, Callable[[Message], None]] = {
            **dict.fromkeys(REPLIES, self._on_reply), **dict.fromkeys(COMPLETIONS.values(), self._on_completion),
            "fault": self._on_fault, "booted": self._on_booted, "button": self._on_button,
        }
        self.traffic = Traffic()
        self._stats = None
        self.quality = LineQuality()
        self._overdue_log = LogThrottle(OVERDUE_LOG_EVERY)
        self._unexpected_log = LogThrottle(UNEXPECTED_LOG_EVERY)
        self.identity: dict[str, Any] | None = None
        self._hung: Overdue | None = None  # the fault of a table that acknowledges but does not answer
        # The version offered in identify: 1.1 until a table refuses it (a 1.0 table), then 1.0.
        self._offer = version_byte(PROTOCOL_VERSION, PROTOCOL_MINOR)
        self.capabilities: Capabilities | None = None
        self.boot_id: int | None = None
        self.link = TableLink()

    # ---- session ----
    async def connect_with_backoff(self, backoff_max: float,
                                   on_retry: Callable[[Exception, float], None] = lambda exc, delay: None) -> None:
        """Connect, trying again after each failure, waiting twice as long each time (from
        CONNECT_RETRY_FIRST, at most `backoff_max` seconds); `on_retry` hears of each
        failure, and `link` shows it until the table is up."""
        backoff = Backoff(CONNECT_RETRY_FIRST, backoff_max)
        while True:
            try:
                await self.connect()
                return
            except (OSError, TableError) as exc:
                log.warning("cannot connect to the table: %s; trying again in %.1f s", exc, backoff.delay)
                self.link.failed(str(exc), backoff.delay)
                on_retry(exc, backoff.delay)
                await backoff.wait()

    async def connect(self) -> dict[str, Any]:
        """Open the transport, identify, and check the protocol version."""
        self.close()
        self.link.dial()
        try:
            identity = await self._open_session()
        except BaseException:
            self.close()
            raise
        self.link.identified()
        return identity

    async def _open_session(self) -> Message:
        transport = await self._connector()
        # The same link, so the same epoch: a table that did not reboot resumes the session
        # and sends what it queued meanwhile. Commands already failed here are not sent.
        self._link.reset(abandon=True)
        self._endpoint = LinkEndpoint(self._link, transport, on_message=self._on_message,
                                      on_lost=self._on_lost)
        self._hung = None
        self._stats = self._endpoint.stats
        self.quality.watch(self._stats)
        identity = await self._identify()
        major, minor = split_version(identity["protocol_version"])
        if major != PROTOCOL_VERSION or minor > split_version(self._offer)[1]:
            raise UnusableTable(f"the table cannot be used: it answers identify in protocol {major}.{minor}; this host speaks "
                                f"{PROTOCOL_VERSION}.{PROTOCOL_MINOR} and {PROTOCOL_VERSION}.0")
        if problem := identity_problem(identity):
            raise UnusableTable(f"table {identity['model']!r} cannot be used: its identity announces {problem}")
        # Never more frames in flight, nor longer ones, than the table says it can take.
        self._link.window = min(WINDOW, identity["receive_window"])
        self._link.peer_frame_size = identity["frame_size"]
        reset = self.boot_id is not None and identity["boot_id"] != self.boot_id
        self.identity, self.boot_id = identity, identity["boot_id"]
        self.capabilities = Capabilities.from_identity(identity.args)
        self._start_heartbeats()
        if reset:
            self._on_event(TableRebooted(identity["boot_id"]))
        return identity

    async def _identify(self) -> Message:
        """Offer 1.1; a 1.0 table refuses any version byte but 1, and is then offered 1.0
        from here on (PROTOCOL.md "Protocol 1.1"). A table that refuses both cannot be
        used: trying again changes nothing."""
        try:
            return await self.command("identify", protocol_version=self._offer)
        except Rejected as exc:
            if exc.code != Code.VERSION_MISMATCH or self._offer == PROTOCOL_VERSION:
                raise
            refused_1_1 = exc
        try:
            identity = await self.command("identify", protocol_version=PROTOCOL_VERSION)
        except Rejected as exc:
            if exc.code != Code.VERSION_MISMATCH:
                raise
            raise UnusableTable(f"the table cannot be used: it refuses protocol {PROTOCOL_VERSION}.{PROTOCOL_MINOR} "
                                f"({refused_1_1.detail or 'no detail'}) and {PROTOCOL_VERSION}.0 "
                                f"({exc.detail or 'no detail'}) in identify, the versions this host speaks") from None
        log.info("the table speaks protocol 1.0: no counters, sensor test or stick reader")
        self._offer = PROTOCOL_VERSION
        return identity

    def close(self) -> None:
        self._cancel_tasks()
        if self._endpoint:
            endpoint, self._endpoint = self._endpoint, None
            endpoint.close()
        if self.link.may_drop():
            self.link.drop()
        self._fail_all(LinkLost("link closed"))

    @property
    def connected(self) -> bool:
        return self._endpoint is not None

    def status(self) -> dict[str, Any]:
        """`status`'s part of the table facade: the connection, and the link's figures."""
        out: dict[str, Any] = {"connection": self.link.status()}
        if self.stats is not None:
            out["link"] = {**{k: v for k, v in vars(self.stats).items() if isinstance(v, (int, float))},
                           **self.quality.as_dict()}
        return out

    @property
    def stats(self):
        """Link statistics since the first connect (one link serves every session)."""
        return self._stats

    # ---- generic ----
    async def command(self, name: str, **args: Any) -> Message:
        """Send a command; return its reply (ok / identity / status)."""
        future = self._send(name, args)
        return await self._reply(name, future)

    def _send(self, name: str, args: dict[str, Any], *, ends_pause: bool = False) -> asyncio.Future:
        # Checked as it goes out: work that looked for a pause before its last status
        # request must not move a table the pause stopped meanwhile.
        if name in MOTION_COMMANDS and not ends_pause and self._paused():
            raise Held(name)
        if self._endpoint is None:
            raise LinkLost("not connected")
        msg = Message(name, args)
        self._endpoint.send(msg)  # a malformed message raises before anything waits
        self._sent_at = self._now()
        self.traffic.record(SENT, msg, self._sent_at)
        future = asyncio.get_running_loop().create_future()
        self._replies.append((name, future))
        return future

    async def _reply(self, name: str, future: asyncio.Future) -> Message:
        before, limit = self._heard(), self._reply_limit()
        if await _within(future, limit):
            return future.result()
        return await self._chase(name, future, before, limit)

    def _reply_limit(self) -> float:
        """Seconds after which a reply is overdue and chased."""
        return REPLY_FLOOR + REPLY_RTOS * self._stats.rto

    async def _chase(self, name: str, future: asyncio.Future, before: tuple[int, int], limit: float) -> Message:
        """An overdue reply: solicited, probed, and at last given up (lost link or hung table)."""
        self._warn_overdue(name, limit)
        waited = since_probe = limit
        while waited < self._patience(before):
            if since_probe >= limit and name != "heartbeat":  # a late heartbeat is a probe already
                self._probe()
                since_probe = 0.0
            self._solicit(future)
            if await _within(future, SOLICIT_EVERY):
                return future.result()
            waited += SOLICIT_EVERY
            since_probe += SOLICIT_EVERY
        if future.done():
            return future.result()
        if self._heard()[0] == before[0]:
            log.warning("nothing heard from the table for %.0f s: the link is lost", waited)
            self._on_lost()
        else:
            self._unanswered(name, waited)
        return future.result()

    def _patience(self, before: tuple[int, int]) -> float:
        """How long a reply may take: longer on a line that damaged frames meanwhile; no
        longer than it is overdue from a table known not to answer."""
        heard, damaged = (now - then for now, then in zip(self._heard(), before))
        if self._hung is not None:
            return 0.0
        if not damaged:
            return CLEAN_LINE_PATIENCE
        return POOR_LINE_PATIENCE if damaged / heard >= POOR else REPLY_PATIENCE

    def _unanswered(self, name: str, waited: float) -> None:
        """The table acknowledges but does not answer: its logic hangs, and no command can
        get through. One fault for the session, shown to the operator and logged with the
        recent messages once; every waiting command fails with it, and so does every later
        one left unanswered, until the table answers again."""
        if self._hung is None:
            self._hung = self._overdue(Code.OPERATION_TIMEOUT, "host_link",
                                       f"the table acknowledges commands but does not answer them (no reply to "
                                       f"{name} in {waited:.0f} s): its logic hangs; switch it off and on")
            if self.link.up:  # while connecting, connect() fails with it and the link shows it
                self._on_event(TableFaulted(self._hung.fault))
        self._fail_all(self._hung)

    def _solicit(self, future: asyncio.Future) -> None:
        """Ask the table to retransmit (a NAK): at once, where its own timer backs off to
        a second, and waking a table link that gave up. For the oldest reply only: the
        others come after it."""
        if self._endpoint is not None and self._replies and self._replies[0][1] is future:
            self._endpoint.solicit()

    def _warn_overdue(self, name: str, limit: float) -> None:
        if name == "heartbeat":
            return  # a late heartbeat is the line's doing: the line-quality warning says so
        self._overdue_log.warning(log, self._now(), "no reply to %s within %.1f s; probing the table", name, limit,
                                  held_back="more late replies since the last warning")

    def _heard(self) -> tuple[int, int]:
        """Frames heard from the table so far, and how many of them were damaged."""
        s = self._stats
        damaged = s.crc_errors + s.truncated + s.oversize
        return s.frames_received + damaged, damaged

    def _probe(self) -> None:
        """A heartbeat, answered after the overdue reply (its short frame passes a noisy
        line best); nobody waits on it. One unanswered heartbeat is enough: more would only
        queue more replies on a line that is slow to carry them."""
        if any(command == "heartbeat" for command, _ in self._replies):
            return
        try:
            future = self._send("heartbeat", {})
        except LinkLost:
            return
        future.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def operation(self, name: str, **args: Any) -> Message:
        """Run a long operation to its completion event."""
        done = COMPLETIONS[name]
        future = asyncio.get_running_loop().create_future()
        self._completions[done] = future
        try:
            await self.command(name, **args)
            return await self._completion(name, future)
        finally:
            if self._completions.get(done) is future:
                del self._completions[done]
            if future.done() and not future.cancelled():
                future.exception()  # failed after we stopped waiting (stop, link lost): seen

    async def _completion(self, name: str, future: asyncio.Future) -> Message:
        limit = self._limits.get(name)
        if limit is None or await _within(future, limit):
            return await future
        log.warning("%s has not ended within %.0f s; asking the table for its status", name, limit)
        status = await self.get_status()  # answered after any completion sent before it
        if future.done():
            return future.result()
        code = Code.BUILD_TIMEOUT if name == "shuffle" else Code.OPERATION_TIMEOUT
        if _running(name, status):
            await self.stop()  # moving beyond its limit: stop all motion
            raise self._overdue(code, SUBSYSTEM_OF[name], f"{name} still running after {limit:.0f} s; stopped")
        raise self._overdue(code, SUBSYSTEM_OF[name], f"{name} ended without reporting its end within {limit:.0f} s")

    def _overdue(self, code: int, subsystem: str, detail: str) -> Overdue:
        """A fault the host declares, the recent messages logged as for the table's own."""
        overdue = Overdue(code, subsystem, detail)
        self._dump(f"the host gave up waiting, {overdue}")
        return overdue

    # ---- typed operations ----
    async def _reported(self, name: str, **args: Any) -> Message:
        """`operation`, its completion checked against the command and the capabilities."""
        done = await self.operation(name, **args)
        problem = completion_problem(name, args, done.args, self.capabilities)
        if problem:
            raise BadReport(name, problem)
        return done

    async def get_status(self) -> dict[str, Any]:
        status = dict((await self.command("get_status")).args)
        if problem := status_problem(status, self.capabilities):
            raise BadReport("get_status", problem)
        status["sets"] = [value_name(SET_LOCATIONS, s) for s in status["sets"]]
        return status

    async def configure(self, players: int, tiles: int, stacks: list[int]) -> None:
        await self.command("configure", players=players, tiles=tiles, stacks=list(stacks))

    async def collect_tiles(self) -> int:
        return (await self._reported("collect_tiles"))["count"]

    async def shuffle(self) -> int:
        return (await self._reported("shuffle"))["count"]

    async def raise_walls(self) -> None:
        await self.operation("raise_walls")

    async def roll_dice(self, count: int) -> list[int]:
        return list((await self._reported("roll_dice", count=count))["values"])

    async def separate_dead_wall(self, breaker: int, position: int, length: int) -> None:
        await self.operation("separate_dead_wall", breaker=breaker, position=position, length=length)

    async def flip_dora(self, seat: int, stack: int) -> None:
        await self._reported("flip_dora", seat=seat, stack=stack)

    async def set_wind_marker(self, wind: int, seat: int) -> None:
        await self._reported("set_wind_marker", wind=wind, seat=seat)

    async def show_scores(self, scores: list[int], mode: int, dealer: int) -> None:
        await self._display("show_scores", scores=list(scores), mode=mode, dealer=dealer)

    async def show_round(self, wind: int, hand: int, honba: int, riichi_sticks: int) -> None:
        await self._display("show_round", wind=wind, hand=hand, honba=min(honba, 255),
                            riichi_sticks=min(riichi_sticks, 255))

    async def set_dealer_lamp(self, seat: int) -> None:
        await self.command("set_dealer_lamp", seat=seat)

    async def show_error(self, code: int, seats: int = 0) -> None:
        """On the seats in the mask; 0: on every display the table has."""
        await self._display("show_error", code=code, seats=seats)

    async def show_text(self, text: str, seats: int = 0) -> None:
        """On the seats in the mask; 0: on the centre display."""
        await self._display("show_text", seats=seats, text=text.encode()[:40].decode(errors="ignore"))

    async def _display(self, name: str, **args: Any) -> None:
        if self.capabilities.has_display_for(name, args.get("seats", 0)):
            await self.command(name, **args)

    async def stop(self) -> None:
        # A stopped table sends no completion for what it aborted: fail the waiters now.
        self._fail_completions(Interrupted("stopped by the host"))
        await self.command("stop")

    async def resume(self) -> None:
        await self.command("resume")

    async def end_pause(self) -> None:
        """The operator's `resume`: the one motion command a pause lets through."""
        await self._reply("resume", self._send("resume", {}, ends_pause=True))

    # ---- protocol 1.1: send only what `capabilities` announces ----
    async def get_counters(self) -> dict[str, Any]:
        counters = dict((await self.command("get_counters")).args)
        for per_sensor in ("faults", "jams"):
            counters[per_sensor] = {value_name(SENSORS, i): n for i, n in enumerate(counters[per_sensor]) if n}
        return counters

    async def reset_service_counter(self) -> None:
        await self.command("reset_service_counter")

    async def enter_maintenance(self) -> None:
        await self.command("enter_maintenance")

    async def leave_maintenance(self) -> None:
        await self.command("leave_maintenance")

    async def test_subsystem(self, subsystem: str, seat: int = 0) -> dict[str, Any]:
        """Run one subsystem's test (maintenance mode); its result code (0: passed) and sensor."""
        done = await self.operation("test_subsystem", subsystem=TEST_SUBSYSTEMS.index(subsystem), seat=seat)
        return {"result": done["result"], "sensor": value_name(SENSORS, done["sensor"])}

    async def read_sensors(self) -> dict[str, int]:
        values = (await self.command("read_sensors"))["values"]
        return {value_name(SENSORS, i): v for i, v in enumerate(values) if i}  # SENSORS[0] is "none"

    async def read_sticks(self) -> tuple[list[int], int]:
        """Each seat's tray total, and the bit mask of seats with a stick in a wrong slot."""
        reading = await self.command("read_sticks")
        return list(reading["totals"]), reading["wrong_slot"]

    # ---- incoming ----
    def _on_message(self, msg: Message) -> None:
        self.traffic.record(RECEIVED, msg, self._now())
        handler = self._handlers.get(msg.name)
        if handler is None:
            self._unexpected(msg, "a host's message, sent by the table")
        else:
            handler(msg)

    def _on_completion(self, msg: Message) -> None:
        future = self._completions.pop(msg.name, None)
        if future and not future.done():
            future.set_result(msg)
        else:
            self._unexpected(msg, "no operation was waiting for it")

    def _on_fault(self, msg: Message) -> None:
        fault = Fault.from_event(msg)
        self._fail_completions(TableFault(fault))
        self._dump(f"the table stopped on a fault, {fault.describe()}")
        self._on_event(TableFaulted(fault))

    def _on_button(self, msg: Message) -> None:
        self._on_event(ButtonPressed(msg["seat"], value_name(BUTTONS, msg["name"])))

    def _unexpected(self, msg: Message, why: str) -> None:
        self._unexpected_log.warning(log, self._now(), "unexpected %s from the table: %s", shown(msg.name, msg.args),
                                     why, held_back="more unexpected messages since the last warning")
        self._on_event(UnexpectedMessage(msg, why))

    def _on_reply(self, msg: Message) -> None:
        if not (self._replies and _answers(self._replies[0][0], msg.name)):  # not the usual: the oldest's reply
            if not self._in_step(msg):
                return
        command, future = self._replies.popleft()
        self._hung = None  # it answers again
        if future.done():
            return
        if msg.name == "rejected":
            future.set_exception(Rejected(command, msg["code"], msg["detail"]))
        else:
            future.set_result(msg)
        if self._beats.pop(future, None) is not None:  # a heartbeat answered in time
            _seen(future)

    def _in_step(self, msg: Message) -> bool:
        """A reply that is not the oldest command's: whether a later one waits for it."""
        if not any(_answers(command, msg.name) for command, _ in self._replies):
            # No waiting command can get it: the answer to one sent before a reconnect (the
            # session resumed), whose caller was told the link was lost.
            self._unexpected(msg, "a reply to no waiting command (sent before the reconnect)")
            return False
        # A command whose reply cannot be this one lost its reply (a table that never
        # answered it): fail it and match the reply to the next, so the queue stays in step.
        while not _answers(self._replies[0][0], msg.name):
            command, future = self._replies.popleft()
            if not future.done():
                future.set_exception(self._overdue(Code.OPERATION_TIMEOUT, "host_link",
                                                   f"the table answered later commands but not {command}"))
        return True

    def _on_booted(self, msg: Message) -> None:
        boot_id = msg["boot_id"]
        if boot_id == self.boot_id or self._identifying():
            return  # a table met at connect(), which compares its identity's boot id itself
        # The table rebooted: its session and everything in flight are gone.
        self._dump(f"the table rebooted (boot id {boot_id})")
        self._on_event(TableRebooted(boot_id))
        self._fail_all(McuReset(f"table rebooted (boot id {boot_id})"))

    def _identifying(self) -> bool:
        """An identify is waiting: `booted` arrives first in a new table's first session."""
        return any(command == "identify" for command, _ in self._replies)

    def _on_lost(self) -> None:
        self._dump("the link to the table is lost")
        self._on_event(LinkDropped())
        self.close()

    def _dump(self, why: str) -> None:
        self.traffic.dump(log, why, self._now())

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()

    def _fail_completions(self, exc: Exception) -> None:
        for future in self._completions.values():
            _fail(future, exc)
        self._completions.clear()

    def _fail_all(self, exc: Exception) -> None:
        self._fail_completions(exc)
        while self._replies:
            _, future = self._replies.popleft()
            _fail(future, exc)

    # ---- background work: one heartbeat timer, tasks only for overdue replies ----
    # A heartbeat goes out about once a second of idle line, all game long. Nobody awaits its
    # reply: the one timer also wakes when an unanswered heartbeat's reply is due, and only an
    # overdue one is chased, in a task beside the next beats (a late reply delays none). A
    # reply normally comes before the next beat, so a heartbeat costs no loop turn but its own.
    def _start_heartbeats(self) -> None:
        self._heartbeat = asyncio.get_running_loop().call_soon(self._beat)

    def _beat(self) -> None:
        """One tick of the heartbeat timer. A third of the announced watchdog timeout leaves
        room for two lost heartbeats. Every command the table decodes feeds its watchdog
        (PROTOCOL.md "Heartbeat and watchdog"): a heartbeat goes out only when the line has
        been idle that long."""
        self._heartbeat = None
        if self._endpoint is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._beats:
            self._chase_overdue(now)
        if now >= self._beat_at - TIMER_SLACK:  # not only woken for a reply that is due
            interval = self.identity["heartbeat_timeout_ms"] / 3000
            remaining = interval - (now - self._sent_at)
            if remaining <= TIMER_SLACK:
                self._send_heartbeat()
                remaining = interval
            self.quality.sample(now)
            self._beat_at = now + remaining
        wake = min([self._beat_at, *(due for due, _, _ in self._beats.values())])
        self._heartbeat = loop.call_at(wake, self._beat)

    def _send_heartbeat(self) -> None:
        future = self._send("heartbeat", {})
        limit = self._reply_limit()
        self._beats[future] = (self._sent_at + limit, self._heard(), limit)

    def _chase_overdue(self, now: float) -> None:
        """Chase each heartbeat whose reply is due (a timer may wake TIMER_SLACK early)."""
        for future, (due, before, limit) in list(self._beats.items()):
            if due <= now + TIMER_SLACK:
                del self._beats[future]
                if future.done():
                    _seen(future)  # failed meanwhile (a reply that came after the reply to a later one)
                else:
                    self._spawn(self._chase("heartbeat", future, before, limit))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._reap)
        return task

    def _reap(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        failure = None if task.cancelled() else task.exception()
        if failure is not None and not isinstance(failure, TableError):  # a table's failures surface as events
            log.error("a background task of the table facade failed", exc_info=failure)

    def _cancel_tasks(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
        for future in self._beats:
            if future.done():
                _seen(future)
        self._beats.clear()
        for task in list(self._tasks):
            task.cancel()


def _host_link() -> Link:
    """The host's end of the link, made for a noisy line (docs/ARCHITECTURE.md "Deadlines").

    A serial line has no congestion to ease: the host resends at its computed RTO
    instead of backing off to a second, so a long frame gets its dozens of tries before
    the table's watchdog misses the heartbeats queued behind it. And it gives up only
    on a silent table: while bytes keep coming it keeps resending, for up to a minute;
    a reconnect would cost an identify, the longest frame there is. One link (one epoch)
    serves every connection of the process: the table resumes the session after an outage.
    """
    return Link(role="host", window=WINDOW, backoff=False, max_retransmits=None, give_up_heard=HOST_GIVE_UP_HEARD)


async def _within(future: asyncio.Future, seconds: float) -> bool:
    """Wait up to `seconds` for `future` without cancelling it; whether it is done.
    What asyncio.wait([future], timeout=seconds) does, without its sets and second
    coroutine: every command's reply is awaited this way."""
    if not future.done():
        loop = asyncio.get_running_loop()
        woken = loop.create_future()

        def wake(_: object = None) -> None:
            if not woken.done():
                woken.set_result(None)
        timeout = loop.call_later(seconds, wake)
        future.add_done_callback(wake)
        try:
            await woken
        finally:
            timeout.cancel()
            future.remove_done_callback(wake)
    return future.done()


def _answers(command: str, reply: str) -> bool:
    return reply == "rejected" or reply in REPLY_OF[command]


def _fail(future: asyncio.Future, exc: Exception) -> None:
    if not future.done():
        future.set_exception(exc)
        future.exception()  # seen here: its waiter may be gone (a cancelled step or heartbeat)


def _seen(future: asyncio.Future) -> None:
    """Mark a done future's failure seen: nobody waits on a heartbeat, whose failure fails nothing else."""
    if not future.cancelled():
        future.exception()


def _running(name: str, status: dict[str, Any]) -> bool:
    """Whether the status shows `name` still under way (a shuffle runs beside other work)."""
    if name == "shuffle":
        return "shuffling" in status["sets"]
    operation = status["operation"]
    return 0 <= operation < len(OPERATIONS) and OPERATIONS[operation] == name
