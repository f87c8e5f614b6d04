"""`mjtable run` as a real process against `mjtable sim --pty`: SIGKILLed at random points
of a seeded game and started again, it finishes the same game as a clean run; bad
databases, configs and ports get clear messages, not tracebacks."""
from __future__ import annotations

import dataclasses
import json
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from controller import rules as R
from controller.api.client import Client, RequestError
from controller.club.journal import journal_records
from controller.app.simulation import run_game, table_rules
from controller.store.database import Store
from sim.players import Players
from firmware_protocol.profile import DEFAULT_PROFILE, load_profile

from .process_harness import MJTABLE, RunProcess, start_sim, stderr_of, write_config
from .service_harness import wait_for

RULESET = "ema-2016"
SEED = 4                  # players and table; this game has a chombo (a re-deal) among its 14 hands
KILLS = 3
GAME_TIMEOUT = 40.0
RULE_FIELDS = ("ruleset", "hand", "honba", "riichi_sticks", "dealer", "result", "payments", "scores",
               "riichi_sticks_after")


class PlayerLoop:
    """The players at the table, over the control API: for each hand the same riichi
    declarations, kans and result as `controller.simulation.PlayerDriver` with this seed,
    made idempotent from `status` so that they can carry on after a controller restart."""

    def __init__(self, client: Client, seed: int) -> None:
        self.client = client
        self.players = Players(table_rules(R.load_ruleset(RULESET)), seed=seed)
        self.plans: dict[int, tuple[list[int], int, dict]] = {}

    def plan(self, seq: int) -> tuple[list[int], int, dict]:
        if seq not in self.plans:  # drawn once per hand, in hand order, as the in-process players do
            assert seq == len(self.plans) + 1, (seq, sorted(self.plans))
            riichi = self.players.riichi_declarations()
            kans = self.players.kans()
            self.plans[seq] = (riichi, kans, self.players.result(riichi))
        return self.plans[seq]

    def actions(self, status: dict):
        """The requests still to make for the hand in play, one at a time (a generator)."""
        seq = status["hand_in_play"]["seq"]
        riichi, kans, result = self.plan(seq)
        for seat in riichi:
            if seat not in status["hand_in_play"]["riichi"]:
                yield "riichi", {"seat": seat}
        for _ in range(kans - status["hand_in_play"]["kans"]):
            yield "kan", {}
        yield "result", {"hand": seq, "result": result}

    def submit(self, op: str, args: dict) -> None:
        try:
            self.client.request(op, **args)
        except RequestError as refused:
            if not (op == "result" and refused.code == "invalid_result" and args["result"].get("riichi")):
                raise
            # The rules refused a riichi (too few points): the players withdraw it, as in process.
            self.client.request(op, hand=args["hand"], result={**args["result"], "riichi": []})


def play_with_kills(controller: RunProcess, players: PlayerLoop, rng: random.Random, kill_at: set[int]) -> int:
    """Play the game to its end; after the n-th request (n in ``kill_at``) and a short random
    delay, SIGKILL the controller and start it again. Returns the number of kills."""
    deadline = time.monotonic() + GAME_TIMEOUT
    sent = kills = 0
    while time.monotonic() < deadline:
        status = players.client.request("status")
        if status["state"] == "game_over":
            return kills
        if status["state"] != "playing":
            time.sleep(0.01)
            continue
        for op, args in players.actions(status):
            players.submit(op, args)
            sent += 1
            if sent in kill_at:
                # At speed 2000 a hand's setup takes milliseconds: the kill lands while
                # settling, collecting, shuffling, raising, rolling or in play.
                time.sleep(rng.uniform(0, 0.03))
                controller.kill()
                kills += 1
                controller.start()
                break  # ask the restarted controller where the hand is
        else:
            wait_for(lambda: _moved_on(players.client.request("status"), status["hand_in_play"]["seq"]),
                     "the hand to be settled")
    pytest.fail(f"the game did not end within {GAME_TIMEOUT} s; last status {status}; "
                f"mjtable run's log:\n{stderr_of(controller.proc)[-3000:]}")


def _moved_on(status: dict, seq: int) -> bool:
    """Hand ``seq`` is settled: another hand is dealt, or the game is over."""
    return status["state"] == "game_over" or status["hand_in_play"]["seq"] != seq


def _playing(status: dict) -> int | None:
    """The seq of the hand waiting for its result, if one is."""
    return status["hand_in_play"]["seq"] if status["state"] == "playing" else None


