"""`start` sent at the instant a game is over starts the next game, which plays: the old
game's final is stored and shown first, and nothing of it leaks into the new one (no
fault 304, no previous `last result`). Games end after one hand here: the EMA preset
with busting, and a yakuman that takes the discarder below zero."""
from __future__ import annotations

import json
import threading

import pytest

from controller.api import handlers as service_module
from controller.api.client import RequestError
from controller.store.database import Store, StoreError

from ...e2e.e2e_harness import REPO
from .process_harness import RunProcess, cli, start_sim, status, stderr_of, write_config
from .service_harness import TIMEOUT, RunningService, exchange, wait_for

SEED = 6
BUST = {"kind": "ron", "discarder": 0, "winners": [{"seat": 1, "yakuman": 1}]}  # seat 0 ends below zero


def bust_ruleset(folder) -> str:
    """The EMA preset, but a score below zero ends the game: a game in one hand."""
    text = (REPO / "config" / "rulesets" / "ema-2016.yaml").read_text()
    assert "\n  busting: null" in text and "\nname: ema-2016\n" in text
    path = folder / "one-hand.yaml"
    path.write_text(text.replace("\n  busting: null", "\n  busting: {below: 0}")
                    .replace("\nname: ema-2016\n", "\nname: one-hand\n"))
    return str(path)


@pytest.fixture
def table(procs, short_tmp) -> RunProcess:
    run = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED, speed=5000), bust_ruleset(short_tmp)))
    run.start()
    return run


def request_line(op: str, **args) -> bytes:
    return (json.dumps({"op": op, **args}) + "\n").encode()


def hand_in_play(run: RunProcess, seq: int = 1) -> dict:
    def ready():
        now = run.client.request("status")
        assert now["fault"] is None, (now["fault"], stderr_of(run.proc))
        return now if now["state"] == "playing" and (now.get("hand_in_play") or {}).get("seq") == seq else None
    return wait_for(ready, f"hand {seq} in play", timeout=20)


def bust_and_wait_for_game_over(run: RunProcess) -> None:
    """The game's last result (as `mjtable result` sends it), then `status` polled until it
    says game_over."""
    run.client.request("result", hand=1, result=BUST)
    wait_for(lambda: run.client.request("status")["state"] == "game_over", "game over", timeout=20, interval=0)


def test_start_at_the_instant_of_game_over_plays_the_next_game_every_time(table, short_tmp):
    table.client.request("start")
    for game in range(50):
        hand_in_play(table)
        bust_and_wait_for_game_over(table)
        table.client.request("start")  # at once: answered with the new game, or refused with a reason
        now = hand_in_play(table)
        assert now["scores"] == [30000] * 4, game  # a new game, from its start
        assert "last_result" not in now and "final_scores" not in now, game
    assert "Traceback" not in stderr_of(table.proc)
    with Store(short_tmp / "state.db", create=False) as store:  # each game's final stored, the last in play
        assert [g.status for g in store.games()] == ["finished"] * 50 + ["active"]


def test_pause_resume_and_start_in_one_write_at_game_over_plays_the_next_game(table):
    table.client.request("start")
    for game in range(5):
        hand_in_play(table)
        bust_and_wait_for_game_over(table)
        replies = exchange(table.client.path, request_line("pause"), request_line("resume"), request_line("start"))
        assert [r["ok"] for r in replies] == [True, True, True], replies
        hand_in_play(table)
    assert "Traceback" not in stderr_of(table.proc)


def test_a_new_game_and_an_idle_table_show_no_previous_last_result(table):
    socket_path = table.client.path
    assert cli(socket_path, "start").returncode == 0
    hand_in_play(table)
    assert cli(socket_path, "result", "draw", "--tenpai", "1").returncode == 0
    hand_in_play(table, 2)
    assert "last_result" in status(socket_path)
    assert cli(socket_path, "abandon").returncode == 0
    assert "last_result" not in status(socket_path)  # idle: no game, no last result
    shown = cli(socket_path, "status")
    assert "last result" not in shown.stdout.lower(), shown.stdout
    assert cli(socket_path, "start").returncode == 0
    hand_in_play(table)
    assert "last_result" not in status(socket_path)


