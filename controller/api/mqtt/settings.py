"""The `mqtt:` section of the table config, and the broker URL it names."""
from __future__ import annotations

import dataclasses
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mjtable_config.schema import Nullable, Problems, Str, spec

SCHEMES = {"mqtt": 1883, "mqtts": 8883}  # the scheme's default port
# One topic level: no wildcards, no separator, nothing a Home Assistant object id refuses.
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NAME_WHAT = "1 to 64 letters, digits, - or _"
PREFIX = re.compile(r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$")
PREFIX_WHAT = "topic levels of letters, digits, - or _, separated by / (no wildcards)"


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def parse_broker(url: str) -> Broker:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``; ValueError says what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"{url!r}: the scheme must be mqtt:// or mqtts://")
    try:
        port = parts.port or SCHEMES[parts.scheme]
    except ValueError:
        raise ValueError(f"{url!r}: the port must be a number from 1 to 65535") from None
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username:
        raise ValueError(f"{url!r}: only a host and a port (credentials go in username and password)")
    return Broker(parts.hostname, port, parts.scheme == "mqtts")


class _Checked(Str):
    """A string that ``check`` (raising ValueError with the reason) accepts."""

    def __init__(self, what: str, check) -> None:
        super().__init__(what=what)
        self._accepts = check

    def _check(self, node, path, ctx):
        value = super()._check(node, path, ctx)
        if isinstance(value, str):
            try:
                self._accepts(value)
            except ValueError as exc:
                return self.fail(node, path, ctx, str(exc))
        return value


def _matching(pattern: re.Pattern):
    def check(value: str) -> None:
        if not pattern.match(value):
            raise ValueError(f"got {value[:40]!r}")
    return check


def _web_url(value: str) -> None:
    if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).hostname:
        raise ValueError(f"got {value[:40]!r}")


BROKER = _Checked("a broker URL: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]", parse_broker)
TABLE_ID = _Checked(f"the table's topic level: {NAME_WHAT} (default: the host name)", _matching(NAME))
TOPIC_PREFIX = _Checked(PREFIX_WHAT, _matching(PREFIX))


def default_table_id() -> str:
    """The host name's first label, made a valid topic level."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0])[:64]
    return name or "table"


@dataclass(frozen=True, kw_only=True)
class MqttSettings:
    broker: str = field(metadata=spec(schema=BROKER))
    table_id: str | None = field(default=None, metadata=spec(schema=Nullable(TABLE_ID)))
    prefix: str = field(default="mjtable", metadata=spec(schema=TOPIC_PREFIX))
    username: str | None = None
    password: str | None = None
    password_file: Path | None = field(default=None, metadata=spec(what="a file holding the password"))
    tls: Path | None = field(default=None, metadata=spec(what="a CA certificate file (PEM) for mqtts://"))
    discovery_prefix: str | None = field(default="homeassistant", metadata=spec(schema=Nullable(TOPIC_PREFIX)))
    commands: bool = False  # accept ops on the command topic
    queue: int = field(default=1000, metadata=spec(min=10, max=100_000))  # events held while the broker is away
    status_rate: float = field(default=5.0, metadata=spec(min=0.1, max=100))  # status messages a second, at most
    # the table page's address as the parlour reaches it (a listen address does not say it)
    web_url: str | None = field(default=None, metadata=spec(schema=Nullable(_Checked("an http:// or https:// URL",
                                                                                     _web_url))))
    # a table that is gone once it stops (a demo's): its retained messages are cleared then
    clear_at_stop: bool = field(default=False, metadata=spec(file=False))

    def problems(self) -> Problems:
        if self.tls is not None and not parse_broker(self.broker).tls:
            yield ("tls",), "a CA file needs an mqtts:// broker URL"
        if self.password is not None and self.password_file is not None:
            yield ("password_file",), "give password or password_file, not both"
        if self.username is None and (self.password is not None or self.password_file is not None):
            yield ("username",), "a password needs a username"

    def resolved(self, base: Path) -> "MqttSettings":
        """Files relative to the config's folder; the table id filled in."""
        def at(text: str | Path | None) -> Path | None:  # the file's text, as read
            path = None if text is None else Path(text).expanduser()
            return None if path is None else path if path.is_absolute() else base / path
        return dataclasses.replace(self, table_id=self.table_id or default_table_id(),
                                   password_file=at(self.password_file), tls=at(self.tls))

    def files(self) -> dict[str, Path]:
        """The files this section names, by key."""
        return {k: v for k, v in (("password_file", self.password_file), ("tls", self.tls)) if v is not None}

    def summary(self) -> str:
        return (f"MQTT {parse_broker(self.broker)} as {self.prefix}/{self.table_id}, "
                f"discovery {self.discovery_prefix or 'off'}, commands {'on' if self.commands else 'off'}")