def journal(database: Path) -> list[dict]:
    out = subprocess.run([MJTABLE, "journal", "--db", str(database), "--format", "jsonl"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def rule_fields(records: list[dict]) -> list[dict]:
    # Dice, breaker, dead wall and dora indicators are left out: a kill during a roll makes the
    # restarted controller roll again, so those may differ from the clean run and be right.
    return [{k: r[k] for k in RULE_FIELDS} if "final" not in r else r for r in records]


@pytest.fixture(scope="module")
def clean_journal(tmp_path_factory) -> list[dict]:
    """The same seeded players at the in-process table, in virtual time, without kills."""
    with Store(tmp_path_factory.mktemp("clean") / "state.db") as store:
        run_game(RULESET, seed=SEED, store=store)
        return journal_records(store)


def test_game_killed_at_random_points_ends_as_the_clean_run(procs, short_tmp, clean_journal):
    hands = len(clean_journal) - 1
    assert hands >= 4 and clean_journal[-1]["final"]
    rng = random.Random(SEED)
    # About the number of requests the players make (riichi, results): kill points within the game.
    requests = hands + sum(len(r["result"].get("riichi", [])) for r in clean_journal[:-1])
    kill_at = set(rng.sample(range(1, requests), KILLS))

    controller = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED)))
    controller.start()
    controller.client.request("start")
    assert play_with_kills(controller, PlayerLoop(controller.client, SEED), rng, kill_at) == KILLS

    assert rule_fields(journal(short_tmp / "state.db")) == rule_fields(clean_journal)


def test_a_game_whose_end_was_not_recorded_is_finished_at_restart(procs, short_tmp, clean_journal):
    # A kill between the last hand's commit and the game's end leaves an active game whose
    # state is finished: the restarted controller records the end (standings, final object).
    database = short_tmp / "state.db"
    with Store(database) as store:
        run_game(RULESET, seed=SEED, store=store)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE games SET status = 'active', final = NULL, ended_at = NULL")
    controller = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED)))
    controller.start()
    wait_for(lambda: "final_scores" in controller.client.request("status"), "the game's end")
    assert journal(database) == clean_journal
    controller.client.request("start")  # the table is free for the next game
    wait_for(lambda: _playing(controller.client.request("status")) == 1, "the next game's first hand")


def test_restart_after_the_table_stopped_for_our_absence_carries_on(procs, short_tmp):
    # A controller down for longer than the table's heartbeat timeout finds the table stopped
    # by its watchdog: it resumes it itself, and the next hand is dealt without an operator.
    controller = RunProcess(procs, write_config(short_tmp, start_sim(procs, SEED)))
    controller.start()
    controller.client.request("start")
    wait_for(lambda: _playing(controller.client.request("status")) == 1, "hand 1 in play")
    controller.kill()
    time.sleep(load_profile(DEFAULT_PROFILE).heartbeat_timeout_ms / 1000 + 1)
    controller.start()
    wait_for(lambda: _playing(controller.client.request("status")) == 1, "hand 1 in play again")
    controller.client.request("result", hand=1, result={"kind": "draw", "tenpai": [0]})
    wait_for(lambda: _playing(controller.client.request("status")) == 2, "hand 2 in play")
    assert controller.client.request("status")["fault"] is None


def test_damaged_database_is_refused_with_a_clear_message(procs, short_tmp):
    (short_tmp / "state.db").write_bytes(b"this is no database\n" * 300)
    run = procs.start("run", "--config", str(write_config(short_tmp, "/dev/null-table")), name="run")
    assert run.wait(10) == 2
    err = stderr_of(run)
    assert str(short_tmp / "state.db") in err and "damaged" in err and "Traceback" not in err
    assert not (short_tmp / "api.sock").exists()


def test_a_game_whose_rule_set_is_gone_is_refused_with_a_clear_message(procs, short_tmp):
    rules = R.load_ruleset("wrc")
    with Store(short_tmp / "state.db") as store:  # started from a rule-set file since removed
        store.new_game("gone.yaml", dataclasses.asdict(rules), R.new_game(rules).to_dict())
    run = procs.start("run", "--config", str(write_config(short_tmp, "/dev/null-table")), name="run")
    assert run.wait(10) == 2
    err = stderr_of(run)
    assert "game 1" in err and "'gone.yaml'" in err and "cannot be loaded" in err and "Traceback" not in err


def test_missing_config_is_refused_with_a_clear_message(procs, short_tmp):
    run = procs.start("run", "--config", str(short_tmp / "nowhere.yaml"), name="run")
    assert run.wait(10) == 2
    err = stderr_of(run)
    assert str(short_tmp / "nowhere.yaml") in err and "Traceback" not in err


def test_missing_port_is_retried_with_a_clear_message(procs, short_tmp):
    run = procs.start("run", "--config", str(write_config(short_tmp, "/dev/mjtable-missing")), name="run")
    # Two attempts logged and still running: it retries, with backoff, rather than dying.
    wait_for(lambda: stderr_of(run).count("cannot connect to the table") >= 2, "two connection attempts")
    err = stderr_of(run)
    assert "/dev/mjtable-missing" in err and "trying again in" in err and "Traceback" not in err
    assert run.poll() is None
    assert Client(short_tmp / "api.sock").request("status")["state"] == "connecting"  # the API answers meanwhile
    run.send_signal(signal.SIGTERM)
    assert run.wait(10) == 0
