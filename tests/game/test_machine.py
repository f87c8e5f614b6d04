"""The state machine: every legal move of the hand cycle and of the table's motion, the
moves it refuses, the diagram `mjtable diagram` draws, and a game resumed after a restart
from each state the store keeps."""
from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from transitions import MachineError

from controller import rules as R
from controller.game.controller import Controller
from controller.game.hand import Hand
from controller.game.machine import RESUME_POINTS, SETUP_STEPS, TableMachine
from controller.app.simulation import profile_for, run_game
from controller.store.database import Store
from controller.table.facade import Table
from firmware_protocol.virtual_time import run_virtual
from firmware_protocol.profile import load_profile
from sim.serve import connect_in_process
from sim.table import SimulatedTable

from ..support.processes import MJTABLE

# The hand cycle as the product promises it, written out by hand (not read from the machine).
GAME_MOVES = {
    ("boot", "power_on"): "connecting",
    ("connecting", "identified"): "self_test",
    ("self_test", "ready"): "idle",
    ("idle", "start_game"): "preparing",
    ("game_over", "start_game"): "preparing",
    ("preparing", "done"): "collecting",
    ("collecting", "done"): "waiting_shuffle",
    ("waiting_shuffle", "done"): "raising",
    ("raising", "done"): "rolling",
    ("rolling", "done"): "separating",
    ("separating", "done"): "revealing_dora",  # playing without dora indicators
    ("revealing_dora", "done"): "playing",
    ("playing", "settle"): "settling",
    ("settling", "next_hand"): "preparing",
    ("settling", "end_game"): "game_over",
    **{(state, "abandon"): "idle" for state in ["preparing", *SETUP_STEPS, "playing", "settling", "game_over"]},
}
MOTION_MOVES = {
    ("running", "pause"): "paused",
    ("paused", "resume"): "running",
    ("running", "fault"): "fault",
    ("fault", "retry"): "running",
    ("running", "game_stopped"): "fault",
    ("paused", "game_stopped"): "fault",
    ("paused", "release"): "running",
    ("fault", "release"): "running",
}
GAME_TRIGGERS = sorted({trigger for _, trigger in GAME_MOVES})
MOTION_TRIGGERS = sorted({trigger for _, trigger in MOTION_MOVES})
GAME_STATES = ["boot", "connecting", "self_test", "idle", "preparing", *SETUP_STEPS, "playing", "settling",
               "game_over"]


def machine(game: str = "playing", motion: str = "running", *, has_dora: bool = True,
            restoring: bool = False) -> TableMachine:
    sm = TableMachine(has_dora=lambda: has_dora, restoring=lambda: restoring)
    sm.game, sm.motion = game, motion  # placed there directly: each move is tested from each state
    return sm


@pytest.mark.parametrize("source, trigger", sorted(GAME_MOVES))
def test_every_legal_move_of_the_hand_cycle(source, trigger):
    sm = machine(source, has_dora=True)
    assert getattr(sm, f"may_{trigger}")()
    getattr(sm, trigger)()
    assert sm.game == GAME_MOVES[source, trigger]


@pytest.mark.parametrize("source, trigger", sorted(MOTION_MOVES))
def test_every_legal_move_of_the_motion(source, trigger):
    sm = machine("raising", source)
    assert getattr(sm, f"may_{trigger}")()
    getattr(sm, trigger)()
    assert sm.motion == MOTION_MOVES[source, trigger]
    assert sm.game == "raising"  # a pause or a fault holds the game where it is


def test_without_dora_indicators_play_follows_the_dead_wall():
    sm = machine("separating", has_dora=False)
    sm.done()
    assert sm.game == "playing"


@pytest.mark.parametrize("source", GAME_STATES)
def test_every_other_move_of_the_hand_cycle_is_refused(source):
    for trigger in GAME_TRIGGERS:
        if (source, trigger) in GAME_MOVES:
            continue
        sm = machine(source)
        assert not getattr(sm, f"may_{trigger}")(), (source, trigger)
        with pytest.raises(MachineError):
            getattr(sm, trigger)()
        assert sm.game == source


@pytest.mark.parametrize("source", ["running", "paused", "fault"])
def test_every_other_move_of_the_motion_is_refused(source):
    for trigger in MOTION_TRIGGERS:
        if (source, trigger) in MOTION_MOVES:
            continue
        sm = machine("raising", source)
        assert not getattr(sm, f"may_{trigger}")(), (source, trigger)


