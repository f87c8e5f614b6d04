"""The live view: the walls drawn from above, the seat displays, status lines.

Walls are read back from the recorded text: seat 2's wall is the top row, seat 0's the
bottom row, seat 3's the left column and seat 1's the right column of the square.
"""
from __future__ import annotations

import io
import itertools
import logging
import re

import pytest
from rich.console import Console

from controller.rules import load_ruleset, setup_hand
from controller.commands.plain_view import PlainView, plain_line
from controller.commands.view import LiveView, make_view, render

SNAPSHOT = {
    "state": "playing", "ruleset": "ema-2016", "players": 4,
    "hand": "E2", "hands_played": 5, "honba": 1, "riichi_sticks": 2, "round_wind": 0, "finished": False,
    "dealer": 1, "starting_dealer": 0,
    "scores": [31000, 27000, 30000, 32000],
    "display_mode": "difference",
    "wind_marker": {"wind": 0, "seat": 0},
    "hand_in_play": {"seq": 6, "label": "E2", "dice": [3, 4], "riichi": [2], "kans": 0},
    "walls": {"stacks_per_side": [17, 17, 17, 17], "breaker": 2, "break_after": [2, 7],
              "dead_wall": [[2, 7], [2, 6], [2, 5], [2, 4], [2, 3], [2, 2], [2, 1]],
              "dora_indicators": [[2, 5]], "live_start": [2, 8]},
    "fault": None,
    "waiting_for": None,
    "link": {"srtt": 0.004, "retransmits": 0, "crc_errors": 0, "resyncs": 0, "duplicates": 0, "frames_sent": 120},
    "progress": {"hands_played": 5, "elapsed": 63.2},
    "last_result": {"hand": "E1", "result": {"kind": "ron"}, "payments": [0, 3900, 0, -3900]},
}
HORIZONTAL_WALL = re.compile(r"[#=D](?:[ |][#=D])+")


def text_of(snapshot) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(render(snapshot))
    return console.export_text()


def read_table(snapshot) -> dict:
    """The four walls as drawn (seat -> its cells in screen order, blanks dropped) and the corners."""
    lines = text_of(snapshot).splitlines()
    rows = [(i, m) for i, line in enumerate(lines) for m in [HORIZONTAL_WALL.search(line)] if m]
    (top, top_match), (bottom, bottom_match) = rows[0], rows[-1]
    left = min(top_match.start(), bottom_match.start()) - 2
    right = max(top_match.end(), bottom_match.end()) + 1
    column = lambda c: "".join(lines[r][c] for r in range(top + 1, bottom)).strip()  # noqa: E731
    return {
        2: top_match.group(), 0: bottom_match.group(), 3: column(left), 1: column(right),
        "corners": {"top-left": lines[top][left], "top-right": lines[top][right],
                    "bottom-left": lines[bottom][left], "bottom-right": lines[bottom][right]},
    }


def walls_from_setup(rules, dealer, dice) -> dict:
    """The walls part of a snapshot as the controller derives it from the rules' geometry."""
    setup = setup_hand(rules, dealer, dice)
    return {"stacks_per_side": list(rules.stacks_per_side), "breaker": setup.breaker,
            "break_after": list(setup.break_after), "dead_wall": [list(p) for p in setup.dead_wall],
            "dora_indicators": [list(p) for p in setup.dora_indicators[:1]]}


# -- walls -------------------------------------------------------------------------------------


def test_break_on_the_top_wall_reads_from_its_owners_right():
    table = read_table(SNAPSHOT)
    # Seat 2 faces seat 0: its stack 1 (its right) is at the screen's left.
    assert table[2] == "= = = = D = =|# # # # # # # # # #"
    assert table[0] == " ".join("#" * 17)
    assert table[1] == table[3] == "#" * 17


