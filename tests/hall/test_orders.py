"""The director's orders through `mjtable hall tables` to a real `mjtable run` table with
`commands: true` on a real mosquitto: the seating taken, round 1 started with the hall's
players at their winds, a refusal's reason shown, a silent table named."""
from __future__ import annotations

from ..api.mqtt.harness import MqttTable
from ..support.mosquitto import PASSWORD
from .conftest import enter, hall


class NumberedMqttTable(MqttTable):
    """A table of the tournament: table 1 of the hall's seating, publishing as demo-1."""

    def start_controller(self) -> None:
        if "table:" not in self.config.read_text():
            self.config.write_text(self.config.read_text() + "table: {number: 1}\n")
        super().start_controller()


def order(folder, broker, *args: str):
    return hall("tables", "--broker", broker.url, "--username", "hall", "--password-file", "hall-password",
                "--timeout", "5", *args, cwd=folder)


def test_the_seating_and_the_start_reach_the_table_and_a_refusal_comes_back(files, broker, procs):
    assert enter(files).returncode == 0
    (files / "hall-password").write_text(PASSWORD)
    table = NumberedMqttTable(procs, broker, table_id="demo-1", commands=True)
    taken = order(files, broker, "seating")
    assert taken.returncode == 1  # table 2 is not on the broker
    assert taken.stdout.splitlines() == [
        "table 1 (demo-1): the seating is taken",
        "table 2 (demo-2): no answer in 5 s (offline, its mqtt.commands off, or the broker's ACL does not let "
        "the hall command it)"]
    refused = order(files, broker, "start", "3")
    assert refused.stdout.splitlines()[0] == "table 1 (demo-1): refused: the schedule has no round 3 (it has rounds 1-2)"
    assert table.status()["state"] == "idle"
    started = order(files, broker, "start", "1")
    assert started.stdout.splitlines()[0] == "table 1 (demo-1): round 1 started"
    status = table.status()
    assert [p["name"] for p in status["seat_players"]] == ["Ann Archer", "Bo Berg", "Cy Cole", "Di Dupont"]
    assert status["round"] == 1 and status["table"] == 1
