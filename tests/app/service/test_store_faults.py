"""A state database that is slow, frozen or full, seen by the control API's clients: the
loop keeps answering and beating while a write waits for the disk; every `ok` for a
result, a resend too, comes only once the hand is stored; a refused write is a fault
that `retry` stores, and nothing of the hand counts before it is stored."""
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from controller.api.client import Client, RequestError
from controller.store.database import Store

from .service_harness import TIMEOUT, wait_for

RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}
DRAW = {"kind": "draw", "tenpai": [0], "riichi": []}  # the dealer (seat 0) repeats: the game goes on
HANDS_TO_FILL = 30  # a page holds a few hand records: the "disk" is full long before


def line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


@pytest.fixture
def in_play(service):
    service.request("start")
    service.wait_playing(1)
    return service


class StalledDisk:
    """The store's commit_hand held (as on a frozen disk) until ``release`` is set."""

    def __init__(self, service) -> None:
        self.entered, self.release, self.committed = threading.Event(), threading.Event(), threading.Event()
        real = service.store.commit_hand

        def commit_hand(*args, **kwargs):
            self.entered.set()
            self.release.wait(TIMEOUT)
            stored = real(*args, **kwargs)
            self.committed.set()
            return stored
        service.store.commit_hand = commit_hand


def arrivals(service, count: int) -> threading.Event:
    """Set once ``count`` result requests have reached the controller."""
    seen, arrived = [], threading.Event()
    real = service.controller.enter_result

    async def enter_result(seq, result):
        seen.append(seq)
        if len(seen) >= count:
            arrived.set()
        return await real(seq, result)
    service.controller.enter_result = enter_result
    return arrived


def test_status_and_heartbeats_go_on_while_a_write_waits_for_a_frozen_disk(in_play):
    disk = StalledDisk(in_play)
    quick = Client(in_play.socket, timeout=2.0)  # a blocked loop would not answer at all
    with ThreadPoolExecutor(1) as pool:
        reply = pool.submit(in_play.request, "result", hand=1, result=RON)
        assert disk.entered.wait(TIMEOUT)
        status = quick.request("status")
        assert status["state"] == "settling" and status["hand_in_play"]["seq"] == 1
        frames = status["link"]["frames_sent"]
        wait_for(lambda: quick.request("status")["link"]["frames_sent"] > frames, "heartbeats during the write")
        assert not reply.done()  # not ok before it is stored
        disk.release.set()
        assert reply.result(TIMEOUT) == {"duplicate": False}
    assert [h["result"] for h in in_play.stored()[0]["hands"]] == [RON]


def test_a_resend_is_answered_only_once_the_hand_is_stored_and_another_result_is_a_conflict(in_play):
    disk = StalledDisk(in_play)
    arrived = arrivals(in_play, 3)
    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(in_play.request, "result", hand=1, result=RON)
        assert disk.entered.wait(TIMEOUT)
        resend = pool.submit(lambda: (in_play.request("result", hand=1, result=RON), disk.committed.is_set()))
        other = pool.submit(lambda: (in_play.exchange(line({"op": "result", "hand": 1, "result": DRAW}))[0],
                                     disk.committed.is_set()))
        assert arrived.wait(TIMEOUT)  # all three are at the controller while the write waits
        disk.release.set()
        assert first.result(TIMEOUT) == {"duplicate": False}
        assert resend.result(TIMEOUT) == ({"duplicate": True}, True)  # answered after the commit
        refused, after_commit = other.result(TIMEOUT)
    assert after_commit
    assert refused["ok"] is False and refused["error"]["code"] == "conflict", refused
    assert refused["error"]["kept"] == RON and "hand 1" in refused["error"]["message"]
    assert [h["result"] for h in in_play.stored()[0]["hands"]] == [RON]


def _fill_the_disk(service) -> None:
    """The database may not grow by a page (SQLite's max_page_count): a real "disk full"."""
    def full():
        db = service.store._db
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    service.call(service.controller.db.flush)
    service.call(full)