def test_a_result_after_game_over_says_the_game_is_over_and_fails(table):
    socket_path = table.client.path
    assert cli(socket_path, "start").returncode == 0
    hand_in_play(table)
    bust_and_wait_for_game_over(table)
    late = cli(socket_path, "result", "draw")
    assert late.returncode != 0, late.stdout
    assert "the game is over" in late.stderr, late.stderr
    assert "already recorded" not in late.stderr + late.stdout
    other = cli(socket_path, "result", "draw", "--hand", "1")  # named: the controller says so too
    assert other.returncode != 0 and "the game is over" in other.stderr, other.stderr
    resent = table.client.request("result", hand=1, result=BUST)  # a lost reply's resend is answered again
    assert resent == {"duplicate": True}


@pytest.fixture
def in_process(short_tmp):
    """The service in process, one hand a game, its first game in play."""
    service = RunningService(short_tmp, ruleset=bust_ruleset(short_tmp))
    service.start()
    try:
        service.request("start")
        service.wait_playing(1)
        yield service
    finally:
        service.stop()


def next_game_plays(service) -> None:
    service.request("start")
    assert service.wait_playing(1)["fault"] is None
    assert [g["game"].status for g in service.stored()] == ["finished", "active"]


def test_start_while_the_last_games_final_is_not_stored_is_refused_saying_why(in_process, monkeypatch):
    """The store holds the final's write (a frozen disk): `start` waits a bounded time for
    it, is refused with the reason, and once the final is stored, starts."""
    monkeypatch.setattr(service_module, "FINAL_SHOWN_WITHIN", 0.3)
    release, real = threading.Event(), in_process.store.finish_game
    in_process.store.finish_game = lambda *args: release.wait(TIMEOUT) and real(*args)
    in_process.request("result", hand=1, result=BUST)
    wait_for(lambda: in_process.status()["state"] == "game_over", "game over")
    with pytest.raises(RequestError) as refused:
        in_process.request("start")
    assert refused.value.code == "not_allowed"
    assert "the last game's final standings are still being stored and shown" in refused.value.message
    release.set()
    next_game_plays(in_process)


def test_start_while_the_final_is_refused_by_the_store_names_the_fault(in_process):
    """The store refuses the final (a full disk): `start` at game over is refused naming
    the fault, never started into a dead game; `retry` stores the final."""
    real, refusals = in_process.store.finish_game, [StoreError("the disk is full")]

    def finish_game(*args):
        if refusals:
            raise refusals.pop()
        return real(*args)
    in_process.store.finish_game = finish_game
    in_process.request("result", hand=1, result=BUST)
    wait_for(lambda: in_process.status()["fault_code"] is not None, "the store's fault")
    with pytest.raises(RequestError) as refused:
        in_process.request("start")
    assert "stopped by its fault" in refused.value.message and "the disk is full" in refused.value.message
    in_process.request("retry")
    wait_for(lambda: in_process.status()["state"] == "game_over", "game over, its final stored")
    next_game_plays(in_process)


def test_a_game_whose_end_failed_is_abandoned_before_the_next_starts(in_process):
    """A bug while the final is shown stops the game at game over (fault 304): `start`
    says so, not into a dead game; after `abandon` the next game plays."""
    def broken(*args, **kwargs):
        raise RuntimeError("a bug in showing the standings")
    in_process.controller.table.show_text = broken
    in_process.request("result", hand=1, result=BUST)
    wait_for(lambda: in_process.status()["fault_code"] == 304, "the game stopped")
    with pytest.raises(RequestError) as refused:
        in_process.request("start")
    assert "internal error (RuntimeError: a bug in showing the standings)" in refused.value.message
    assert "abandon the game" in refused.value.message
    del in_process.controller.table.show_text
    in_process.request("abandon")
    next_game_plays(in_process)
