"""`mjtable run` with an `mqtt:` section in its table config, on a simulated table: the
end-to-end harness's TableSession, its config carrying the section as docs/MQTT.md shows it."""
from __future__ import annotations

from controller.api.client import Client

from ...e2e.e2e_harness import SPEED, TableSession, start_sim, write_table_config
from ...support.mosquitto import PASSWORD, Mosquitto
from ...support.processes import Processes


def mqtt_section(broker: Mosquitto, table_id: str, commands: bool) -> str:
    return (f"mqtt:\n  broker: {broker.url}\n  table_id: {table_id}\n  username: {table_id}\n"
            f"  password_file: mqtt-password\n  commands: {'true' if commands else 'false'}\n")


class MqttTable(TableSession):
    """A simulated table and `mjtable run` on it, publishing as ``table_id`` (its account)."""

    def __init__(self, procs: Processes, broker: Mosquitto, table_id: str = "table-1", commands: bool = False,
                 sim_args: tuple[str, ...] = (), extra: str = "") -> None:
        _, port = start_sim(procs, "--pty", "--speed", str(SPEED), "--seed", "1", *sim_args)  # e.g. --faults FILE
        self.procs = procs
        self.table_id = table_id
        self.config = write_table_config(procs.folder, port, "four-port", "ema-2016")
        (procs.folder / "mqtt-password").write_text(PASSWORD + "\n")
        with self.config.open("a") as config:
            config.write(mqtt_section(broker, table_id, commands) + extra)  # extra: more of the mqtt section
        self.socket = procs.folder / "api.sock"
        self.client = Client(self.socket, timeout=5)
        self.run = None
        self.start_controller()
