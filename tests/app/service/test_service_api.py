"""The control API of a running service (simulated table, controller, SQLite store, Unix
socket): bad input of every kind is refused with a clear error and changes nothing, in
the controller's status or in the store; a result sent twice counts once; the operator
ops do what docs/API.md says."""
import json
import os
import socket
import stat
from contextlib import contextmanager

import pytest

from controller.api.client import RequestError
from sim.faults import FaultPlan

from .service_harness import TIMEOUT, wait_for

LIMIT = 65_536  # bytes of a message without its newline (docs/API.md)
RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}


def line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def assert_error(reply: dict, code: str, *words: str) -> None:
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    for word in words:
        assert word in reply["error"]["message"], reply


@contextmanager
def unchanged(service):
    """Everything a client or the journal can see is the same after the block."""
    status, stored = service.status(), service.stored()
    yield
    assert service.status() == status
    assert service.stored() == stored


@pytest.fixture
def in_play(service):
    service.request("start")
    service.wait_playing(1)
    return service


def _ron(**changes):
    return {**RON, **changes}


REFUSED_IN_PLAY = [  # (request for hand 1 in play, error code, words of the message)
    (b'{"op": "riichi", "seat": 1\n', "bad_json", ["not valid JSON"]),
    (b"\xff\xfe\n", "bad_json", ["not valid JSON"]),
    (line([{"op": "status"}]), "bad_request", ["JSON object", "list"]),
    (line("abandon"), "bad_request", ["JSON object"]),
    (line({"seat": 1}), "bad_request", ['"op"']),
    (line({"op": "shuffle"}), "unknown_op", ["'shuffle'", "known:"]),
    (line({"op": "riichi", "seat": 1, "sear": 2}), "bad_request", ["unknown argument 'sear'"]),
    (line({"op": "abandon", "force": True}), "bad_request", ["unknown argument 'force'", "allowed: none"]),
    (line({"op": "riichi", "seat": 4}), "bad_request", ["'seat' must be a seat number 0-3", "got 4"]),
    (line({"op": "riichi", "seat": "1"}), "bad_request", ["'seat' must be a seat number"]),
    (line({"op": "start", "dealer": 1}), "not_allowed", ["abandon it first"]),
    (line({"op": "start", "ruleset": "wrc"}), "not_allowed", ["abandon it first"]),
    (line({"op": "resume"}), "not_allowed", ["not paused"]),
    (line({"op": "retry"}), "not_allowed", ["no fault"]),
    (line({"op": "result", "hand": 1}), "bad_request", ["missing argument 'result'"]),
    (line({"op": "result", "hand": 1, "result": {"kind": "win"}}), "bad_request", ['"kind" one of']),
    (line({"op": "result", "hand": 2, "result": RON}), "wrong_hand", ["hand 2", "hand in play is 1"]),
    (line({"op": "result", "hand": 0, "result": RON}), "wrong_hand", ["hand 0"]),
    (line({"op": "result", "hand": 1, "result": _ron(winners=[{"seat": 5, "han": 3, "fu": 40}])}),
     "invalid_result", ["5", "not a seat"]),
    (line({"op": "result", "hand": 1, "result": _ron(discarder=4)}), "invalid_result", ["4", "not a seat"]),
    (line({"op": "result", "hand": 1, "result": {"kind": "draw", "tenpai": [0, 9]}}), "invalid_result", ["9"]),
    (line({"op": "result", "hand": 1, "result": _ron(riichi=[6])}), "invalid_result", ["6"]),
    (line({"op": "result", "hand": 1, "result": _ron(winners=[{"seat": 1, "han": 1, "fu": 20}])}),
     "invalid_result", ["20"]),
    (line({"op": "result", "hand": 1, "result": _ron(winners=[{"seat": 2, "han": 3, "fu": 40}])}),
     "invalid_result", ["discarder"]),
    (line({"op": "result", "hand": 1, "result": {"kind": "ron", "winners": []}}), "invalid_result", ["discarder"]),
    (line({"op": "result", "hand": 1, "result": {"kind": "chombo"}}), "invalid_result", ["offender"]),
]


@pytest.mark.parametrize("request_, code, words", REFUSED_IN_PLAY,
                         ids=[f"{i}-{c}" for i, (_, c, _w) in enumerate(REFUSED_IN_PLAY)])
def test_bad_input_while_a_hand_is_in_play_is_refused_and_changes_nothing(in_play, request_, code, words):
    with unchanged(in_play):
        reply, still_served = in_play.exchange(request_, line({"op": "status", "id": 1}))
    assert_error(reply, code, *words)
    assert still_served["ok"] and still_served["id"] == 1  # the connection stays usable


def _status_of_size(size: int) -> bytes:
    """A status request exactly ``size`` bytes long without its newline (padded in its id)."""
    empty = len(json.dumps({"op": "status", "id": ""}))
    return line({"op": "status", "id": "x" * (size - empty)})


