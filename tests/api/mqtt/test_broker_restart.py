"""`mjtable demo --tables 2 --mqtt`: two tables at once on the broker, as the floor view sees
them; the broker restarted mid-game loses no hand."""
import json
import subprocess
from pathlib import Path

from ...support.mosquitto import PASSWORD
from ...support.processes import MJTABLE, wait_for
from .listener import TIMEOUT, Listener

SPEED = "5000"
GAME_TIMEOUT = 120


def demo(folder: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([MJTABLE, "demo", "--speed", SPEED, *args], cwd=folder, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=GAME_TIMEOUT)
    assert proc.returncode == 0, err
    return out


def journal(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def password_file(folder: Path) -> str:
    path = folder / "mqtt-password"
    path.write_text(PASSWORD + "\n")
    return str(path)


def test_a_broker_restart_mid_game_loses_no_hand_of_any_table_and_status_is_republished(short_tmp, broker):
    clean = demo(short_tmp, "--journal", "clean.jsonl")  # demo-1's game without a broker, meanwhile
    with Listener(broker.port, "floor", "mjtable/#") as floor:
        played = demo(short_tmp, "--tables", "2", "--journal", "mqtt.jsonl", "--mqtt", broker.url,
                      "--mqtt-password-file", password_file(short_tmp))
        wait_for(lambda: len(floor.events("demo-1", "hand_ended")) >= 3, "three hands on the broker", TIMEOUT)
        broker.kill()
        # Back without the tables' accounts, so that the floor view is surely subscribed again
        # before the tables can publish what they kept meanwhile; then they are let in.
        broker.start_with(users=())
        floor.wait_subscribed(2)
        broker.reload(users=("demo-1", "demo-2"))
        out = finish(played)
        finish(clean)

        assert journal(short_tmp / "mqtt.demo-1.jsonl") == journal(short_tmp / "clean.jsonl")
        for table in ("demo-1", "demo-2"):
            hands = [record for record in journal(short_tmp / f"mqtt.{table}.jsonl") if "hand" in record]
            assert len(hands) == len([line for line in out.splitlines() if line.startswith(f"{table}: [")])
            seen = [json.dumps(e["record"]) for e in floor.events(table, "hand_ended")]
            # Every hand, in order; one sent again after the restart may come twice (QoS 1).
            assert list(dict.fromkeys(seen)) == [json.dumps(hand) for hand in hands]
            assert floor.events(table, "game_over") and not floor.events(table, "dropped")

    # A demo table is gone once it ends: a late subscriber finds none of its retained
    # messages (Home Assistant keeps no phantom device, the floor view no phantom tile) but
    # its games' results, which stay for a tournament hall until it confirms them.
    with Listener(broker.port, "floor", "mjtable/#", "homeassistant/#") as late:
        late.wait_subscribed(1)
        with Listener(broker.port, "operator") as operator:  # the retained come before this marker
            operator.publish("mjtable/demo-1/command", {"op": "status", "id": "marker"})
        late.wait("mjtable/demo-1/command")
        left = [m.topic for m in late.messages if m.retain and m.payload]
        assert [t for t in left if "/results/" not in t] == []
        assert sorted(t.split("/")[1] for t in left) == ["demo-1", "demo-2"]  # one result a table
