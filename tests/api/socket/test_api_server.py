import asyncio
import json
import os
import socket
import stat
import threading

import pytest

from controller.api import server as api
from controller.api.server import MAX_MESSAGE, ApiServer, ServerStartError
from controller.errors import Refusal

from .api_harness import STATUS, FakeHandler, Served


def line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def assert_error(reply, code, *words):
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    for word in words:
        assert word in reply["error"]["message"]


def test_request_reaches_handler_and_id_is_echoed(served):
    reply, = served.exchange(line({"op": "riichi", "seat": 2, "id": "a1"}))
    assert reply == {"ok": True, "echo": {"seat": 2}, "id": "a1"}
    assert served.handler.calls == [("riichi", {"seat": 2})]


def test_malformed_json_is_refused_and_connection_stays_usable(served):
    bad, good = served.exchange(b'{"op": "status",\n', line({"op": "status"}))
    assert_error(bad, "bad_json", "not valid JSON")
    assert good == {"ok": True, **STATUS}
    assert served.handler.calls == [("status", {})]


@pytest.mark.parametrize("payload", [[1, 2], "status", 3, None])
def test_non_object_json_is_refused(served, payload):
    reply, = served.exchange(line(payload))
    assert_error(reply, "bad_request", "JSON object")
    assert served.handler.calls == []


def test_unknown_or_missing_op(served):
    unknown, missing = served.exchange(line({"op": "shuffle", "id": 4}), line({"seat": 1}))
    assert_error(unknown, "unknown_op", "'shuffle'", "status", "result")
    assert unknown["id"] == 4
    assert_error(missing, "bad_request", '"op"')
    assert served.handler.calls == []


@pytest.mark.parametrize("request_, words", [
    ({"op": "riichi"}, ["missing argument 'seat'"]),
    ({"op": "riichi", "seat": 4}, ["'seat' must be a seat number 0-3", "got 4"]),
    ({"op": "riichi", "seat": "1"}, ["'seat' must be a seat number", 'got "1"']),
    ({"op": "riichi", "seat": True}, ["'seat' must be a seat number"]),
    ({"op": "kan", "seat": 1}, ["unknown argument 'seat'", "allowed: none"]),
    ({"op": "start", "dealer": "east"}, ['"draw"']),
    ({"op": "start", "rules": "wrc"}, ["unknown argument 'rules'", "allowed: ruleset, dealer"]),
    ({"op": "result", "result": {"kind": "ron"}}, ["missing argument 'hand'"]),
    ({"op": "result", "hand": "3", "result": {"kind": "draw"}}, ["'hand' must be the seq"]),
    ({"op": "result", "hand": 3, "result": {"kind": "win"}}, ['"kind" one of ron, tsumo, draw, chombo']),
    ({"op": "result", "hand": 3, "result": [1]}, ["'result' must be a result object"]),
    ({"op": "status", "id": [1]}, ['"id" must be a string or an integer']),
])
def test_bad_arguments_are_refused_before_the_handler(served, request_, words):
    reply, = served.exchange(line(request_))
    assert_error(reply, "bad_request", *words)
    assert served.handler.calls == []


def test_refusal_by_the_handler_is_passed_on(served):
    served.handler.refuse = Refusal("wrong_hand", "hand 3 is not in play (hand 7 is)")
    reply, = served.exchange(line({"op": "result", "hand": 3, "result": {"kind": "draw"}, "id": 9}))
    assert reply == {"ok": False, "id": 9, "error": {"code": "wrong_hand", "message": "hand 3 is not in play (hand 7 is)"}}


def test_handler_bug_is_an_internal_error_and_server_carries_on(served, monkeypatch):
    monkeypatch.setitem(api.OPS, "crash", {})
    crash, after = served.exchange(line({"op": "crash"}), line({"op": "status"}))
    assert_error(crash, "internal", "see its log")
    assert after["ok"] is True


