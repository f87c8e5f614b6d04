"""The live view names each seat's player when the game has named players."""
from .test_view import SNAPSHOT, read_table, text_of

NAMED = {**SNAPSHOT, "seating": "draw",
         "seat_players": [{"seat": 0, "name": "Di"}, {"seat": 1, "name": "Bo"},
                          {"seat": 2, "name": "Ann", "ema_id": "04010001"}, {"seat": 3, "name": "Cy"}]}


def test_each_seat_shows_its_player():
    text = text_of(NAMED)
    for expected in ("seat 2 South  Ann  30000", "seat 0 North  Di  31000"):  # across the walls
        assert expected in text
    lines = text.splitlines()
    for seat, name in ((1, "Bo"), (3, "Cy")):  # beside a side wall: the name under the seat's head
        head = next(i for i, line in enumerate(lines) if f"seat {seat} " in line)
        assert name in lines[head + 1]


def test_the_walls_are_drawn_as_without_names():
    assert read_table(NAMED) == read_table(SNAPSHOT)


def test_an_anonymous_game_shows_no_names():
    assert "Ann" not in text_of(SNAPSHOT)