def test_a_message_of_the_documented_limit_is_answered(in_play):
    reply, = in_play.exchange(_status_of_size(LIMIT))
    assert reply["ok"] and reply["state"] == "playing"


def test_oversized_message_is_refused_and_the_connection_closed(in_play):
    with unchanged(in_play), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(str(in_play.socket))
        sock.sendall(line({"op": "riichi", "seat": 1, "note": "x" * LIMIT}))
        with sock.makefile("rb") as reader:
            assert_error(json.loads(reader.readline()), "too_large", str(LIMIT))
            assert reader.readline() == b""  # closed by the controller
    over, = in_play.exchange(_status_of_size(LIMIT + 1))  # one byte over is too much
    assert_error(over, "too_large")
    assert in_play.request("riichi", seat=1) == {}  # and it serves the next client


def test_riichi_twice_is_refused_the_first_is_kept(in_play):
    assert in_play.request("riichi", seat=1) == {}
    assert in_play.status()["hand_in_play"]["riichi"] == [1]
    assert in_play.stored()[0]["game"].hand["riichi"] == [1]  # a restart would keep it
    with unchanged(in_play), pytest.raises(RequestError) as refused:
        in_play.request("riichi", seat=1)
    assert refused.value.code == "not_allowed" and "already declared" in refused.value.message


def test_result_without_a_game_is_refused(service):
    wait_for(lambda: service.status()["state"] == "idle", "the controller to be idle")
    with unchanged(service), pytest.raises(RequestError) as refused:
        service.request("result", hand=1, result=RON)
    assert refused.value.code == "not_allowed"
    assert service.stored() == []


def test_a_result_is_applied_once(in_play):
    assert in_play.request("result", hand=1, result=RON) == {"duplicate": False}
    in_play.wait_playing(2)
    with unchanged(in_play):
        assert in_play.request("result", hand=1, result=RON) == {"duplicate": True}
        # Another result for the settled hand is no copy of it: refused, with the one kept.
        (refused,) = in_play.exchange(line({"op": "result", "hand": 1, "result": {"kind": "draw", "tenpai": []}}))
        assert_error(refused, "conflict", "hand 1", "nothing changed")
        assert refused["error"]["kept"] == RON
    hands = in_play.stored()[0]["hands"]
    assert [h["result"] for h in hands] == [RON]
    assert hands[0]["payments"] == [0, 5200, -5200, 0]  # 3 han 40 fu, non-dealer ron


def test_a_result_sent_twice_at_once_is_applied_once(in_play):
    # A double click: the second copy arrives before the first is settled.
    first, second = in_play.exchange(*[line({"op": "result", "hand": 1, "result": RON})] * 2)
    assert first == {"ok": True, "duplicate": False}
    assert second == {"ok": True, "duplicate": True}
    in_play.wait_playing(2)
    assert [h["result"] for h in in_play.stored()[0]["hands"]] == [RON]


def test_a_chombo_is_applied_once_and_the_hand_dealt_again(in_play):
    chombo = {"kind": "chombo", "offender": 3}
    in_play.request("riichi", seat=1)
    assert in_play.request("result", hand=1, result=chombo) == {"duplicate": False}
    redeal = in_play.wait_playing(2)["hand_in_play"]
    assert redeal["label"] == "E1" and redeal["riichi"] == []  # the same hand, new walls, no riichi yet
    with unchanged(in_play):
        assert in_play.request("result", hand=1, result=chombo) == {"duplicate": True}
    in_play.request("result", hand=2, result=RON)
    in_play.wait_playing(3)
    (game,) = in_play.stored()
    assert [(h["hand"], h["result"]) for h in game["hands"]] == [("E1", chombo), ("E1", RON)]
    assert game["game"].state["scores"] == game["hands"][-1]["scores"]  # what a restart resumes from


def test_pause_holds_the_hand_and_resume_carries_on(in_play):
    assert in_play.request("pause") == {}
    assert in_play.status()["state"] == "paused"
    with unchanged(in_play):
        for op, args, words in [("riichi", {"seat": 0}, "during play"), ("pause", {}, "while paused"),
                                ("kan", {}, "during play"), ("retry", {}, "resume carries on")]:
            with pytest.raises(RequestError) as refused:
                in_play.request(op, **args)
            assert refused.value.code == "not_allowed" and words in refused.value.message, op
    assert in_play.request("resume") == {}
    assert in_play.status()["state"] == "playing"
    assert in_play.request("result", hand=1, result=RON) == {"duplicate": False}
    in_play.wait_playing(2)


