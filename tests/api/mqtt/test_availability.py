"""Availability as the floor view sees it: a broker down when `mjtable run` starts, the last
will after a kill -9, the retained status after the controller's restart, `offline` on a
clean stop."""
import signal
import time

from .harness import MqttTable
from .listener import Listener

TREE = "mjtable/table-1"
AVAILABILITY = f"{TREE}/availability"


def test_broker_late_kill_9_restart_and_clean_stop(procs, broker):
    broker.kill()
    table = MqttTable(procs, broker)  # ready without its broker
    broker.start()
    table.ok("start")
    seq = table.wait_hand_after(0)["hand_in_play"]["seq"]
    with Listener(broker.port, "floor", f"{TREE}/#") as floor:
        floor.wait_status("table-1", lambda s: (s.get("hand_in_play") or {}).get("seq") == seq,
                          "the status once the broker is up")
        floor.wait(AVAILABILITY, lambda m: m.payload == b"online")
        table.run.kill()  # kill -9: no goodbye, the broker's last will speaks
        table.run.wait()
        floor.wait(AVAILABILITY, lambda m: m.payload == b"offline")

    with Listener(broker.port, "floor", f"{TREE}/#") as late:  # what a floor view opened now is told
        assert late.wait(AVAILABILITY).payload == b"offline" and late.on(AVAILABILITY)[0].retain
        assert late.wait_status("table-1", lambda s: True, "the retained status")["hand_in_play"]["seq"] == seq

    restarted = time.time()
    table.start_controller()  # the game resumes from the store; the status is the new controller's
    with Listener(broker.port, "floor", f"{TREE}/#") as again:
        again.wait(AVAILABILITY, lambda m: m.payload == b"online")
        status = again.wait_status("table-1", lambda s: s["time"] >= restarted and s["state"] == "playing",
                                   "the restarted table's status, its game resumed")
        assert status["hand_in_play"]["seq"] == seq and status["table_id"] == "table-1"
        table.stop_controller(signal.SIGTERM)
        again.wait(AVAILABILITY, lambda m: m.payload == b"offline")
    # That offline was the controller's own (the will is no PUBLISH of it): online, online, offline.
    said = [line for line in broker.log().splitlines()
            if "Received PUBLISH from mjtable-table-1" in line and f"'{AVAILABILITY}'" in line]
    assert len(said) == 3
