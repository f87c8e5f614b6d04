"""The director's orders through `mjtable hall tables` and the hall page to a real
`mjtable run` table with `commands: true` on a real mosquitto with the ACL of
docs/INSTALL.md: the seating taken, round 1 started with the hall's players at their
winds, a refusal's reason shown, a silent table named; only the director's account
commands the tables, not the hall service's."""
from __future__ import annotations

from ..api.mqtt.harness import MqttTable
from ..support.mosquitto import PASSWORD
from .conftest import HallProcess, enter, hall
from .test_results import post


class NumberedMqttTable(MqttTable):
    """A table of the tournament: table 1 of the hall's seating, publishing as demo-1."""

    def start_controller(self) -> None:
        if "table:" not in self.config.read_text():
            self.config.write_text(self.config.read_text() + "table: {number: 1}\n")
        super().start_controller()


def order(folder, broker, *args: str, account: str = "director"):
    return hall("tables", "--broker", broker.url, "--username", account, "--password-file", "hall-password",
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
        "this account command it)"]
    refused = order(files, broker, "start", "3")
    assert refused.stdout.splitlines()[0] == "table 1 (demo-1): refused: the schedule has no round 3 (it has rounds 1-2)"
    assert table.status()["state"] == "idle"
    started = order(files, broker, "start", "1")
    assert started.stdout.splitlines()[0] == "table 1 (demo-1): round 1 started"
    status = table.status()
    assert [p["name"] for p in status["seat_players"]] == ["Ann Archer", "Bo Berg", "Cy Cole", "Di Dupont"]
    assert status["round"] == 1 and status["table"] == 1


def test_only_the_director_s_account_commands_the_tables(files, broker, procs):
    assert enter(files).returncode == 0
    (files / "hall-password").write_text(PASSWORD)
    table = NumberedMqttTable(procs, broker, table_id="demo-1", commands=True)
    assert order(files, broker, "seating").stdout.startswith("table 1 (demo-1): the seating is taken")
    as_hall = order(files, broker, "start", "1", account="hall")  # the ACL drops the hall service's command
    assert as_hall.returncode == 1 and as_hall.stdout.startswith("table 1 (demo-1): no answer in 5 s")
    assert table.status()["state"] == "idle"
    unknown = order(files, broker, "start", "1", account="nobody")
    assert unknown.returncode == 1 and unknown.stdout.splitlines()[0] == (
        f"table 1 (demo-1): not sent: the broker 127.0.0.1:{broker.port} refused or lost the connection as nobody "
        f"([code:135] Not authorized)")
    page = HallProcess(files, broker, "--director-username", "director", "--director-password-file",
                       "hall-password").start()
    try:
        status, reply = post(page.url + "api/tables", {"order": "start", "round": 3}, page.secret)
    finally:
        page.stop()
    assert status == 200 and reply["tables"][0] == \
        "table 1 (demo-1): refused: the schedule has no round 3 (it has rounds 1-2)"
