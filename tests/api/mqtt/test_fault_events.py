"""A jam on the MQTT `events` topic, as a home automation counting faults sees it: one
`fault` event with the state the fault left the table in, one `recovered` after `retry`."""
from .harness import MqttTable
from .listener import Listener


def test_a_jam_is_one_fault_event_and_one_recovered_on_the_events_topic(procs, broker):
    plan = procs.folder / "faults.yaml"
    plan.write_text("jam: [{shuffle: 1, sensor: stacker}]\n")
    with Listener(broker.port, "floor", "mjtable/table-1/#") as floor:
        table = MqttTable(procs, broker, sim_args=("--faults", str(plan)))
        floor.wait_status("table-1", lambda s: s["state"] == "idle", "the idle table's status")
        table.ok("start")
        fault = floor.wait_event("table-1", "fault")
        floor.wait_status("table-1", lambda s: s["state"] == "fault", "the fault in the status")
        table.ok("retry")
        floor.wait_event("table-1", "recovered")
        floor.wait_status("table-1", lambda s: s["state"] == "playing" and s["fault"] is None, "play again")
        assert floor.events("table-1", "fault") == [fault]
        assert fault["code"] == 200 and fault["message"] == "E200 jam at stacker" and fault["state"] == "fault"
        assert len(floor.events("table-1", "recovered")) == 1
