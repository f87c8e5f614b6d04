"""The `mqtt:` section of the table config, and the broker URL it names."""
from __future__ import annotations

import dataclasses
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mjtable_config.schema import Problems, spec

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


def default_table_id() -> str:
    """The host name's first label, made a valid topic level."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname().split(".")[0])[:64]
    return name or "table"


@dataclass(frozen=True, kw_only=True)
class MqttSettings:
    broker: str = field(metadata=spec(what="a broker URL: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"))
    table_id: str | None = field(default=None, metadata=spec(what=f"the table's topic level: {NAME_WHAT} "
                                                                  "(default: the host name)"))
    prefix: str = field(default="mjtable", metadata=spec(what=PREFIX_WHAT))
    username: str | None = None
    password: str | None = None
    password_file: Path | None = field(default=None, metadata=spec(what="a file holding the password"))
    tls: Path | None = field(default=None, metadata=spec(what="a CA certificate file (PEM) for mqtts://"))
    discovery_prefix: str | None = field(default="homeassistant", metadata=spec(what=PREFIX_WHAT))
    commands: bool = False  # accept ops on the command topic
    queue: int = field(default=1000, metadata=spec(min=10, max=100_000))  # events held while the broker is away
    status_rate: float = field(default=5.0, metadata=spec(min=0.1, max=100))  # status messages a second, at most
    # the table page's address as the parlour reaches it (a listen address does not say it)
    web_url: str | None = field(default=None, metadata=spec(what="an http:// or https:// URL"))

    def problems(self) -> Problems:
        try:
            broker = parse_broker(self.broker)
        except ValueError as exc:
            yield ("broker",), f"{exc}; allowed: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        else:
            if self.tls is not None and not broker.tls:
                yield ("tls",), "a CA file needs an mqtts:// broker URL"
        if self.table_id is not None and not NAME.match(self.table_id):
            yield ("table_id",), f"got {self.table_id[:40]!r}; allowed: {NAME_WHAT}"
        for key in ("prefix", "discovery_prefix"):
            value = getattr(self, key)
            if value is not None and not PREFIX.match(value):
                yield (key,), f"got {value[:40]!r}; allowed: {PREFIX_WHAT}"
        if self.web_url is not None and urlsplit(self.web_url).scheme not in ("http", "https"):
            yield ("web_url",), f"got {self.web_url[:40]!r}; allowed: an http:// or https:// URL"
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
