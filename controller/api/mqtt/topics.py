"""The table's topic tree and what its messages say (docs/MQTT.md is the contract).

Everything here is pure: the publisher hands in the status reply and the events as the
control API has them, and gets topics and JSON-ready payloads back.
"""
from __future__ import annotations

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

    def discovery(self, sensor: str) -> str:
        return f"{self.discovery_prefix}/sensor/mjtable_{self.table_id}_{sensor}/config"


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


def discovery_configs(topics: Topics, seats: list[int], version: str) -> dict[str, dict[str, Any]]:
    """Home Assistant MQTT discovery: topic -> config, one device per table."""
    device = {"identifiers": [f"mjtable_{topics.table_id}"], "name": f"mjtable {topics.table_id}",
              "manufacturer": "mjtable", "model": "automatic mahjong table", "sw_version": version}
    sensors = {"state": ("State", "{{ value_json.state }}"),
               "hand": ("Hand", "{{ value_json.hand | default('') }}"),
               "fault": ("Fault", "{{ value_json.fault.code if value_json.fault else 'none' }}")}
    for seat in seats:
        sensors[f"score_{seat}"] = (f"Seat {seat} score",
                                    f"{{{{ value_json.scores[{seat}] if value_json.scores is defined else '' }}}}")
    return {topics.discovery(key): {
        "name": name, "unique_id": f"mjtable_{topics.table_id}_{key}",
        "object_id": f"mjtable_{topics.table_id}_{key}", "state_topic": topics.status, "value_template": template,
        "availability_topic": topics.availability, "payload_available": ONLINE, "payload_not_available": OFFLINE,
        "device": device,
        **({"json_attributes_topic": topics.status, "json_attributes_template": "{{ value_json.fault | tojson }}"}
           if key == "fault" else {}),
    } for key, (name, template) in sensors.items()}
