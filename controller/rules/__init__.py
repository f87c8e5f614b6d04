"""The rules engine: rule sets from YAML, table geometry, settlement and game progression.

Pure code (the only I/O is reading a rule-set file); every figure comes from the RuleSet.
"""
from controller.rules.geometry import (HandSetup, SetupError, break_position, breaker_seat, clockwise,
                                       counter_clockwise, setup_hand, turn_order)
from controller.rules.payments import base_points, win_payments
from controller.rules.progression import (GameState, HandOutcome, apply_result, dealer_repeats, hand_label,
                                          new_game, seat_words, validate_result)
from controller.rules.result import Result, ResultError, Win, check_han_fu, check_riichi, parse_result
from controller.rules.ruleset import (PRESETS_DIR, WINDS, RuleSet, find_ruleset, folder_rulesets, load_ruleset,
                                      preset_names, resolve_ruleset, ruleset_from_text)
from controller.rules.settlement import Settlement, settle
from controller.rules.standings import Standings, final_standings
from mjtable_config.schema import ConfigError

__all__ = [
    "ConfigError", "GameState", "HandOutcome", "HandSetup", "PRESETS_DIR", "Result", "ResultError", "RuleSet",
    "SetupError", "Settlement", "Standings", "WINDS", "Win", "apply_result", "base_points", "break_position",
    "breaker_seat", "check_han_fu", "check_riichi", "clockwise", "counter_clockwise", "dealer_repeats",
    "final_standings", "find_ruleset", "folder_rulesets", "hand_label", "load_ruleset", "new_game", "parse_result", "preset_names",
    "resolve_ruleset", "seat_words", "ruleset_from_text", "settle", "setup_hand", "turn_order", "validate_result", "win_payments",
]
