"""`mjtable run` with an `mqtt:` section, as a user runs it: status, events, availability and
Home Assistant discovery arrive on the broker with the topics and payloads of docs/MQTT.md."""
from .harness import MqttTable
from .listener import Listener

TREE = "mjtable/table-1"
SENSORS = ("state", "hand", "score_0", "score_1", "score_2", "score_3")


def test_status_events_and_discovery_arrive_as_documented_and_commands_are_off(procs, broker):
    with Listener(broker.port, "floor", f"{TREE}/#", "homeassistant/#") as floor:
        table = MqttTable(procs, broker, extra="  web_url: http://table-1.lan:8080/\n")
        floor.wait(f"{TREE}/availability", lambda m: m.payload == b"online" and m.retain is False)
        idle = floor.wait_status("table-1", lambda s: s["state"] == "idle", "the idle table's status")
        assert idle["table_id"] == "table-1" and idle["fault"] is None and idle["ruleset"] == "ema-2016"
        assert "walls" not in idle and "fault_code" not in idle

        discovered = {m.topic: m.json() for m in floor.messages if m.topic.startswith("homeassistant/")}
        fault_topic = "homeassistant/binary_sensor/mjtable_table-1_fault/config"
        assert set(discovered) == {f"homeassistant/sensor/mjtable_table-1_{s}/config" for s in SENSORS} | {fault_topic}
        state = discovered["homeassistant/sensor/mjtable_table-1_state/config"]
        assert state["state_topic"] == f"{TREE}/status" and state["availability_topic"] == f"{TREE}/availability"
        assert {c["device"]["identifiers"][0] for c in discovered.values()} == {"mjtable_table-1"}
        # Home Assistant 2026.4 removed object_id: the entity is named by default_entity_id
        assert all("object_id" not in c for c in discovered.values())
        assert state["default_entity_id"] == "sensor.mjtable_table_1_state"
        score = discovered["homeassistant/sensor/mjtable_table-1_score_2/config"]
        assert score["state_class"] == "measurement" and score["default_entity_id"] == "sensor.mjtable_table_1_score_2"
        fault = discovered[fault_topic]
        assert (fault["device_class"], fault["payload_on"], fault["payload_off"]) == ("problem", "ON", "OFF")
        assert fault["default_entity_id"] == "binary_sensor.mjtable_table_1_fault"
        assert fault["json_attributes_topic"] == f"{TREE}/status"
        assert state["device"]["configuration_url"] == "http://table-1.lan:8080/"  # the config's mqtt.web_url

        table.ok("start", "--players", "Ann", "Bo", "Cy", "Di")
        started = floor.wait_event("table-1", "hand_started")
        assert started["hand"] == "E1" and started["seq"] == 1
        table.ok("result", "draw", "--tenpai", "1")
        ended = floor.wait_event("table-1", "hand_ended")
        journal = table.journal()  # the players' line, then the hands
        assert ended["record"] == {k: v for k, v in journal[1].items() if k != "players"}  # the journal adds the names

        after = floor.wait_status("table-1", lambda s: s["time"] >= ended["time"], "the status after the hand")
        assert after["scores"] == ended["record"]["scores"]
        assert [p["name"] for p in after["seat_players"]] == ["Ann", "Bo", "Cy", "Di"]
        # A broker that answers nothing holds up nothing: the next hand is played meanwhile.
        second_seq = table.wait_hand_after(started["seq"])["hand_in_play"]["seq"]
        broker.freeze()
        table.ok("result", "draw", "--tenpai", "1")
        table.wait_hand_after(second_seq)
        broker.thaw()
        second = floor.wait_event("table-1", "hand_ended", lambda e: e["time"] > ended["time"])
        assert second["record"] == {k: v for k, v in table.journal()[2].items() if k != "players"}

        events = floor.events("table-1")
        assert {"game_started", "hand_started", "hand_ended"} <= {e["event"] for e in events}
        assert all(e["table_id"] == "table-1" and isinstance(e["time"], float) for e in events)
        assert not floor.events("table-1", "state")  # status tells state changes

        # Commands are off by default: the table never subscribed to its command topic (the
        # broker's log says so), and a command sent there changes nothing.
        assert " as mjtable-table-1 " in broker.log()
        assert "\tmjtable/table-1/command (QoS" not in broker.log()  # it reads only the hall's confirmations
        with Listener(broker.port, "operator") as operator:
            operator.publish(f"{TREE}/command", {"op": "pause", "id": "pause-over-mqtt"})
        assert table.status()["state"] != "paused"