def test_setup_steps_never_go_backwards():
    order = ["preparing", *SETUP_STEPS, "playing"]
    for later in range(1, len(order)):
        for earlier in range(later):
            sm = machine(order[later])
            for trigger in GAME_TRIGGERS:
                if getattr(sm, f"may_{trigger}")():
                    getattr(sm, trigger)()
                    assert sm.game != order[earlier], (order[later], trigger)
                    sm = machine(order[later])


@pytest.mark.parametrize("game", ["boot", "connecting", "self_test"])
def test_nothing_pauses_or_faults_before_the_table_is_configured(game):
    sm = machine(game)
    assert not sm.may_pause() and not sm.may_fault()


def test_while_the_link_is_restored_the_game_waits_and_status_says_reconnecting():
    sm = machine("raising", restoring=True)
    assert sm.state == "reconnecting"
    assert not sm.may_pause() and sm.may_abandon()  # abandoned, the store records it; the table is told once back
    assert not sm.in_play()
    idle = machine("idle", restoring=True)
    assert not idle.may_start_game()


def test_the_state_shown_is_the_hold_else_the_game():
    assert machine("raising", "paused").state == "paused"
    assert machine("playing", "fault").state == "fault"
    assert machine("playing").state == "playing"


def test_a_result_is_taken_in_play_even_while_paused_riichi_only_unpaused():
    assert machine("playing", "paused").takes_result()
    assert not machine("playing", "paused").in_play()
    assert machine("playing", "fault").in_play()  # the background shuffle's fault holds no player
    assert not machine("settling").takes_result()


def test_the_table_facade_keeps_the_link_state_and_connects_with_backoff():
    async def scenario():
        loop = asyncio.get_running_loop()
        table = SimulatedTable(load_profile(profile_for(R.load_ruleset(RULESET))), seed=SEED)
        attempts, heard = [], []

        async def connect():
            attempts.append(loop.time())
            if len(attempts) < 3:
                raise OSError("no such device")
            return connect_in_process(loop, table, seed=SEED)
        facade = Table(connect)
        assert facade.link.state == "down"
        await facade.connect_with_backoff(10.0, on_retry=lambda exc, delay: heard.append((str(exc), delay)))
        up = facade.link.state
        facade.close()
        return up, facade.link.state, heard, [round(b - a, 2) for a, b in zip(attempts, attempts[1:])]
    up, closed, heard, gaps = run_virtual(scenario())
    assert (up, closed) == ("up", "down")
    assert heard == [("no such device", 0.25), ("no such device", 0.5)]
    assert gaps == [0.25, 0.5]  # twice as long after each failure


def test_a_lost_link_shows_reconnecting_and_the_game_carries_on_in_its_state():
    seen = {}

    def cut_line_in_hand_2(controller, table):
        def on_event(event):
            if event["event"] == "hand_started" and event["seq"] == 2 and "cut" not in seen:
                seen["cut"] = controller.sm.state
                asyncio.get_running_loop().call_later(1.0, table.firmware.detach)
            elif event["event"] == "link_lost" and "during" not in seen:
                seen["before"] = controller.sm.game
            elif event["event"] == "state" and "before" in seen and "during" not in seen:
                seen["during"] = controller.snapshot()["state"]
                seen["refused"] = (controller.sm.may_pause(), controller.sm.may_abandon())
            elif event["event"] == "reconnected":
                seen.setdefault("after", controller.snapshot()["state"])
        controller.subscribe(on_event)
    run = run_game(RULESET, seed=SEED, on_controller=cut_line_in_hand_2)
    assert seen["cut"] == seen["before"] == "playing"
    assert seen["during"] == "reconnecting" and seen["refused"] == (False, True)  # pause refused, abandon taken
    assert seen["after"] == "playing"
    assert sum(1 for r in run.trace if r.name == "identify") == 2


# ---------------------------------------------------------------- the diagram
def test_mjtable_diagram_draws_the_hand_cycle_readably(tmp_path):
    out = tmp_path / "machine.mmd"
    subprocess.run([MJTABLE, "diagram", "-o", str(out)], check=True, timeout=60)
    text = out.read_text()
    assert text.startswith("stateDiagram-v2")
    edges = [line.strip() for line in text.splitlines() if "-->" in line and "[*]" not in line]
    assert len(edges) <= 40
    order = ["preparing", *SETUP_STEPS, "playing"]
    for edge in edges:
        source, rest = edge.split(" --> ")
        dest = rest.split(":")[0]
        if source in order and dest in order:
            assert order.index(dest) > order.index(source), f"backward setup edge {edge}"
    for shown in ("running --> paused: pause", "running --> fault: fault", "settling --> game_over: end_game",
                  "fault --> running: retry", "paused --> running: resume"):
        assert any(edge.startswith(shown) for edge in edges), shown
    printed = subprocess.run([MJTABLE, "diagram"], check=True, capture_output=True, text=True, timeout=60)
    assert printed.stdout == text
    architecture = Path(__file__).parents[2] / "docs" / "ARCHITECTURE.md"
    assert f"```mermaid\n{text}```" in architecture.read_text()  # the picture at the top of the docs


