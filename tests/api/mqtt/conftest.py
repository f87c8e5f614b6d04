"""Fixtures of the MQTT tests: a real mosquitto broker per test, with the ACL of docs/INSTALL.md."""
import pytest

from ...support.mosquitto import Mosquitto

TABLES = ("table-1", "table-2", "demo-1", "demo-2")  # the table accounts the broker knows


@pytest.fixture
def broker(short_tmp):
    running = Mosquitto(short_tmp / "broker", TABLES)
    yield running.start()
    running.kill()