def test_seat_0_wall_reads_17_to_1_along_the_bottom():
    # Dealer 0 throws 5: seat 0 breaks after its stack 5; the dead wall runs 5..1 and
    # round the corner to seat 1's stacks 17 and 16 (the bottom of the right column).
    table = read_table({"walls": walls_from_setup(load_ruleset("ema-2016"), 0, [[2, 3]])})
    assert table[0] == "# # # # # # # # # # # #|= = D = ="
    assert table[1] == "#" * 15 + "=="
    assert table[2] == " ".join("#" * 17)
    assert table[3] == "#" * 17


@pytest.mark.parametrize("dice, seat, wall", [
    ([3, 3], 1, "===D==-###########"),   # seat 1's wall reads 1..17 downwards
    ([4, 4], 3, "#########-==D====#"),   # seat 3's wall reads 17..1 downwards
])
def test_break_on_a_side_wall(dice, seat, wall):
    table = read_table({"walls": walls_from_setup(load_ruleset("ema-2016"), 0, [dice])})
    assert table[seat] == wall


def test_dead_wall_round_the_corner_into_the_top_wall():
    table = read_table({"walls": walls_from_setup(load_ruleset("ema-2016"), 0, [[3, 3]])})
    assert table[2] == " ".join("#" * 16 + "=")  # seat 2's stack 17, at the top right


@pytest.mark.parametrize("seat, corner", [(0, "bottom-left"), (1, "bottom-right"), (2, "top-right"), (3, "top-left")])
def test_break_at_a_corner(seat, corner):
    # The break after a wall's last stack is before stack 1 of the owner's left neighbour.
    table = read_table({"walls": {"stacks_per_side": [17] * 4, "break_after": [seat, 17]}})
    assert table["corners"] == {c: "+" if c == corner else " " for c in table["corners"]}
    assert "|" not in table[0] + table[2] and "-" not in table[1] + table[3]


@pytest.mark.parametrize("ruleset, sizes", [("ema-2016", [17] * 4), ("sanma", [13, 14, 13, 14]), ("mcr", [18] * 4)])
def test_stacks_per_side(ruleset, sizes):
    rules = load_ruleset(ruleset)
    table = read_table({"walls": walls_from_setup(rules, rules.seats[0], [[1, 1]] * rules.dice.throws)})
    drawn = [len(re.sub("[^#=D]", "", table[seat])) for seat in range(4)]
    assert drawn == sizes


@pytest.mark.parametrize("dealer, dice", list(itertools.product(range(4), itertools.product(range(1, 7), repeat=2))))
def test_every_ema_setup_shows_seven_dead_stacks_one_dora_one_break(dealer, dice):
    table = read_table({"walls": walls_from_setup(load_ruleset("ema-2016"), dealer, [list(dice)])})
    cells = "".join(table[s] for s in range(4)) + "".join(table["corners"].values())
    assert (cells.count("="), cells.count("D"), len(re.findall("[-|+]", cells))) == (6, 1, 1)


def test_live_start_defaults_to_the_stack_after_the_break():
    walls = dict(SNAPSHOT["walls"])
    del walls["live_start"]
    assert read_table({"walls": walls}) == read_table({"walls": SNAPSHOT["walls"]})


# -- seats and status ------------------------------------------------------------------------


def test_seat_displays_in_difference_mode():
    text = text_of(SNAPSHOT)
    for expected in ("seat 1 East", "seat 2 South  30000", "seat 3 West", "seat 0 North  31000",
                     "diff 1:+4000  2:+1000  3:-1000",                  # seat 0, inside the bottom wall
                     "to 0: +1000", "to 1: +5000", "to 2: +2000",       # seat 3, beside the left wall
                     "DEALER", "RIICHI", "[E marker]",
                     "East round hand E2", "honba 1  sticks 2", "dice 3+4"):
        assert expected in text
    assert text.count("DEALER") == text.count("RIICHI") == 1


def test_rank_mode_and_negative_scores():
    text = text_of({**SNAPSHOT, "display_mode": "rank", "scores": [31000, -1200, 31000, 32000]})
    assert "-1200" in text
    assert "rank 4" in text and text.count("rank 2") == 2 and "rank 1" in text
    assert "to 1:" not in text and "diff" not in text