# ---------------------------------------------------------------- resume after a restart
def test_a_hand_from_an_older_database_resumes_where_its_phase_says():
    stored = {"seq": 2, "label": "E2", "phase": "raised", "throws": [[3, 4]], "separated": False,
              "dora_shown": 0, "kans": 0, "riichi": []}
    hand, resume_at = Hand.from_stored(stored, "separated")  # the old free-form step
    assert (hand.seq, hand.throws, resume_at) == (2, [[3, 4]], "rolling")
    assert Hand.from_stored({**stored, "phase": "setup"}, "preparing")[1] == "preparing"
    assert Hand.from_stored({**stored, "phase": "playing"}, "playing")[1] == "playing"
    del stored["phase"]
    assert Hand.from_stored(stored, "revealing_dora")[1] == "revealing_dora"


RULESET = "ema-2016"
SEED = 5


class Drawn:
    """Players whose every hand is an exhaustive draw, all noten: what a restart replays
    is the same whatever the host's lifetime."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        controller.subscribe(self._on_event)

    def _on_event(self, event: dict) -> None:
        if event["event"] == "hand_started":
            self.controller.background.spawn(self._draw(event["seq"]), "players")

    async def _draw(self, seq: int) -> None:
        await asyncio.sleep(5.0)
        while not self.controller.sm.takes_result():
            await asyncio.sleep(5.0)
        self.controller.submit_result(seq, {"kind": "draw", "tenpai": []})


async def _game(kill_in: str | None, db) -> tuple[list[dict], str | None]:
    """A game on one store; with `kill_in`, the host is killed the moment it stores that
    state as the second hand's resume point, and a new host carries on from the store."""
    loop = asyncio.get_running_loop()
    rules = R.load_ruleset(RULESET)
    table = SimulatedTable(load_profile(profile_for(rules)), seed=SEED)
    hands: list[dict] = []

    def host() -> Controller:
        async def connect():
            return connect_in_process(loop, table, seed=SEED)
        controller = Controller(connect, rules, store=Store(db), seed=SEED)
        Drawn(controller)
        controller.subscribe(lambda e: hands.append(e["record"]) if e["event"] == "hand_ended" else None)
        return controller

    async def play(controller: Controller):
        await controller.start()
        if controller.state is None:
            await controller.new_game(0)
        return await controller.play()

    first = host()
    submit = first.db.submit

    def submit_then_die(method, *args, **kwargs):
        written = submit(method, *args, **kwargs)
        if method == "save_step" and args[1] == kill_in and args[2]["seq"] == 2:
            raise asyncio.CancelledError  # the host dies right after the write: nothing more runs
        return written
    first.db.submit = submit_then_die
    game = asyncio.ensure_future(play(first))
    await asyncio.wait([game])
    first.close()  # its background tasks cancelled, its line dropped
    await asyncio.sleep(0)
    first.store.close()
    if kill_in is None:
        return hands, None
    assert game.cancelled()
    peek = Store(db)
    stored_step = peek.active_game().step
    peek.close()
    second = host()
    await play(second)
    second.close()
    second.store.close()
    return hands, stored_step


@pytest.fixture(scope="module")
def clean_hands(tmp_path_factory):
    hands, _ = run_virtual(_game(None, tmp_path_factory.mktemp("clean") / "state.db"))
    return [_rules_view(h) for h in hands]


def _rules_view(hand: dict) -> dict:
    return {k: hand[k] for k in ("hand", "honba", "dealer", "result", "payments", "scores")}


@pytest.mark.parametrize("state", RESUME_POINTS)
def test_a_restart_carries_on_from_each_stored_state(state, clean_hands, tmp_path):
    hands, stored_step = run_virtual(asyncio.wait_for(_game(state, tmp_path / "state.db"), 14400))
    assert stored_step == state  # the store kept the machine state as the resume point
    assert [_rules_view(h) for h in hands] == clean_hands
