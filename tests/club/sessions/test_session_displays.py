"""The totals on the table: after each game of a session started with show_totals, each
seated player's running total on his seat's display (or all of them on the centre display
of a table without), and the final standings by name; whole games in virtual time."""
import dataclasses
import functools

from controller import rules as R
from controller.club.players import Player
from controller.app.simulation import profile_for, run_game
from controller.store.database import Store
from firmware_protocol.profile import load_profile

RULES = R.load_ruleset("ema-2016")
NIGHT = ([Player("Ann", ema_id="04010001"), Player("Bo"), Player("Cy", club_id="17"), Player("Di")],
         [Player("Di"), Player("Cy", club_id="17"), Player("Ann", ema_id="04010001"), Player("Bo")])


def play_night(store: Store, profile=None, games: int = 2) -> list:
    """Two games (or the first alone), the players in other seats in the second; each game's trace."""
    traces = []
    for seed, players in enumerate(NIGHT[:games], start=5):
        def named(controller, _table, players=players):
            controller.new_game = functools.partial(controller.new_game, players=players)
        traces.append(run_game(RULES, seed=seed, store=store, profile=profile, on_controller=named).trace)
    return traces


def texts_after_the_end(trace) -> list[tuple[int, str]]:
    """(seat mask, text) of every show_text from the final standings' line on."""
    shown = [(r.args["seats"], r.args["text"]) for r in trace if r.dir == "cmd" and r.name == "show_text"]
    last = max(i for i, (_, text) in enumerate(shown) if text.startswith("final "))
    return shown[last:]


def by_hand(store: Store) -> dict[str, int]:
    """Each name's table points summed over the stored games' finals."""
    totals: dict[str, int] = {}
    for game in store.games():
        for seat, player in store.players(game.id).items():
            totals[player["name"]] = totals.get(player["name"], 0) + game.final["final_scores"][seat]
    return totals


def test_after_each_game_the_seat_displays_show_the_running_totals(short_tmp):
    with Store(short_tmp / "state.db") as store:
        store.start_session("Friday", show_totals=True)
        first, second = play_night(store)
        games = store.games()
        expected = by_hand(store)
    # game 1: the totals are the game's own table points
    ann_first = games[0].final["final_scores"][0]
    assert (1, f"Ann total {ann_first:+d}") in texts_after_the_end(first)
    # game 2: Di at seat 0, Cy 1, Ann 2, Bo 3, each with both games added up
    ranks = games[1].final["ranks"]
    places = " ".join(f"{rank} {p.name}" for rank, p in sorted(zip(ranks, NIGHT[1]), key=lambda x: x[0]))
    assert texts_after_the_end(second) == [(0, f"final {places}")] + [
        (1 << seat, f"{p.name} total {expected[p.name]:+d}") for seat, p in enumerate(NIGHT[1])]


def test_a_table_without_seat_displays_shows_them_on_its_centre(short_tmp):
    profile = dataclasses.replace(load_profile(profile_for(RULES)), seat_displays=False)
    with Store(short_tmp / "state.db") as store:
        store.start_session(show_totals=True)
        _, second = play_night(store, profile)
        expected = by_hand(store)
    best_first = sorted(expected, key=lambda name: -expected[name])
    line = "totals " + " ".join(f"{name} {expected[name]:+d}" for name in best_first)
    assert texts_after_the_end(second)[-1] == (0, line.encode()[:40].decode())


def test_without_show_totals_the_end_of_a_game_is_as_before(short_tmp):
    with Store(short_tmp / "state.db") as store:
        store.start_session("quiet")
        first, = play_night(store, games=1)
    assert [seats for seats, _ in texts_after_the_end(first)] == [0]  # the final standings' line alone