# The controller keeps a score slot for sanma's empty side; it is nobody's.
SANMA = {**SNAPSHOT, "ruleset": "sanma", "players": 3, "seats": [0, 1, 2], "dealer": 2,
         "scores": [36000, 33000, 36000, 0], "hand_in_play": {**SNAPSHOT["hand_in_play"], "riichi": [1]}}


def test_sanma_shows_three_players_with_sanma_winds():
    text = text_of(SANMA)
    assert "seat 2 East" in text and "seat 0 South" in text and "seat 1 West" in text
    assert "North" not in text
    assert "mjtable · sanma · 3 players" in text


def test_sanma_empty_side_is_no_player():
    text = text_of(SANMA)
    assert "empty side" in text
    assert not re.search(r"seat 3 \w", text)          # no wind, score or lamps for it
    assert "to 3" not in text and "3:" not in text      # no difference to it
    assert "diff 1:+3000  2:0" in text                  # seat 0 inside the bottom wall: the players only
    assert "to 2: -3000" in text and "to 0: -3000" in text  # seat 1 beside the right wall


def test_sanma_ranks_among_players():
    text = text_of({**SANMA, "display_mode": "rank"})
    assert text.count("rank 1") == 2 and "rank 3" in text and "rank 4" not in text


def test_sanma_scores_and_payments_leave_the_empty_side_out():
    assert "| 36000 33000 36000 - |" in plain_line(SANMA)
    text = text_of({**SANMA, "last_result": {"hand": "E1", "result": {"kind": "tsumo"}, "payments": [-1000, 3000, -2000, 0]}})
    assert "last hand E1: tsumo · payments -1000 +3000 -2000 -" in text


def test_snapshot_without_seats_takes_the_first_seats():
    text = text_of({k: v for k, v in SANMA.items() if k != "seats"})
    assert "empty side" in text and "seat 2 East" in text and "North" not in text


def test_four_players_each_with_a_wind_and_differences_to_the_other_three():
    text = text_of(SNAPSHOT)
    assert sorted(re.findall(r"seat (\d) (East|South|West|North)", text)) == [
        ("0", "North"), ("1", "East"), ("2", "South"), ("3", "West")]
    assert "empty side" not in text
    assert "to 0: +1000" in text and "to 1: +5000" in text and "to 2: +2000" in text


def snapshots_of_a_game(ruleset: str) -> list[dict]:
    from controller.app.simulation import run_game

    taken = []
    run_game(ruleset, seed=3, on_controller=lambda controller, _: controller.subscribe(
        lambda e: taken.append(controller.snapshot()) if e["event"] in ("hand_started", "hand_ended") else None))
    return taken


@pytest.mark.parametrize("ruleset, winds", [("sanma", ["East", "South", "West"]),
                                            ("ema-2016", ["East", "South", "West", "North"])])
def test_views_of_a_whole_game_on_the_controller(ruleset, winds):
    for snapshot in snapshots_of_a_game(ruleset):
        text = text_of(snapshot)
        shown = sorted(re.findall(r"seat \d (East|South|West|North)", text), key=winds.index)
        assert shown == winds, text
        assert ("empty side" in text) == (len(winds) == 3)


def test_fault_waiting_link_progress_last_hand():
    text = text_of({**SNAPSHOT, "fault": "E200 jam at shuffler_exit", "waiting_for": "shuffle"})
    for expected in ("FAULT E200 jam at shuffler_exit", "waiting for shuffle", "rtt 4 ms · sent 120 · retx 0",
                     "hands played 5", "elapsed 1:03", "last hand E1: ron · payments 0 +3900 0 -3900",
                     "# live   = dead wall", "D dora   |-+ break",
                     "mjtable · ema-2016 · 4 players", "state playing"):
        assert expected in text


@pytest.mark.parametrize("missing", list(SNAPSHOT))
def test_any_key_may_be_missing(missing):
    snapshot = {k: v for k, v in SNAPSHOT.items() if k != missing}
    assert text_of(snapshot) and plain_line(snapshot)