def test_oversized_message_is_refused_and_connection_closed(served):
    filler = 'x' * (MAX_MESSAGE - len('{"op":"kan","pad":""}'))
    at_limit, = served.exchange(('{"op":"kan","pad":"%s"}' % filler).encode() + b"\n")
    assert_error(at_limit, "bad_request", "unknown argument 'pad'")  # read and parsed: not too large
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(('{"op":"kan","pad":"x%s"}\n' % filler).encode() + line({"op": "kan"}))
        assert_error(json.loads(reader.readline()), "too_large", str(MAX_MESSAGE))
        assert reader.readline() == b""  # closed: the request after it is not run
    assert served.handler.calls == []


def test_last_line_without_newline_is_answered(served):
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(b'{"op": "pause"}')
        sock.shutdown(socket.SHUT_WR)
        assert json.loads(reader.readline())["ok"] is True
    assert served.handler.calls == [("pause", {})]


def test_concurrent_clients_each_get_their_own_replies(served):
    served.handler.delay = 0.002  # requests overlap inside the handler
    failures = []

    def client(n):
        replies = served.exchange(*(line({"op": "riichi", "seat": i % 4, "id": f"{n}-{i}"}) for i in range(20)))
        if [r["id"] for r in replies] != [f"{n}-{i}" for i in range(20)] or \
                [r["echo"]["seat"] for r in replies] != [i % 4 for i in range(20)]:
            failures.append(replies)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(served.handler.calls) == 200


def test_subscription_streams_events_until_disconnect(served):
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(line({"op": "subscribe", "id": 1}))
        assert json.loads(reader.readline()) == {"ok": True, "subscribed": True, "status": STATUS, "id": 1}
        served.publish("hand_started", hand="E3", seq=7)
        served.publish("fault", code=21, message="jam at lift 2")
        assert json.loads(reader.readline()) == {"event": "hand_started", "hand": "E3", "seq": 7}
        assert json.loads(reader.readline()) == {"event": "fault", "code": 21, "message": "jam at lift 2"}
        sock.sendall(line({"op": "kan"}))  # requests still work on a subscribed connection
        assert json.loads(reader.readline())["ok"] is True
    assert served.wait_until(lambda: served.handler.listeners == [])  # unsubscribed when the client left


def test_a_subscriber_that_stops_reading_is_dropped(served, monkeypatch):
    monkeypatch.setattr(api, "SUBSCRIBER_BACKLOG", 5)
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(line({"op": "subscribe"}))
        assert json.loads(reader.readline())["subscribed"] is True
        served.call(lambda: [served.handler.publish("scores", n=n) for n in range(20)])  # faster than it is sent
        assert served.handler.listeners == []  # dropped at once: the controller is never slowed
        events = [json.loads(raw) for raw in reader]
    assert [e.get("n") for e in events[:5]] == [0, 1, 2, 3, 4]
    assert [e["event"] for e in events[5:]] == ["lagged"]  # then the connection closed


def test_an_event_that_is_not_json_is_skipped(served):
    with served.connect() as sock, sock.makefile("rb") as reader:
        sock.sendall(line({"op": "subscribe"}))
        reader.readline()
        served.publish("odd", value=object())
        served.publish("scores", n=1)
        assert json.loads(reader.readline()) == {"event": "scores", "n": 1}


def test_socket_is_group_accessible_only(served):
    assert stat.S_IMODE(os.stat(served.path).st_mode) == 0o660
    assert served.path.parent.is_dir()  # created


def test_stale_socket_file_is_replaced(short_tmp):
    path = short_tmp / "mjtable.sock"
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(path))
    dead.close()  # a killed controller leaves its socket file behind
    s = Served(path, FakeHandler())
    s.start()
    try:
        assert s.exchange(line({"op": "status"}))[0]["ok"] is True
    finally:
        s.stop()
    assert not path.exists()  # removed on close


def test_live_controller_is_not_displaced(served):
    second = ApiServer(served.path, FakeHandler())
    with pytest.raises(ServerStartError, match="another controller is already running"):
        served.call(second.start)
    assert served.exchange(line({"op": "status"}))[0]["ok"] is True


def test_regular_file_at_socket_path_is_left_alone(short_tmp):
    path = short_tmp / "mjtable.sock"
    path.write_text("notes")
    server = ApiServer(path, FakeHandler())
    with pytest.raises(ServerStartError, match="exists and is not a socket"):
        asyncio.run(server.start())
    assert path.read_text() == "notes"
