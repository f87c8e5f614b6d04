"""The hall's pure parts, in process: seatings generated, the repeat-meetings report,
Swiss, the players' names on the tables, EMA units and shared positions."""
from __future__ import annotations

from controller.club.schedule import TableSeating
from controller.hall.entry import HallPlayer
from controller.hall.orders import answer_lines, display_names, schedule_request, too_large
from controller.hall.seating import meetings, repeat_report, shuffled, swiss
from controller.hall.standings import ema_points, standings
from controller.hall.store import Result


def test_sixteen_players_meet_at_most_once_in_five_rounds():
    rounds = shuffled(list(range(1, 17)), 5, seed=3)
    assert max(meetings(rounds).values()) == 1
    assert sorted(n for table in rounds[0] for n in table) == list(range(1, 17))
    assert repeat_report(rounds) == ["no pair meets twice"]


def test_the_report_names_who_meets_whom_again():
    assert repeat_report([[[1, 2, 3, 4]], [[1, 2, 5, 6]]]) == ["1 pairs meet more than once", "1: 2 twice", "2: 1 twice"]


def test_swiss_seats_by_the_standings_and_avoids_a_pair_meeting_again():
    assert [sorted(t) for t in swiss(list(range(1, 9)), [])] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert [sorted(t) for t in swiss(list(range(1, 9)), [[[1, 2, 7, 8]]])] == [[1, 3, 4, 5], [2, 6, 7, 8]]


def test_display_names_fit_the_seat_displays_and_stay_apart():
    players = {1: HallPlayer(1, "Ann", "Archer", None, "FRA", False),
               2: HallPlayer(2, "Maximiliane", "Oberhausen-Wald", None, "DEU", False),
               3: HallPlayer(3, "Maximiliane", "Oberhausen-Weg", None, "DEU", False)}
    assert display_names(players) == {1: "Ann Archer", 2: "Maximiliane O.", 3: "Maximiliane O. 3"}


def test_table_points_in_ema_units():
    assert [ema_points(p) for p in (20200, -7000, 0, 200, 20250, -43000)] == \
        ["20.2", "-7.0", "0.0", "0.2", "20.25", "-43.0"]


def test_players_equal_in_table_points_and_score_share_their_position():
    players = {n: HallPlayer(n, f"P{n}", "X", None, "FRA", False) for n in range(1, 5)}
    winds = [{"score": s, "table_points": t, "rank": r} for s, t, r in
             ((30000, 0, 2), (30000, 0, 2), (40000, 25000, 1), (20000, -25000, 4))]
    result = Result("k", "demo-1", 1, 1, {"winds": winds}, 0.0)
    lines = standings(players, [result], [TableSeating(1, 1, (1, 2, 3, 4))], [])
    assert [(l.position, l.player.number) for l in lines] == [(1, 3), (2, 1), (2, 2), (4, 4)]


def test_a_table_of_another_number_or_with_a_warning_is_told():
    replies = {1: {"ok": True, "table": 1, "warnings": []},
               2: {"ok": True, "table": 9, "warnings": ["the schedule never seats table 9 (it seats tables 1-2): "
                                                        "check table.number in the table config"]},
               3: {"ok": False, "error": {"code": "store_failed", "message": "disk full"}}}
    assert answer_lines({1: "t1", 2: "t2", 3: "t3"}, replies, "the seating is taken", 10) == [
        "table 1 (t1): the seating is taken",
        "table 2 (t2): the seating is taken; warning: the schedule never seats table 9 (it seats tables 1-2): check "
        "table.number in the table config; warning: it is table 9 by its config (table.number), not 2: it would "
        "seat the players of another table",
        "table 3 (t3): refused: disk full"]


def test_an_order_too_large_for_a_table_is_not_sent():
    players = {n: HallPlayer(n, f"First{n}", f"Last{n}", f"{n:08d}", "FRA", True) for n in range(1, 1201)}
    request = schedule_request(players, [TableSeating(1, t, tuple(range(4 * t - 3, 4 * t + 1))) for t in range(1, 301)])
    assert too_large(request).endswith("more than a table takes in one command (64 KB); nothing was sent")
    assert too_large({"op": "start", "round": 1}) is None