@pytest.mark.parametrize("snapshot", [
    {}, {"state": "idle"}, {"walls": {}}, {"walls": {"stacks_per_side": [17] * 4}}, {"link": {"frames_sent": 3}},
    {"scores": [25000] * 4}, {"hand_in_play": {}}, {"wind_marker": {}},
    {"scores": [25000] * 4, "wind_marker": {"seat": 0}}, {"last_result": {"hand": "E1"}},
])
def test_early_snapshots(snapshot):
    assert "state" in text_of(snapshot)


def test_fits_a_24_row_80_column_terminal():
    lines = text_of(SNAPSHOT).splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80


def test_walls_down_before_the_dice():
    assert "walls down" in text_of({"state": "idle"})
    assert read_table({"walls": {"stacks_per_side": [17] * 4}})[0] == " ".join("#" * 17)


# -- plain lines and views ----------------------------------------------------------------------


def test_plain_line():
    assert plain_line(SNAPSHOT) == "[E2 honba 1 sticks 2] playing | 31000 27000 30000 32000 | dice 3+4 | link rtt 4 ms"
    line = plain_line({**SNAPSHOT, "riichi_sticks": 0, "scores": [35000, -200, 40000, None], "finished": True,
                       "fault": "E200 jam at shuffler_exit", "waiting_for": "shuffle", "link": {"srtt": 0.0004}})
    assert line == ("[E2 honba 1] playing | 35000 -200 40000 - | dice 3+4 | waiting for shuffle"
                    " | FAULT E200 jam at shuffler_exit | link rtt 0.4 ms | game over")
    assert plain_line({}) == ""
    assert plain_line({"state": "idle"}) == "idle"


def test_plain_view_prints_only_changes():
    out = io.StringIO()
    view = make_view(out)
    assert isinstance(view, PlainView)
    with view:
        view.update(SNAPSHOT)
        view.update({**SNAPSHOT, "progress": {"hands_played": 5, "elapsed": 64.0}})
        view.update({**SNAPSHOT, "state": "settling"})
    assert out.getvalue().splitlines() == [plain_line(SNAPSHOT), plain_line({**SNAPSHOT, "state": "settling"})]


def test_live_view_draws_on_a_terminal():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system=None, width=100, height=30)
    view = LiveView(console)
    view.update(SNAPSHOT)
    view.update({**SNAPSHOT, "state": "settling"})
    view.close()
    assert "settling" in out.getvalue() and "= = = = D = =|" in out.getvalue()


class TerminalStream(io.StringIO):
    """Stands for the terminal's stderr, where the log goes."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal_log():
    terminal = TerminalStream()
    handler = logging.StreamHandler(terminal)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    yield terminal
    root.removeHandler(handler)


def test_log_lines_while_live_print_above_the_redrawn_frame(terminal_log):
    out = io.StringIO()
    view = LiveView(Console(file=out, force_terminal=True, color_system=None, width=100, height=30))
    view.update(SNAPSHOT)
    logging.getLogger("mjtable.test").warning("link lost [E marker]")
    view.close()
    assert terminal_log.getvalue() == ""  # nothing written past the view onto the screen
    screen = out.getvalue()
    line = screen.index("WARNING mjtable.test: link lost [E marker]")
    assert "= = = = D = =|" in screen[:line] and "= = = = D = =|" in screen[line:]


def test_log_goes_back_to_the_terminal_after_the_view(terminal_log):
    before = logging.getLogger().handlers[:]
    view = LiveView(Console(file=io.StringIO(), force_terminal=True, width=100, height=30))
    assert logging.getLogger().handlers != before
    view.close()
    assert logging.getLogger().handlers == before
    logging.getLogger("mjtable.test").warning("after the view")
    assert terminal_log.getvalue() == "WARNING mjtable.test: after the view\n"


def test_make_view_picks_live_on_a_terminal(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats any stream as a terminal
    view = make_view(io.StringIO())
    assert isinstance(view, LiveView)
    view.close()