def test_a_result_while_paused_is_settled_and_the_next_hand_waits_for_resume(in_play):
    in_play.request("pause")
    assert in_play.status()["waiting_for"] == "result"  # what status says, the result op does
    assert in_play.request("result", hand=1, result=RON) == {"duplicate": False}  # answered once stored
    status = in_play.status()
    assert (status["state"], status["waiting_for"]) == ("paused", "resume")
    assert status["scores"] == [30000, 35200, 24800, 30000] and status["last_result"]["result"] == RON
    assert [h["result"] for h in in_play.stored()[0]["hands"]] == [RON]
    assert in_play.shown()["scores"] == [status["scores"]] * 4
    assert in_play.request("result", hand=1, result=RON) == {"duplicate": True}
    assert in_play.call(lambda: in_play.table.firmware.stopped)  # no motion before resume
    assert in_play.request("resume") == {}
    assert in_play.wait_playing(2)["scores"] == [30000, 35200, 24800, 30000]


def test_riichi_takes_the_bet_off_the_score_at_once_and_settles_it_once(in_play):
    assert in_play.request("riichi", seat=1) == {}
    status = in_play.status()
    assert (status["scores"], status["riichi_sticks"]) == ([30000, 29000, 30000, 30000], 1)
    assert in_play.shown() == {"scores": [[30000, 29000, 30000, 30000]] * 4, "sticks": 1, "errors": [0] * 5}
    in_play.request("result", hand=1, result={"kind": "draw", "tenpai": [1]})  # riichi: the declarations
    status = in_play.wait_playing(2)
    (hand,) = in_play.stored()[0]["hands"]
    # Noten payments 3,000: seat 1 gets 3,000 and pays its 1,000 bet once; the stick stays.
    assert hand["payments"] == [-1000, 2000, -1000, -1000] and hand["riichi_sticks_after"] == 1
    assert (status["scores"], status["riichi_sticks"]) == (hand["scores"], 1) == ([29000, 32000, 29000, 29000], 1)
    assert in_play.shown()["scores"] == [hand["scores"]] * 4 and in_play.shown()["sticks"] == 1


def test_a_riichi_button_shows_the_bet_as_the_riichi_op_does(in_play):
    in_play.call(lambda: in_play.table.press_button(2, "riichi"))
    shown = {"scores": [[30000, 30000, 29000, 30000]] * 4, "sticks": 1, "errors": [0] * 5}
    wait_for(lambda: in_play.shown() == shown, "the bet on the displays")
    status = in_play.status()
    assert (status["hand_in_play"]["riichi"], status["scores"], status["riichi_sticks"]) == \
        ([2], [30000, 30000, 29000, 30000], 1)


def test_a_restart_continues_a_game_with_the_rule_set_it_was_started_with(service_factory):
    first = service_factory()
    first.request("start", ruleset="wrc")
    first.wait_playing(1)
    first.request("riichi", seat=2)
    first.stop()
    again = service_factory(after=first)  # its config names ema-2016
    status = again.wait_playing(1)
    assert status["ruleset"] == "wrc" and status["hand_in_play"]["riichi"] == [2]
    assert again.request("result", hand=1, result=RON) == {"duplicate": False}
    again.wait_playing(2)
    assert again.stored()[0]["hands"][0]["ruleset"] == "wrc"
    again.request("abandon")
    assert again.request("start")["ruleset"] == "ema-2016"  # the config's rule set for the next game


def test_abandon_ends_the_game_and_a_new_one_starts(in_play):
    in_play.request("result", hand=1, result=RON)
    in_play.wait_playing(2)
    assert in_play.request("abandon") == {}
    status = in_play.status()
    assert status["state"] == "idle" and "hand_in_play" not in status
    (game,) = in_play.stored()
    assert game["game"].status == "abandoned" and [h["result"] for h in game["hands"]] == [RON]
    with unchanged(in_play), pytest.raises(RequestError) as refused:
        in_play.request("abandon")
    assert refused.value.code == "not_allowed"

    assert in_play.request("start", dealer=2)["state"] != "idle"
    status = in_play.wait_playing(1)
    assert status["dealer"] == 2 and status["hands_played"] == 0 and status["scores"] == [30000] * 4
    old, new = in_play.stored()
    assert (old["game"].status, new["game"].status, new["hands"]) == ("abandoned", "active", [])


def test_retry_after_a_fault_carries_on(service_factory):
    service = service_factory(FaultPlan(missing_tile={1}))  # collecting hand 1's tiles loses one
    service.request("start")
    service.wait_playing(1)
    service.request("result", hand=1, result=RON)
    faulted = wait_for(lambda: (s := service.status())["state"] == "fault" and s, "the tile-count fault")
    assert "E201" in faulted["fault"] and "counted 135" in faulted["fault"]
    with unchanged(service), pytest.raises(RequestError) as refused:
        service.request("result", hand=2, result=RON)
    assert refused.value.code == "not_allowed"
    assert service.request("retry") == {}
    assert service.wait_playing(2)["fault"] is None


def test_socket_is_for_owner_and_group_only(service):
    assert stat.S_ISSOCK(os.stat(service.socket).st_mode)
    assert stat.S_IMODE(os.stat(service.socket).st_mode) == 0o660
