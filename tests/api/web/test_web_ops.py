"""Every op over HTTP is the socket's op: the same reply object for the same request, with
the HTTP status docs/API.md gives; a result resent over HTTP is applied once."""
import json
import subprocess

import pytest

from controller.api.server import OPS

from ...support.processes import MJTABLE
from .web_harness import SECRET

RON = {"kind": "ron", "discarder": 2, "winners": [{"seat": 1, "han": 3, "fu": 40}], "riichi": []}
BY_TILES = {**RON, "winners": [{"seat": 1, "tiles": {"tiles": "123m33m123456789s", "win": "9s", "dora": "1z"}}]}
NO_WIN = {**RON, "winners": [{"seat": 1, "tiles": {"tiles": "123m33m123456788s", "win": "8s", "dora": "1z"}}]}

# (op, args, HTTP status) sent with hand 1 in play: each changes nothing, or nothing twice
IN_PLAY = [
    ("status", {}, 200),
    ("journal", {}, 200),
    ("journal", {"game": 99}, 409),
    ("preview", {"hand": 1, "result": RON}, 200),
    ("preview", {"hand": 1, "result": {**RON, "winners": [{"seat": 1, "han": 1, "fu": 20}]}}, 400),
    ("preview", {"hand": 2, "result": RON}, 409),
    ("score_tiles", {"hand": 1, "result": BY_TILES}, 200),
    ("score_tiles", {"hand": 1, "result": NO_WIN}, 400),
    ("start", {}, 409),
    ("result", {"hand": 2, "result": RON}, 409),
    ("result", {"hand": 1, "result": {"kind": "win"}}, 400),
    ("riichi", {"seat": 4}, 400),
    ("kan", {"kans": 1}, 400),
    ("pause", {"now": True}, 400),
    ("resume", {}, 409),
    ("retry", {}, 409),
    ("abandon", {"force": True}, 400),
    ("counters", {}, 200),
    ("record_service", {}, 409),
    ("sensor_test", {}, 409),
    ("session_start", {"name": 5}, 400),
    ("session_end", {}, 409),
    ("session_show", {}, 409),
    ("signal", {"signal": "start"}, 409),
    ("schedule_import", {"players": "Ann", "tables": []}, 400),
    ("qr", {}, 200),
]


def test_every_op_but_subscribe_is_compared():
    assert {op for op, _, _ in IN_PLAY} == set(OPS) - {"subscribe"}


def _without_link(reply: dict) -> dict:
    return {k: v for k, v in reply.items() if k != "link"}  # the link's counters move by themselves


@pytest.mark.parametrize("op, args, status", IN_PLAY, ids=[f"{op}-{i}" for i, (op, _, _) in enumerate(IN_PLAY)])
def test_an_op_over_http_gives_the_socket_reply(in_play, op, args, status):
    http = in_play.http()
    got_status, over_http = http.op(op, headers={"Authorization": f"Bearer {SECRET}"}, **args)
    over_socket = _socket_reply(in_play, op, args)
    assert got_status == status, over_http
    assert _without_link(over_http) == _without_link(over_socket)


def _socket_reply(service, op: str, args: dict) -> dict:
    reply, = service.exchange(json.dumps({"op": op, **args}).encode() + b"\n")
    return reply


def test_get_status_is_the_status_reply(in_play):
    status, reply = in_play.http().request("GET", "/api/status")
    assert status == 200 and _without_link(reply) == _without_link(_socket_reply(in_play, "status", {}))


def test_a_result_resent_over_http_is_applied_once(in_play):
    player = in_play.player()
    assert player.op("result", hand=1, result=RON) == (200, {"ok": True, "duplicate": False})
    in_play.wait_playing(2)
    assert player.op("result", hand=1, result=RON) == (200, {"ok": True, "duplicate": True})
    other = {**RON, "winners": [{"seat": 3, "han": 3, "fu": 40}]}
    status, conflict = player.op("result", hand=1, result=other)
    assert status == 409 and conflict["error"]["code"] == "conflict" and conflict["error"]["kept"] == RON
    stored = in_play.stored()
    assert len(stored[0]["hands"]) == 1 and stored[0]["hands"][0]["payments"] == [0, 5200, -5200, 0]


def test_preview_gives_the_payments_the_result_then_applies(in_play):
    player = in_play.player()
    status, preview = player.op("preview", hand=1, result=RON)
    assert status == 200 and preview["payments"] == [0, 5200, -5200, 0]
    assert preview["scores"] == [30000, 35200, 24800, 30000] and preview["game_over"] is False
    assert in_play.stored()[0]["hands"] == []  # nothing applied
    player.op("result", hand=1, result=RON)
    in_play.wait_playing(2)
    assert in_play.stored()[0]["hands"][0]["scores"] == preview["scores"]


def test_an_impossible_result_gets_the_rule_engines_words(in_play):
    player = in_play.player()
    bad = {**RON, "winners": [{"seat": 1, "han": 1, "fu": 20}]}
    status, preview = player.op("preview", hand=1, result=bad)
    _, entered = player.op("result", hand=1, result=bad)
    assert status == 400 and preview["error"]["code"] == "invalid_result" and "20" in preview["error"]["message"]
    assert preview == entered


def test_the_journal_lists_the_games_and_their_hands(in_play):
    player = in_play.player()
    player.op("result", hand=1, result=RON)
    in_play.wait_playing(2)
    _, journal = in_play.http().op("journal")
    assert journal["game"]["id"] == 1 and journal["game"]["status"] == "active"
    assert [g["id"] for g in journal["games"]] == [1]
    assert [r["hand"] for r in journal["records"]] == ["E1"] and journal["records"][0]["result"] == RON


def test_journal_downloads_are_the_journal_commands_text(in_play):
    in_play.player().op("result", hand=1, result=RON)
    in_play.wait_playing(2)
    for fmt in ("csv", "jsonl"):
        status, text, headers = in_play.http().raw("GET", f"/api/journal.{fmt}?game=1")
        command = subprocess.run([MJTABLE, "journal", "--db", str(in_play.database), "--format", fmt, "--game", "1"],
                                 capture_output=True, text=True, check=True)
        assert status == 200 and text.decode() == command.stdout
        assert headers["Content-Disposition"] == f'attachment; filename="mjtable-game-1.{fmt}"'


def test_subscribe_is_the_websocket_over_http(web):
    status, reply = web.http().op("subscribe")
    assert status == 400 and "/api/events" in reply["error"]["message"]


def test_an_unknown_op_or_route_is_a_json_404(web):
    status, reply = web.http().op("shuffle")
    assert status == 404 and reply["error"]["code"] == "unknown_op"
    status, reply = web.http().request("GET", "/api/nothing")
    assert status == 404 and reply["ok"] is False
