"""Link noise: with 1 % corrupted bytes, 1 % dropped frames and jitter,
every command executes exactly once, in order, and gets its reply; a seeded game ends
with the same journal as the clean run."""
from __future__ import annotations

import asyncio

import pytest

from controller.app.simulation import run_game
from controller.table.facade import Table
from controller.table.events import UnexpectedMessage
from firmware_protocol.transport import Impairment
from firmware_protocol.virtual_time import run_virtual
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from .harness import COUNTS, clean_game, count_link

NOISE = Impairment(corrupt=0.01, drop=0.01, jitter=0.002)
COMMANDS = 10_000
BATCH = 8          # commands in flight at once: more than the link's window of 4
MOTION_EVERY = 50  # one motion operation (awaited to its completion) per 50 commands


def _batch(start: int) -> list[tuple[str, dict]]:
    """Display commands, heartbeats and status requests; show_text carries a unique number."""
    kinds = [("show_text", lambda i: {"seats": 0, "text": f"cmd {i}"}),
             ("show_round", lambda i: {"wind": i % 4, "hand": 1 + i % 4, "honba": i % 256, "riichi_sticks": i % 7}),
             ("heartbeat", lambda i: {}),
             ("get_status", lambda i: {})]
    return [(kinds[i % len(kinds)][0], kinds[i % len(kinds)][1](i)) for i in range(start, start + BATCH)]


def _motion(i: int) -> tuple[str, dict]:
    if i % 2:
        return "roll_dice", {"count": 2}
    return "set_wind_marker", {"wind": i % 4, "seat": i % 4}


async def _drive_noisy_table(commands: int):
    """Send `commands` commands through the facade; return what was sent, the replies,
    the table's trace and anything the facade did not expect."""
    loop = asyncio.get_running_loop()
    table = SimulatedTable(seed=1)
    unexpected = []
    host = Table(lambda: _connect(loop, table),
                 on_event=lambda e: isinstance(e, UnexpectedMessage) and unexpected.append(e.message))
    sent, replies = [], []
    send = host._send

    def logged(name, args, **options):  # every command sent, the facade's own identify and heartbeats too
        future = send(name, args, **options)
        sent.append((name, args))
        future.add_done_callback(lambda f: f.cancelled() or f.exception() or replies.append(f.result().name))
        return future
    host._send = logged

    await host.connect()
    done = 0
    while done < commands:
        if done % MOTION_EVERY == 0:
            name, args = _motion(done // MOTION_EVERY)
            await host.operation(name, **args)
            done += 1
        batch = _batch(done)
        await asyncio.gather(*(host.command(name, **args) for name, args in batch))
        done += len(batch)
    # Replies come in command order: once this one is back, all earlier ones are. Copy
    # before closing, which fails a heartbeat the facade may have sent meanwhile.
    await host.command("get_status")
    sent, replies = sent[:len(replies)], list(replies)
    stats = host.stats
    host.close()
    return sent, replies, table.trace.records, unexpected, stats


async def _connect(loop, table):
    return connect_in_process(loop, table, impairment=NOISE, seed=7)


@pytest.fixture(scope="module")
def noisy():
    sent, replies, trace, unexpected, stats = run_virtual(_drive_noisy_table(COMMANDS))
    COUNTS["noisy commands"] += len(sent)
    count_link(stats)
    return sent, replies, trace, unexpected, stats


def test_noise_was_there(noisy):
    *_, stats = noisy
    assert stats.crc_errors > 0 and stats.retransmits > 0


def test_every_command_executes_exactly_once_in_order(noisy):
    sent, _, trace, _, _ = noisy
    executed = [(r.name, r.args) for r in trace if r.dir == "cmd"]
    assert len(sent) > COMMANDS
    assert executed[:len(sent)] == sent
    assert len(executed) - len(sent) <= 1  # at most a last heartbeat, sent after the final reply


def test_every_command_gets_its_reply_and_every_event_arrives_once(noisy):
    sent, replies, trace, unexpected, _ = noisy
    expected = {"get_status": "status", "identify": "identity_1_1"}  # the simulator speaks 1.1
    assert replies == [expected.get(name, "ok") for name, _ in sent]
    assert sent[-1] == ("get_status", {})
    assert [r.name for r in trace if r.dir == "reply"][:len(replies)] == replies
    motions = [name for name, _ in sent if name in ("roll_dice", "set_wind_marker")]
    events = [r.name for r in trace if r.dir == "event"]
    assert len(events) == len(motions)
    assert unexpected == []


@pytest.mark.parametrize("ruleset, seed", [("ema-2016", 21), ("mleague", 22), ("zung-jung", 23), ("mcr", 24)])
def test_noisy_game_ends_with_the_clean_journal(ruleset, seed):
    run = run_game(ruleset, seed=seed, impairment=NOISE)
    count_link(run.controller.table.stats)
    COUNTS["noisy games"] += 1
    clean = clean_game(ruleset, seed)
    assert run.hands == clean.hands  # no resets: even the dice are the same
    assert run.standings == clean.standings
