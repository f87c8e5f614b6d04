"""Simulated tables on a real-time loop, each with its controller, service and MQTT
publisher, as `mjtable run` with an `mqtt:` section runs them (the benchmark plays each in a
process of its own, as each real table has a board; the floor's test plays several in one);
and a watcher of the floor view's WebSocket that notes when each hand's end first shows on the floor.

A hand is known by (table id, hand label, honba): unique within a game. The benchmark
(bench_fleet.py) and the floor's fleet test (tests/floor) both play games this way.
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from controller import rules as R
from controller.game.controller import Controller
from controller.api.handlers import Service
from controller.game.settings import Settings, durations_from
from controller.app.simulation import PlayerDriver, profile_for, table_rules
from sim.players import Players
from sim.serve import connect_in_process
from sim.table import SimulatedTable

THINK = 60.0  # a hand's play, in simulated seconds

Hand = tuple[str, str, int]  # table id, hand label, honba


@dataclass
class FleetTable:
    table_id: str
    controller: Controller
    service: Service
    sim: SimulatedTable
    publisher: "Publisher | None"  # noqa: F821 (imported with a broker only)
    ended: dict[Hand, float] = field(default_factory=dict)  # each hand's end, wall-clock time
    over: float | None = None  # the game's final (game_over), wall-clock time

    async def play(self) -> None:
        await self.service.start()
        await self.service.handle("start", {})
        await self.service.game_task

    async def close(self) -> None:
        if self.publisher is not None:
            await self.publisher.close()
        self.controller.close()
        self.sim.close()


def open_table(n: int, *, speed: float, broker: str | None, password: str | None = None, seed: int = 0,
               ruleset: str = "ema-2016") -> FleetTable:
    """Table `fleet-n`: its simulated table `speed` times faster than real, its players,
    and (with a broker URL) its publisher, started (as user `fleet-n` with ``password``)."""
    loop = asyncio.get_running_loop()
    rules = R.load_ruleset(ruleset)
    table = SimulatedTable(profile_for(rules), seed=seed + n, speed=speed)

    async def connect():
        return connect_in_process(loop, table)

    controller = Controller(connect, rules, settings=Settings(durations=durations_from(table.profile.timings)),
                            seed=seed + n)
    PlayerDriver(controller, Players(table_rules(rules), seed=seed + n), think=lambda: THINK / speed)
    service = Service(controller, starting_dealer=0)
    table_id = f"fleet-{n}"
    publisher = None
    if broker is not None:
        from controller.api.mqtt.publisher import Publisher  # only then: its cost is what the benchmark measures
        from controller.api.mqtt.settings import MqttSettings
        settings = MqttSettings(broker=broker, table_id=table_id, discovery_prefix=None,
                                username=table_id if password else None, password=password)
        publisher = Publisher(settings, service, list(rules.seats))
        publisher.start()
    fleet_table = FleetTable(table_id, controller, service, table, publisher)

    def on_event(event: dict) -> None:
        if event["event"] == "hand_ended":
            record = event["record"]
            fleet_table.ended[(table_id, record["hand"], record["honba"])] = time.time()
        elif event["event"] == "game_over":
            fleet_table.over = time.time()
    controller.subscribe(on_event)
    return fleet_table


async def play_fleet(count: int, *, speed: float, broker: str | None = None, password: str | None = None,
                     seed: int = 0, first: int = 1) -> list[FleetTable]:
    """`count` tables (`fleet-first` on), each playing one whole game; returns once every game is over."""
    tables = [open_table(n, speed=speed, broker=broker, password=password, seed=seed)
              for n in range(first, first + count)]
    try:
        await asyncio.gather(*(t.play() for t in tables))
    finally:
        await asyncio.gather(*(t.close() for t in tables))
    return tables


# ---------------------------------------------------------------- the floor's side
def hands_in(message: dict) -> list[Hand]:
    """The hands whose end a floor view message shows (each tile's last hand)."""
    tiles = message.get("tiles", []) if message["type"] == "floor" else [message.get("tile")]
    return [(t["table_id"], t["last_hand"]["hand"], t["last_hand"]["honba"]) for t in tiles if t and t["last_hand"]]


async def watch(url: str, on_seen: Callable[[Hand, float], None], until: Callable[[], bool] = lambda: False) -> None:
    """Follow the floor view's WebSocket (``url``: the page's address) until ``until()``;
    ``on_seen(hand, time)`` the first time each hand's end shows."""
    import aiohttp
    seen: set[Hand] = set()
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url.rstrip("/") + "/ws") as ws:
            async for message in ws:
                now = time.time()
                for hand in hands_in(json.loads(message.data)):
                    if hand not in seen:
                        seen.add(hand)
                        on_seen(hand, now)
                if until():
                    return


async def follow_events(broker: str, password: str | None, on_seen: Callable[[Hand, float], None]) -> None:
    """Each hand_ended event as the broker delivers it (a subscriber beside the floor view's)."""
    import aiomqtt

    from controller.api.mqtt.settings import parse_broker
    where = parse_broker(broker)
    async with aiomqtt.Client(where.host, where.port, username="floor" if password else None,
                              password=password) as client:
        await client.subscribe("mjtable/+/events", qos=1)
        async for message in client.messages:
            event = json.loads(message.payload)
            if event["event"] == "hand_ended":
                on_seen((event["table_id"], event["record"]["hand"], event["record"]["honba"]), time.time())


def _watch_main(floor: str, broker: str, password: str, out: str) -> None:
    """`python -m benchmarks.fleet FLOOR_URL BROKER_URL PASSWORD FILE`: in a process of its own
    (so that the tables' loop does not delay it), each hand's end as the broker delivers it and
    as the floor view first shows it: JSON lines [where, table, hand, honba, time]."""
    with open(out, "a", buffering=1) as lines:
        def seen(where: str):
            return lambda hand, now: lines.write(json.dumps([where, *hand, now]) + "\n")

        async def both():
            await asyncio.gather(watch(floor, seen("floor")),
                                 follow_events(broker, None if password == "-" else password, seen("broker")))
        asyncio.run(both())


# ---------------------------------------------------------------- a floor view
def start_floor(broker_url: str, *login: str) -> tuple[subprocess.Popen, str]:
    """`mjtable floor` on the broker (``login``: its --username and --password-file options),
    on a free port: the process and the page's URL."""
    mjtable = str(Path(sys.executable).with_name("mjtable"))
    proc = subprocess.Popen([mjtable, "floor", "--broker", broker_url, "--listen", "127.0.0.1:0", *login],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if not line.startswith("floor view on "):
        proc.kill()
        raise RuntimeError(f"mjtable floor did not start: {line!r}")
    return proc, line.split(" on ", 1)[1].strip()


if __name__ == "__main__":
    _watch_main(*sys.argv[1:5])
