"""A real mosquitto broker for a test: on a free loopback port, with users and an ACL.

Each table's user may only write its own tree (`mjtable/<table>/...`) and its own
discovery configs, and read its own command topic; `floor` reads everything; `operator`
may send commands to any table; `hall` confirms results; `director` sends the hall's
orders to every table. It is the ACL docs/INSTALL.md shows.
"""
from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
PASSWORD = "secret"  # every test user's
START_TIMEOUT = 10.0

ACL = """\
# the floor view (and Home Assistant) read every table
user floor
topic read mjtable/#
topic read homeassistant/#

# the operator's tools may send commands to any table
user operator
topic write mjtable/+/command
topic read mjtable/+/command/reply

# the tournament hall's service (docs/HALL.md) reads every table and confirms results
user hall
topic read mjtable/#
topic write mjtable/+/results/+/ack

# the tournament director's orders to the tables (mjtable hall tables, the hall page's)
user director
topic write mjtable/+/command
topic read mjtable/+/command/reply

# each table (user name = table id) writes its own tree and reads its own command topic
# (and writes it: to clear a retained command, which it never runs)
pattern write mjtable/%u/status
pattern write mjtable/%u/events
pattern write mjtable/%u/availability
pattern write mjtable/%u/command/reply
pattern readwrite mjtable/%u/command
pattern write mjtable/%u/results/+
pattern read mjtable/%u/results/+/ack
pattern write homeassistant/sensor/mjtable_%u_state/config
pattern write homeassistant/sensor/mjtable_%u_hand/config
pattern write homeassistant/binary_sensor/mjtable_%u_fault/config
pattern write homeassistant/sensor/mjtable_%u_score_0/config
pattern write homeassistant/sensor/mjtable_%u_score_1/config
pattern write homeassistant/sensor/mjtable_%u_score_2/config
pattern write homeassistant/sensor/mjtable_%u_score_3/config
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Mosquitto:
    """``start()`` / ``kill()`` / ``start()`` again on the same port (a broker restart);
    ``users`` are the accounts besides floor and operator, changed live by ``reload``."""

    def __init__(self, folder: Path, users: tuple[str, ...]) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.users = users
        self.passwords = folder / "passwords"
        (folder / "acl").write_text(ACL)
        self.config = folder / "mosquitto.conf"
        self.config.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous false\n"
                               f"password_file {self.passwords}\nacl_file {folder / 'acl'}\npersistence false\n"
                               f"log_dest file {folder / 'mosquitto.log'}\nlog_type all\n"
                               f"user {getpass.getuser()}\n")  # as root it would switch to user mosquitto

    def add_tls_listener(self) -> Path:
        """A second listener, mqtts:// at ``tls_url``, with a self-signed certificate for
        127.0.0.1; the CA file a client trusts (the certificate itself)."""
        ca, key = self.folder / "ca.pem", self.folder / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(key), "-out", str(ca)], check=True, capture_output=True)
        port = free_port()
        self.tls_url = f"mqtts://127.0.0.1:{port}"
        with self.config.open("a") as config:  # listener options follow their listener line
            config.write(f"listener {port} 127.0.0.1\ncertfile {ca}\nkeyfile {key}\n")
        return ca

    def _write_passwords(self) -> None:
        self.passwords.write_text("")
        for user in ("floor", "operator", "hall", "director", *self.users):
            subprocess.run([MOSQUITTO_PASSWD, "-b", str(self.passwords), user, PASSWORD], check=True,
                           capture_output=True)

    def start_with(self, users: tuple[str, ...]) -> "Mosquitto":
        self.users = users
        return self.start()

    def start(self) -> "Mosquitto":
        self._write_passwords()
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while not self._listening():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"mosquitto did not start: {self.log()}")
            time.sleep(0.02)
        return self

    def reload(self, users: tuple[str, ...]) -> None:
        """These accounts from now on (mosquitto rereads its password file on SIGHUP)."""
        self.users = users
        self._write_passwords()
        self.proc.send_signal(signal.SIGHUP)

    def _listening(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def freeze(self) -> None:
        """A broker that takes connections' bytes but answers nothing (SIGSTOP): the slowest."""
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text() if path.exists() else ""
