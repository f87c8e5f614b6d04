"""Hand values are bounded: every preset caps what one hand is worth, and no result may take
a score beyond what the seat displays carry (32-bit signed), so a mistyped 3,000,000,000 is
refused, naming the bound, instead of stopping the game at the display."""
import dataclasses

import pytest

from controller import rules as R
from controller.rules.progression import SCORE_LIMIT
from controller.rules.ruleset import PointScoring
from controller.rules.settlement import settle

LONGEST_GAME = 1000  # hands: far beyond any real game (dealer repeats included)


def _richest_wins(rules: R.RuleSet) -> list[dict]:
    """The most valuable results the rule set accepts: a self-draw and a discard win."""
    p = rules.payment
    dealer, other = rules.seats[0], rules.seats[1]
    if isinstance(p, PointScoring):
        win = {"points": p.max_points}
    else:
        win = {"yakuman": p.max_yakuman}
    return [{"kind": "tsumo", "winners": [{"seat": dealer, **win}]},
            {"kind": "ron", "discarder": other, "winners": [{"seat": dealer, **win}]}]


@pytest.mark.parametrize("preset", R.preset_names())
def test_every_preset_bounds_a_hands_value(preset):
    rules = R.load_ruleset(preset)
    if isinstance(rules.payment, PointScoring):
        assert rules.payment.max_points is not None, f"{preset}: hand values have no upper bound"
    state = R.new_game(rules, dealer=rules.seats[0])
    most = max(max(map(abs, settle(rules, state.dealer, 0, 0, R.parse_result(rules, state.scores, r)).changes))
               for r in _richest_wins(rules))
    assert abs(rules.starting_points) + LONGEST_GAME * most < SCORE_LIMIT


def test_three_billion_mcr_points_are_refused_naming_the_bound():
    rules = R.load_ruleset("mcr")
    state = R.new_game(rules)
    with pytest.raises(R.ResultError, match=f"3000000000 points; allowed: 8 to {rules.payment.max_points}"):
        R.validate_result(rules, state, {"kind": "tsumo", "winners": [{"seat": 1, "points": 3_000_000_000}]})


def test_a_rule_set_without_a_bound_still_keeps_scores_within_the_display():
    mcr = R.load_ruleset("mcr")
    rules = dataclasses.replace(mcr, payment=dataclasses.replace(mcr.payment, max_points=None))
    state = R.new_game(rules)
    huge = {"kind": "ron", "discarder": 0, "winners": [{"seat": 1, "points": 3_000_000_000}]}
    with pytest.raises(R.ResultError, match=f"±{SCORE_LIMIT:,}"):
        R.validate_result(rules, state, huge)
    fine = {"kind": "ron", "discarder": 0, "winners": [{"seat": 1, "points": 100_000}]}
    assert R.apply_result(rules, state, fine).state.scores[1] == 100_008 + 8 + 8
