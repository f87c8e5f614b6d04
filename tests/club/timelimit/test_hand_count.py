"""The hands after a session's warning signal (controller/club/time_limit.py), against the EMA
text: the current hand is finished, then one more is played; a hand begins with its dice;
a chombo is a re-deal and no hand. Each case written out, then every session of up to ten
hands with the signal anywhere, against an oracle that counts the text's way."""
from hypothesis import given
from hypothesis import strategies as st

from controller.club.time_limit import HandCount


def play(events: list[str], n: int = 1) -> HandCount:
    """Events: "dice", "end", "chombo" (a hand ended in chombo), "signal"."""
    count = HandCount(n)
    for event in events:
        count = {"dice": count.dice_thrown, "signal": count.signal, "end": lambda: count.hand_ended(False),
                 "chombo": lambda: count.hand_ended(True)}[event]()
    return count


def test_before_the_signal_nothing_is_counted():
    count = play(["dice", "end", "dice", "chombo", "dice"])
    assert not count.signalled and count.hands_left is None and not count.over and not count.last_hand


def test_a_signal_after_the_dice_leaves_that_hand_and_one_more():
    count = play(["dice", "end", "dice", "signal"])
    assert count.hands_left == 2 and not count.last_hand
    assert play(["dice", "end", "dice", "signal", "end"]).last_hand
    assert play(["dice", "end", "dice", "signal", "end", "dice", "end"]).over


def test_a_signal_before_the_dice_leaves_only_the_hand_about_to_begin():
    count = play(["dice", "end", "signal"])
    assert count.hands_left == 1 and count.last_hand
    assert play(["dice", "end", "signal", "dice", "end"]).over
    assert play(["signal"]).hands_left == 1  # before the session's first dice


def test_a_chombo_is_a_re_deal_not_a_hand():
    assert play(["dice", "signal", "chombo"]).hands_left == 2
    assert play(["dice", "signal", "chombo", "dice", "end", "dice", "chombo", "dice", "end"]).over
    assert not play(["dice", "signal", "end", "dice", "chombo"]).over


def test_more_hands_after_the_signal_where_the_rule_set_says():
    assert play(["dice", "signal"], n=2).hands_left == 3
    assert play(["signal"], n=3).hands_left == 3


def test_a_second_signal_changes_nothing():
    once = play(["dice", "signal", "end"])
    assert once.signal() == once


def test_the_count_rebuilt_from_the_record_is_the_count_played():
    live = play(["dice", "end", "dice", "signal", "chombo", "dice", "end", "dice"])
    assert HandCount.after_signal(1, dice_thrown=True, ended=[True, False], in_hand=True) == live
    between = play(["dice", "end", "signal"])
    assert HandCount.after_signal(1, dice_thrown=False, ended=[], in_hand=False) == between


# ---------------------------------------------------------------- every session
# A session: hands, each a chombo or not; the signal before or after the dice of one of them.
sessions = st.tuples(st.lists(st.booleans(), min_size=1, max_size=10), st.integers(0, 9), st.booleans(),
                     st.integers(1, 3))


def oracle(chombos: list[bool], at: int, after_dice: bool, n: int) -> int | None:
    """The number of the hand after which the game ends (1-based), counted the text's way:
    the signal's hand counts if its dice were thrown, then n hands, chombos not counted."""
    to_play = n + int(after_dice)
    for number in range(at + 1, len(chombos) + 1):
        if not chombos[number - 1]:
            to_play -= 1
        if to_play == 0:
            return number
    return None  # the session's hands run out first


@given(sessions)
def test_the_game_ends_after_the_hand_the_text_says(session):
    chombos, at, after_dice, n = session
    at = min(at, len(chombos) - 1)  # the signal falls in hand at + 1
    count, ends_after = HandCount(n), None
    for number, chombo in enumerate(chombos, 1):
        if number == at + 1 and not after_dice:
            count = count.signal()
        count = count.dice_thrown()
        if number == at + 1 and after_dice:
            count = count.signal()
        assert not count.over  # a hand in play is never past the limit
        count = count.hand_ended(chombo)
        if count.over:
            ends_after = number
            break
    assert ends_after == oracle(chombos, at, after_dice, n)
    played = chombos[at:ends_after or len(chombos)]
    assert HandCount.after_signal(n, after_dice, played, in_hand=False) == count


def test_the_time_left_just_after_a_signal_is_the_whole_warning_period():
    from controller.game.clock import time_left_text
    at = 1369.9736  # a signal's time whose float sum with 900 s does not come back exactly
    assert (at + 900) - at > 900
    assert time_left_text((at + 900) - at) == "15:00"
    assert time_left_text(899.2) == "15:00" and time_left_text(0.0) == "0:00"
