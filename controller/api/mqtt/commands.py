"""Commands over MQTT are commands, not state (docs/MQTT.md, "command and command/reply").

A retained message on the command topic would be run again at every (re)connect, so it is
never run: it is cleared (an empty retained message) and logged. Each command carries an
``id``; an id seen in the last ``ID_MEMORY`` seconds (the last ``MAX_IDS`` commands) is not
run again, so a message the broker delivers twice (QoS 1) or a resend is carried out once
and answered once.
"""
from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from typing import Any

from controller.api.server import MAX_MESSAGE, ControlHandler, answer_line

log = logging.getLogger("mjtable.mqtt")

ID_MEMORY = 3600.0  # seconds an id is remembered
MAX_IDS = 1000      # ids remembered at most (the oldest are forgotten first)


class Commands:
    def __init__(self, handler: ControlHandler, clock=time.monotonic) -> None:
        self.handler = handler
        self.clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()  # the ids' JSON, when each was first seen
        self._told_retained = False

    def retained(self, topic: str) -> None:
        """A retained command, found as the publisher subscribed (or published so): not run."""
        level = logging.DEBUG if self._told_retained else logging.WARNING
        self._told_retained = True
        log.log(level, "MQTT: a retained message on %s is not run (commands are never retained); clearing it",
                topic)

    async def reply(self, payload: bytes) -> dict[str, Any] | None:
        """The reply to one command, or None: nothing to answer (an empty message, a repeat)."""
        if not payload:
            return None  # how a retained message is cleared: it comes back once, empty
        if len(payload) > MAX_MESSAGE:
            return {"ok": False, "error": {"code": "too_large", "message": f"message longer than {MAX_MESSAGE} bytes"}}
        client_id = _id_of(payload)
        if client_id is not None and self._repeated(client_id):
            log.info("MQTT: command id %s seen already; not run again", client_id[:80])
            return None
        return await answer_line(self.handler, payload, needs_id=True)

    def _repeated(self, client_id: str) -> bool:
        now = self.clock()
        while self._seen and (len(self._seen) >= MAX_IDS or next(iter(self._seen.values())) < now - ID_MEMORY):
            self._seen.popitem(last=False)
        if client_id in self._seen:
            return True
        self._seen[client_id] = now
        return False


def _id_of(payload: bytes) -> str | None:
    """The request's id as JSON text (1 and "1" differ), or None: none, or not a request."""
    try:
        request = json.loads(payload)
    except (ValueError, RecursionError):
        return None  # answer_line says what is wrong with it
    if not isinstance(request, dict) or "id" not in request:
        return None
    return json.dumps(request["id"])
