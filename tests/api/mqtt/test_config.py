"""The `mqtt:` section of the table config as `mjtable check-config` reads it."""
import socket
import subprocess

from ...support.processes import MJTABLE

TABLE = """kind: table
serial: {port: "socket://127.0.0.1:7700", baud: 115200}
profile: four-port
ruleset: ema-2016
state: {database: var/state.db}
api: {socket: var/api.sock}
"""


def check_config(folder, mqtt: str) -> subprocess.CompletedProcess:
    path = folder / "table.yaml"
    path.write_text(TABLE + mqtt)
    return subprocess.run([MJTABLE, "check-config", str(path)], capture_output=True, text=True, timeout=30)


def test_a_valid_section_is_summed_up_with_the_host_name_as_table_id(short_tmp):
    (short_tmp / "mqtt-password").write_text("secret\n")
    done = check_config(short_tmp, "mqtt:\n  broker: mqtt://broker.lan\n  username: t\n  password_file: mqtt-password\n")
    assert done.returncode == 0, done.stderr
    host = socket.gethostname().split(".")[0]
    assert f"MQTT mqtt://broker.lan:1883 as mjtable/{host}, discovery homeassistant, commands off" in done.stdout


def test_each_problem_names_the_section_and_the_option(short_tmp):
    done = check_config(short_tmp, """mqtt:
  broker: http://broker.lan
  table_id: "table 7"
  prefix: "mjtable/#"
  password: secret
  queue: 5
  comands: true
""")
    assert done.returncode == 2
    problems = done.stderr.splitlines()
    for key in ("mqtt.broker", "mqtt.table_id", "mqtt.prefix", "mqtt.queue", "mqtt.comands"):
        assert any(f": {key}: " in line for line in problems), (key, problems)
    assert "did you mean 'commands'?" in done.stderr


def test_a_missing_password_file_and_tls_without_mqtts(short_tmp):
    done = check_config(short_tmp, "mqtt:\n  broker: mqtt://broker.lan\n  username: t\n  password_file: nowhere\n"
                                   "  tls: ca.pem\n")
    assert done.returncode == 2
    assert "mqtt.tls: a CA file needs an mqtts:// broker URL" in done.stderr
    done = check_config(short_tmp, "mqtt:\n  broker: mqtts://broker.lan\n  username: t\n  password_file: nowhere\n")
    assert done.returncode == 2 and "mqtt.password_file: no such file" in done.stderr
