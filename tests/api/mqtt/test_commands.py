"""Commands over MQTT (`commands: true`): the control API's answers, and the broker's ACL
(docs/INSTALL.md) as the authority on who may send them."""
import json
import signal
import socket

from ...support.processes import stderr_of
from .harness import MqttTable
from .listener import Listener

TREE = "mjtable/table-1"


def socket_reply(path, request: dict) -> dict:
    """The Unix socket API's reply to the same request line."""
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(str(path))
        conn.sendall(json.dumps(request).encode() + b"\n")
        return json.loads(conn.makefile().readline())


def test_commands_get_the_socket_apis_answers_and_the_acl_keeps_other_tables_out(procs, broker):
    table = MqttTable(procs, broker, commands=True)
    reply_topic = f"{TREE}/command/reply"
    with Listener(broker.port, "operator", reply_topic) as operator, \
            Listener(broker.port, "table-2", f"{TREE}/command", "mjtable/table-2/command") as other_table:
        with Listener(broker.port, "floor", f"{TREE}/status") as floor:
            floor.wait(f"{TREE}/status")  # subscribed to its command topic before its first status
        assert "Received SUBSCRIBE from mjtable-table-1" in broker.log()

        other_table.publish(f"{TREE}/command", {"op": "start", "id": "from-table-2"})  # dropped by the ACL
        other_table.publish(f"{TREE}/status", {"state": "forged"}, retain=True)         # so is this
        bad = {"op": "riichi", "seat": 9, "id": "bad-seat"}
        for request in (bad, {"op": "subscribe", "id": "sub"}, "not json", {"op": "status", "id": "last"}):
            operator.publish(f"{TREE}/command", request)
        last = operator.wait(reply_topic, lambda m: m.json().get("id") == "last").json()

        replies = [m.json() for m in operator.on(reply_topic)]
        # In order, one each; none for table-2's command, which the broker refused to pass on.
        assert [r.get("id") for r in replies] == ["bad-seat", "sub", None, "last"]
        assert replies[0] == socket_reply(table.socket, bad)
        assert replies[1]["error"]["code"] == "not_allowed"  # the events topic is the stream
        assert replies[2]["error"]["code"] == "bad_json"
        assert last["ok"] is True and last["state"] == "idle"
        assert table.status()["state"] == "idle"  # table-2's start was not carried out
        # Another table reads its own commands, not this one's: once the command sent to it after
        # ours arrives, ours would have (a connection's messages keep their order).
        operator.publish("mjtable/table-2/command", {"op": "status", "id": "for-table-2"})
        other_table.wait("mjtable/table-2/command")
        assert other_table.on(f"{TREE}/command") == []

    with Listener(broker.port, "floor", f"{TREE}/status", f"{TREE}/events") as floor:
        retained = floor.wait(f"{TREE}/status").json()
        assert retained["table_id"] == "table-1" and retained["state"] == "idle"  # not table-2's forgery

        with Listener(broker.port, "operator", reply_topic) as operator:  # and the operator starts a game
            players = [{"name": name} for name in ("Ann", "Bo", "Cy", "Di")]
            operator.publish(f"{TREE}/command", {"op": "start", "players": players, "id": 1})
            reply = operator.wait(reply_topic).json()
        assert reply["ok"] is True and reply["id"] == 1  # the start op's reply: the status then
        assert [p["name"] for p in reply["seat_players"]] == ["Ann", "Bo", "Cy", "Di"]
        started = floor.wait_event("table-1", "game_started")
        assert [p["name"] for p in started["players"]] == ["Ann", "Bo", "Cy", "Di"]
        assert table.status()["seat_players"] == reply["seat_players"]



def _commanded_table(procs, broker) -> MqttTable:
    """A table taking commands, once subscribed to them."""
    table = MqttTable(procs, broker, commands=True)
    with Listener(broker.port, "floor", f"{TREE}/status") as floor:
        floor.wait(f"{TREE}/status")  # subscribed to its command topic before its first status
    return table


def test_a_retained_command_is_never_run_not_even_after_a_restart(procs, broker):
    table = _commanded_table(procs, broker)
    table.ok("start")
    table.wait_hand_after(0)
    reply_topic = f"{TREE}/command/reply"
    with Listener(broker.port, "operator", reply_topic) as operator:
        operator.publish(f"{TREE}/command", {"op": "abandon", "id": "kept"}, retain=True)
        operator.publish(f"{TREE}/command", {"op": "status", "id": "after"})
        after = operator.wait(reply_topic, lambda m: m.json().get("id") == "after").json()
        assert after["state"] == "playing" and [m.json()["id"] for m in operator.on(reply_topic)] == ["after"]
    with Listener(broker.port, "floor", f"{TREE}/command") as floor:  # the broker keeps no command
        floor.publish(f"{TREE}/status", "ignored")  # a round trip: retained messages come before it
        assert all(not m.retain for m in floor.on(f"{TREE}/command"))

    table.stop_controller(signal.SIGKILL)
    table.start_controller()
    table.wait_hand_after(0)
    with Listener(broker.port, "operator", reply_topic) as operator:
        operator.publish(f"{TREE}/command", {"op": "status", "id": "restarted"})
        assert operator.wait(reply_topic, lambda m: m.json().get("id") == "restarted").json()["state"] == "playing"
    assert "is not run (commands are never retained)" in stderr_of(procs.started[1])
    assert [game["status"] for game in table.client.request("journal")["games"]] == ["active"]


def test_a_command_is_run_once_per_id_and_needs_one(procs, broker):
    table = _commanded_table(procs, broker)
    reply_topic = f"{TREE}/command/reply"
    with Listener(broker.port, "operator", reply_topic) as operator:
        for request in ({"op": "start"}, {"op": "start", "id": 7}, {"op": "start", "id": 7},
                        '{"op": "status", "op": "pause", "id": "twice"}', {"op": "status", "id": "last"}):
            operator.publish(f"{TREE}/command", request)
        operator.wait(reply_topic, lambda m: m.json().get("id") == "last")
        replies = [m.json() for m in operator.on(reply_topic)]
    assert [(r.get("id"), r["ok"]) for r in replies] == [(None, False), (7, True), (None, False), ("last", True)]
    assert replies[2]["error"]["code"] == "bad_json" and replies[-1]["state"] != "paused"
    assert replies[0]["error"]["code"] == "bad_request" and '"id"' in replies[0]["error"]["message"]
    assert len(table.client.request("journal")["games"]) == 1