def test_a_result_the_store_cannot_keep_is_not_confirmed_and_is_taken_when_sent_again(tmp_path, caplog):
    import asyncio
    import json

    from controller.api.floor.board import Board
    from controller.hall.entry import parse_tournament
    from controller.hall.service import Hall
    from controller.hall.store import HallStore, HallStoreError

    from .doc import doc_block

    store = HallStore(tmp_path / "hall.db")
    store.enter(parse_tournament(doc_block("number,first_name"), "players.csv", doc_block("key,value"), "header.csv",
                                 doc_block("number,table_id"), "tables.csv", doc_block("1-2-3-4"), "seating.txt"))
    published = []

    class Client:
        async def publish(self, topic, payload, qos):
            published.append(topic)

    add = store.add_result
    store.add_result = lambda *args: (_ for _ in ()).throw(HallStoreError("hall.db: disk I/O error"))
    hall = Hall(store, Board())
    winds = [{"seat": s, "score": 30000, "table_points": 0, "rank": 1} for s in range(4)]
    payload = json.dumps({"key": "k1", "table_id": "demo-1", "winds": winds}).encode()
    topic = "mjtable/demo-1/results/k1"
    asyncio.run(hall.receive(Client(), topic, payload))
    assert published == [] and store.results() == []
    assert "result k1 from demo-1 not stored: hall.db: disk I/O error" in caplog.text
    store.add_result = add
    asyncio.run(hall.receive(Client(), topic, payload))  # the table's next republication
    assert published == [topic + "/ack"] and len(store.results()) == 1
    store.close()


def test_a_database_of_the_first_schema_keeps_its_corrections_as_corrections(tmp_path):
    import sqlite3

    from controller.hall.store import HallStore

    old = sqlite3.connect(tmp_path / "hall.db")
    old.executescript("""
        CREATE TABLE players (number INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
            ema_id TEXT, country TEXT NOT NULL, ema_member INTEGER NOT NULL, substitute INTEGER NOT NULL);
        CREATE TABLE corrections (id INTEGER PRIMARY KEY, player INTEGER NOT NULL REFERENCES players(number),
            round INTEGER, points INTEGER NOT NULL, who TEXT NOT NULL, why TEXT NOT NULL, at REAL NOT NULL);
        INSERT INTO players VALUES (7, 'Gus', 'Gruber', NULL, 'AUT', 0, 0);
        INSERT INTO corrections VALUES (1, 7, 2, -2000, 'A. Referee', 'late back', 1.0);
        PRAGMA user_version = 1;""")
    old.close()
    store = HallStore(tmp_path / "hall.db")
    try:
        assert [(c.points, c.kind) for c in store.corrections()] == [(-2000, "correction")]
        store.correct(7, -8000, "A. Referee", "obstruction", kind="points")
        lines = standings(store.players(), [], [], store.corrections())
        assert (lines[0].corrections, lines[0].penalties, lines[0].table_points) == (-2000, -8000, -10000)
    finally:
        store.close()


def test_the_store_takes_its_threads_writes_one_at_a_time(tmp_path):
    """The running hall writes from several threads on its one connection: the broker's
    results, the director's changes and the page's correction (asyncio.to_thread each)."""
    from concurrent.futures import ThreadPoolExecutor

    from controller.hall.entry import parse_tournament
    from controller.hall.store import HallStore

    from .doc import doc_block

    store = HallStore(tmp_path / "hall.db")
    store.enter(parse_tournament(doc_block("number,first_name"), "players.csv", doc_block("key,value"), "header.csv",
                                 doc_block("number,table_id"), "tables.csv", doc_block("1-2-3-4"), "seating.txt"))
    winds = [{"seat": s, "score": 30000, "table_points": 0, "rank": 1} for s in range(4)]

    def results(n: int) -> None:
        for i in range(200):
            store.add_result(f"k{n}-{i}", "demo-1", 1, 1, {"winds": winds})

    def corrections(n: int) -> None:
        for i in range(200):
            store.correct(1, -1000, "A. Referee", f"{n}-{i}")

    try:
        with ThreadPoolExecutor(4) as pool:
            for done in [pool.submit(results, 1), pool.submit(corrections, 2), pool.submit(results, 3),
                         pool.submit(corrections, 4)]:
                done.result()
        assert len(store.results()) == 400 and len(store.corrections()) == 400
    finally:
        store.close()
