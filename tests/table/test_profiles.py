"""Tables without optional devices: whole games in virtual time over a matrix of table
profiles, each optional device absent alone and all absent together. Every game ends with
the journal of the full table; the hardware trace holds no command the table cannot do,
and shows the fallbacks that apply (text on the centre display, when there is one)."""
from __future__ import annotations

import dataclasses

import pytest

from controller import rules as R
from controller.app.simulation import profile_for, run_game
from firmware_protocol.codes import Code
from sim.faults import FaultPlan
from firmware_protocol.profile import Profile, load_profile

from ..support.retry import operator

PRESETS = ["ema-2016", "mcr"]  # riichi with dora; 144 tiles, two throws, no dead wall
SEED = 3
# How a profile says each optional device is absent (everything `identify` reports).
ABSENT = {"wind_marker": "none", "seat_displays": False, "centre_display": False,
          "dead_wall_separator": False, "dora_flipper": False, "seat_buttons": False}
MATRIX = [(device,) for device in ABSENT] + [tuple(ABSENT)]
# The commands a table without the device refuses (display masks are checked apart).
NEEDS = {"wind_marker": {"set_wind_marker"}, "seat_displays": {"show_scores"}, "centre_display": {"show_round"},
         "dead_wall_separator": {"separate_dead_wall"}, "dora_flipper": {"flip_dora"}, "seat_buttons": set()}


@pytest.fixture(scope="module", params=PRESETS)
def full(request):
    rules = R.load_ruleset(request.param)
    return rules, run_game(rules, seed=SEED)


@pytest.fixture(scope="module", params=MATRIX, ids="+".join)
def lacking(request, full):
    rules, _ = full
    profile = dataclasses.replace(load_profile(profile_for(rules)), **{d: ABSENT[d] for d in request.param})
    return request.param, profile, run_game(rules, seed=SEED, profile=profile)


def _sent(run, *names):
    return [r for r in run.trace if r.dir == "cmd" and r.name in names]


def _centre_texts(run) -> list[str]:
    return [r.args["text"] for r in _sent(run, "show_text") if r.args["seats"] == 0]


def _setup(rules: R.RuleSet, hand: dict) -> R.HandSetup:
    n = rules.dice.per_throw
    return R.setup_hand(rules, hand["dealer"], [hand["dice"][i:i + n] for i in range(0, len(hand["dice"]), n)])


def _play_text(rules: R.RuleSet, profile: Profile, hand: dict) -> str | None:
    """What the centre says while the hand is played: where the walls need the players'
    hands first (dora, else break), else the round when no marker or seat display says it."""
    setup = _setup(rules, hand)
    if rules.has_dora and not profile.dora_flipper:
        seat, stack = setup.dora_indicators[0]
        return f"dora 1: seat {seat} stack {stack}"
    if not (profile.dead_wall_separator and setup.dead_wall):
        seat, stack = setup.break_after
        return f"break: seat {seat} after stack {stack}"
    if profile.wind_marker == "none" or not profile.seat_displays:
        return f"{hand['hand']} dealer {hand['dealer']} honba {hand['honba']} sticks {hand['riichi_sticks']}"
    return None


def _scores(scores) -> str:
    return "scores " + " ".join("-" if s is None else str(s) for s in scores)


def test_game_ends_with_the_journal_of_the_full_table(full, lacking):
    _, reference = full
    _, _, run = lacking
    assert run.controller.state.finished
    assert run.hands == reference.hands  # every field: dice, walls, dora, results, payments, scores
    assert run.standings == reference.standings


def test_no_command_the_table_cannot_do(lacking):
    devices, _, run = lacking
    assert [r.args for r in run.trace if r.name == "rejected"] == []
    for device in devices:
        assert _sent(run, *NEEDS[device]) == [], device
    if "seat_displays" in devices:
        assert [r for r in _sent(run, "show_text", "show_error") if r.args["seats"]] == []
    if "centre_display" in devices:
        assert _centre_texts(run) == []


def test_the_centre_says_during_play_what_the_table_cannot_show(full, lacking):
    rules, _ = full
    _, profile, run = lacking
    if not profile.centre_display:
        pytest.skip("no centre display: nothing to say it on")
    # Each hand is dealt when the dealer lamp is set; the centre's text comes right after.
    dealt = [i for i, r in enumerate(run.trace) if r.dir == "cmd" and r.name == "set_dealer_lamp"]
    for hand, at in zip(run.hands, dealt, strict=True):
        expected = _play_text(rules, profile, hand)
        if expected is None:
            continue
        after = [r.args["text"] for r in run.trace[at:] if r.dir == "cmd" and r.name == "show_text"]
        assert after[:1] == [expected], hand["hand"]


def test_the_centre_shows_the_scores_without_seat_displays(lacking):
    devices, profile, run = lacking
    if profile.seat_displays or not profile.centre_display:
        pytest.skip("the seat displays show the scores, or there is nowhere to show them")
    texts = _centre_texts(run)
    for hand in run.hands:
        assert _scores(hand["scores"]) in texts, hand["hand"]
    assert _scores(run.standings.final_scores) in texts


def test_walls_set_by_the_players_are_shown_as_text(full, lacking):
    rules, _ = full
    devices, profile, run = lacking
    if not profile.centre_display:
        pytest.skip("no centre display")
    texts = _centre_texts(run)
    for hand in run.hands:
        setup = _setup(rules, hand)
        if not (profile.dead_wall_separator and setup.dead_wall):
            assert "break: seat {} after stack {}".format(*setup.break_after) in texts
        if rules.has_dora and not profile.dora_flipper:
            assert "dora 1: seat {} stack {}".format(*setup.dora_indicators[0]) in texts


def test_a_fault_on_a_table_without_displays_waits_for_retry_and_the_game_ends(full):
    rules, reference = full
    profile = dataclasses.replace(load_profile(profile_for(rules)), seat_displays=False, centre_display=False)
    faults = []
    run = run_game(rules, seed=SEED, profile=profile, faults=FaultPlan(jam={2: "stacker"}),
                   on_controller=operator(on_fault=faults.append))
    assert {f["code"] for f in faults} == {Code.JAM}
    assert [r.args for r in run.trace if r.name == "rejected"] == []
    assert _sent(run, "show_error") == []  # the API and the log report it: there is no display
    assert [h["result"] for h in run.hands] == [h["result"] for h in reference.hands]
    assert run.standings == reference.standings
