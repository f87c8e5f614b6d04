"""The table's topic tree and what its messages say (docs/MQTT.md is the contract).

Everything here is pure: the publisher hands in the status reply and the events as the
control API has them, and gets topics and JSON-ready payloads back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Status keys a floor view does not need: the walls are large and change every hand, the
# last result is in the hand_ended event; the fault is reshaped (below).
LEFT_OUT = ("walls", "last_result", "fault", "fault_code")
# Events status already tells (a state change is in the next status message).
NOT_EVENTS = ("state",)
ONLINE, OFFLINE = "online", "offline"


@dataclass(frozen=True)
class Topics:
    table_id: str
    discovery_prefix: str | None
    status: str
    events: str
    availability: str
    command: str
    reply: str

    @classmethod
    def of(cls, prefix: str, table_id: str, discovery_prefix: str | None) -> "Topics":
        base = f"{prefix}/{table_id}"
        return cls(table_id, discovery_prefix, status=f"{base}/status", events=f"{base}/events",
                   availability=f"{base}/availability", command=f"{base}/command", reply=f"{base}/command/reply")

    def discovery(self, sensor: str, component: str = "sensor") -> str:
        return f"{self.discovery_prefix}/{component}/mjtable_{self.table_id}_{sensor}/config"

    def entity_id(self, sensor: str, component: str) -> str:
        """Home Assistant's entity id for it (lower-case letters, digits and _ only)."""
        return f"{component}.{re.sub(r'[^a-z0-9_]', '_', f'mjtable_{self.table_id}_{sensor}'.lower())}"


def status_message(status: dict[str, Any], table_id: str, fault_since: float | None, now: float,
                   web_url: str | None = None) -> dict[str, Any]:
    """The retained status: the `status` reply without LEFT_OUT, the fault as an object."""
    out = {k: v for k, v in status.items() if k not in LEFT_OUT}
    code = status.get("fault_code")
    out["fault"] = None if code is None else {"code": code, "message": status["fault"], "since": fault_since}
    if web_url is not None:
        out["web_url"] = web_url
    return {"table_id": table_id, "time": round(now, 3), **out}


def event_message(event: dict[str, Any], table_id: str, now: float) -> dict[str, Any]:
    return {"event": event["event"], "table_id": table_id, "time": round(now, 3),
            **{k: v for k, v in event.items() if k != "event"}}


def discovery_configs(topics: Topics, seats: list[int], version: str,
                      web_url: str | None = None) -> dict[str, dict[str, Any]]:
    """Home Assistant MQTT discovery: topic -> config, one device per table. Each names its
    entity by `default_entity_id` (Home Assistant 2025.10 on; `object_id` is gone in
    2026.4); the scores are measurements (history graphs); the fault is a problem
    binary sensor with the fault object (its code) as attributes."""
    device = {"identifiers": [f"mjtable_{topics.table_id}"], "name": f"mjtable {topics.table_id}",
              "manufacturer": "mjtable", "model": "automatic mahjong table", "sw_version": version,
              **({"configuration_url": web_url} if web_url else {})}
    entities: dict[str, tuple[str, str, dict[str, Any]]] = {
        "state": ("sensor", "State", {"value_template": "{{ value_json.state }}"}),
        "hand": ("sensor", "Hand", {"value_template": "{{ value_json.hand | default('') }}"}),
        "fault": ("binary_sensor", "Fault", {
            "device_class": "problem", "value_template": "{{ 'ON' if value_json.fault else 'OFF' }}",
            "payload_on": "ON", "payload_off": "OFF",
            "json_attributes_topic": topics.status,
            "json_attributes_template": "{{ (value_json.fault or {'code': none}) | tojson }}"}),
    }
    for seat in seats:
        entities[f"score_{seat}"] = ("sensor", f"Seat {seat} score", {
            "state_class": "measurement",
            "value_template": f"{{{{ value_json.scores[{seat}] if value_json.scores is defined else none }}}}"})
    return {topics.discovery(key, component): {
        "name": name, "unique_id": f"mjtable_{topics.table_id}_{key}",
        "default_entity_id": topics.entity_id(key, component), "state_topic": topics.status,
        "availability_topic": topics.availability, "payload_available": ONLINE, "payload_not_available": OFFLINE,
        "device": device, **fields,
    } for key, (component, name, fields) in entities.items()}