def _free_space(service) -> None:
    service.call(lambda: service.store._db.execute("PRAGMA max_page_count = 1000000"))


def test_a_full_disk_refuses_the_result_as_a_fault_and_retry_stores_it(in_play):
    _fill_the_disk(in_play)
    for seq in range(1, HANDS_TO_FILL):
        before = in_play.wait_playing(seq)
        try:
            in_play.request("result", hand=seq, result=DRAW)
        except RequestError as exc:
            refused = exc
            break
    else:
        pytest.fail(f"{HANDS_TO_FILL} hands stored on a full disk")
    assert refused.code == "store_failed"
    assert "disk full" in refused.message and f"hand {seq} is not settled" in refused.message
    assert refused.message.endswith("free space on that disk, then retry, which stores it")

    status = in_play.status()
    assert status["state"] == "fault" and status["fault_code"] == 305
    assert "cannot write the state database" in status["fault"] and "disk full" in status["fault"]
    assert f"the result of hand {seq} is kept, not stored" in status["fault"] and "disk full" in status["store_error"]
    # Nothing of the hand counts: the same scores, the same hand, nothing more stored.
    for key in ("scores", "honba", "riichi_sticks", "hands_played", "hand"):
        assert status[key] == before[key], key
    assert status["hand_in_play"]["seq"] == seq
    assert len(in_play.stored()[0]["hands"]) == seq - 1
    with pytest.raises(RequestError) as again:  # a resend is not acknowledged either
        in_play.request("result", hand=seq, result=DRAW)
    assert again.value.code == "store_failed"

    _free_space(in_play)
    assert in_play.request("retry") == {}
    after = in_play.wait_playing(seq + 1)
    assert after["fault"] is None and after["store_error"] is None
    assert [h["result"] for h in in_play.stored()[0]["hands"]][-1] == DRAW
    assert len(in_play.stored()[0]["hands"]) == seq
    assert in_play.request("result", hand=seq, result=DRAW) == {"duplicate": True}


def _refused_on_a_full_disk(service) -> int:
    """Fill the disk and play draws until a result is refused; the hand it was for."""
    _fill_the_disk(service)
    for seq in range(1, HANDS_TO_FILL):
        service.wait_playing(seq)
        try:
            service.request("result", hand=seq, result=DRAW)
        except RequestError as exc:
            assert exc.code == "store_failed"
            return seq
    pytest.fail(f"{HANDS_TO_FILL} hands stored on a full disk")


def test_a_full_disk_is_shown_on_the_displays_as_every_fault_and_cleared_once_the_write_is_taken(in_play):
    seq = _refused_on_a_full_disk(in_play)
    wait_for(lambda: set(in_play.shown()["errors"]) == {305}, "E305 on every display")
    _free_space(in_play)
    assert in_play.request("retry") == {}
    in_play.wait_playing(seq + 1)
    wait_for(lambda: set(in_play.shown()["errors"]) == {0}, "the error taken off the displays")


def test_a_hand_found_stored_already_is_taken_from_the_store(in_play):
    # Another writer (what the lock keeps out) stored hand 1 first: the store is right, the
    # result sent is refused as a conflict with the stored one, and play goes on from it.
    (game,) = in_play.stored()
    with Store(in_play.database, create=False) as other:
        record = {"hand": "E1", "result": RON, "payments": [0, 5200, -5200, 0], "scores": [30000, 35200, 24800, 30000]}
        other.commit_hand(game["game"].id, 1, record, {**game["game"].state, "scores": record["scores"]})
    (refused,) = in_play.exchange(line({"op": "result", "hand": 1, "result": DRAW}))
    assert refused["ok"] is False and refused["error"]["code"] == "conflict" and refused["error"]["kept"] == RON
    status = in_play.wait_playing(2)
    assert status["scores"] == record["scores"]
    assert [h["result"] for h in in_play.stored()[0]["hands"]] == [RON]
