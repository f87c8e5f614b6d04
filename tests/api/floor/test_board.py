"""The floor's board: what each table's tile shows, from the messages of its topics."""
import json

from controller.api.floor.board import Board


def status(**fields) -> bytes:
    return json.dumps({"state": "playing", "hand": "E1", "scores": [25000] * 4, "fault": None, **fields}).encode()


def fault(code: int, message: str, since: float | None = None) -> dict:
    return {"code": code, "message": message, "since": since}


def test_a_table_appears_with_its_status_and_availability():
    board = Board()
    assert board.receive("mjtable/t1/status", status(hand="E3", hands_played=2), now=10.0) == "t1"
    assert board.receive("mjtable/t1/availability", b"online", now=10.0) == "t1"
    tile = board.tile("t1")
    assert (tile["hand"], tile["hands_played"], tile["online"], tile["fault_since"]) == ("E3", 2, True, None)


def test_a_fault_is_dated_by_the_table_else_from_when_it_was_first_seen_and_cleared_by_a_status_without_it():
    board = Board()
    board.receive("mjtable/t1/status", status(fault=fault(200, "E200 jam at stacker", since=90.0)), now=100.0)
    assert board.tile("t1")["fault_since"] == 90.0
    board.receive("mjtable/t1/status", status(fault=fault(203, "E203 lift stuck")), now=140.0)
    board.receive("mjtable/t1/status", status(fault=fault(203, "E203 lift stuck"), waiting_for="retry"), now=150.0)
    tile = board.tile("t1")
    assert (tile["fault_code"], tile["fault"], tile["fault_since"]) == (203, "E203 lift stuck", 140.0)
    board.receive("mjtable/t1/status", status(), now=160.0)
    assert board.tile("t1")["fault_since"] is None and board.tile("t1")["fault_code"] is None


def test_the_last_will_shows_offline_and_a_hands_end_is_kept_for_the_tile():
    board = Board()
    board.receive("mjtable/t2/status", status(), now=1.0)
    record = {"hand": "E1", "honba": 1, "result": {"kind": "tsumo"}, "payments": [3900, -1300, -1300, -1300]}
    assert board.receive("mjtable/t2/events", json.dumps({"event": "hand_ended", "record": record}).encode(), 2.0) == "t2"
    assert board.receive("mjtable/t2/events", json.dumps({"event": "riichi", "seat": 1}).encode(), 2.0) is None
    board.receive("mjtable/t2/availability", b"offline", now=3.0)
    tile = board.tile("t2")
    assert tile["online"] is False
    assert tile["last_hand"] == {"hand": "E1", "honba": 1, "kind": "tsumo", "payments": [3900, -1300, -1300, -1300]}


def test_an_empty_retained_status_takes_the_table_off_the_floor():
    board = Board()
    board.receive("mjtable/t3/status", status(), now=1.0)
    assert board.receive("mjtable/t3/status", b"", now=2.0) == "t3"
    assert board.tile("t3") is None and board.tiles_as_dicts() == []


def test_other_topics_and_garbage_change_nothing():
    board = Board("parlour/mjtable")
    assert board.subscriptions() == ["parlour/mjtable/+/status", "parlour/mjtable/+/events",
                                     "parlour/mjtable/+/availability"]
    for topic, payload in [("mjtable/t1/status", status()), ("parlour/mjtable/t1/command", b"{}"),
                           ("parlour/mjtable/t1/status/extra", status()), ("parlour/mjtable/t1/status", b"{not json"),
                           ("parlour/mjtable/t1/status", b"[1, 2]")]:
        board.receive(topic, payload, now=1.0)
    assert board.tiles_as_dicts() == []
    assert board.receive("parlour/mjtable/t1/status", status(), now=1.0) == "t1"
    assert board.tile("t1")["state"] == "playing"
