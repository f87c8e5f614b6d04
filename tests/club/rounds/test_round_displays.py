"""The wrong-seat check on a table without seat displays: before the first dice its centre
display names the round and table, then the whole seating from East (a virtual-time game)."""
import dataclasses
import functools

from controller import rules as R
from controller.club.players import Player
from controller.club.schedule import RoundTable
from controller.app.simulation import profile_for, run_game
from firmware_protocol.profile import load_profile


def test_a_table_without_seat_displays_shows_the_round_and_the_expected_seating_on_its_centre():
    rules = R.load_ruleset("ema-2016")
    profile = dataclasses.replace(load_profile(profile_for(rules)), seat_displays=False)
    players = [Player(n) for n in ("Fay", "Cy", "Hal", "Ann")]

    def scheduled(controller, _table):
        controller.new_game = functools.partial(controller.new_game, players=players, seating="schedule",
                                                place=RoundTable(2, 7))
    run = run_game(rules, seed=3, profile=profile, on_controller=scheduled)
    commands = [r for r in run.trace if r.dir == "cmd"]
    first_dice = next(i for i, r in enumerate(commands) if r.name == "roll_dice")
    texts = [r.args["text"] for r in commands[:first_dice] if r.name == "show_text"]
    assert texts[:2] == ["round 2 table 7", "E Fay S Cy W Hal N Ann"]
    assert all(r.args["seats"] == 0 for r in commands if r.name == "show_text")
