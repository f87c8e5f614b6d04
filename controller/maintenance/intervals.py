"""The `maintenance:` section of the table config: service intervals, by task.

Imported by every config load, so it imports only the schema; the reminders themselves
are controller/maintenance/reminders.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from yaml.nodes import MappingNode, ScalarNode

from mjtable_config.schema import INVALID, Schema, shape, show, spec

# counter -> what it counts (docs/FLOOR.md); the first five are the table's (protocol 1.1)
COUNTERS = {
    "shuffles": "the table's shuffle cycles since the last service (reset by the table itself)",
    "lift_cycles": "the table's wall-lift cycles",
    "motor_hours": "the table's motor running time, in hours",
    "jams": "the table's jams, every sensor together",
    "table_faults": "the table's faults, every sensor together",
    "hands": "hands the controller has stored",
    "games": "games the controller has finished",
    "faults": "faults the controller has logged (the table's, the watchdog's and its own)",
}
TABLE_COUNTERS = ("shuffles", "lift_cycles", "motor_hours", "jams", "table_faults")
TASK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True, kw_only=True)
class Interval:
    every: int = field(metadata=spec(min=1, max=1_000_000_000))
    counter: str = field(metadata=spec(choices=tuple(COUNTERS)))


class Intervals(Schema):
    """The ``maintenance:`` section: task names, each with its interval."""

    allowed = "a mapping of task names to {every: N, counter: NAME}"

    def _check(self, node, path, ctx):
        if not isinstance(node, MappingNode):
            return self.fail(node, path, ctx)
        found, out = ctx.total, {}
        for key, value in node.value:
            task = key.value if isinstance(key, ScalarNode) else show(key)
            line = key.start_mark.line + 1
            if not TASK.match(task):
                ctx.error(path + (task,), f"task name {show(key)}: allowed: 1 to 64 letters, digits, - or _", line)
            elif task in out:
                ctx.error(path + (task,), "duplicate task", line)
            else:
                ctx.lines[path + (task,)] = line
                out[task] = shape(Interval, what="an interval").check(value, path + (task,), ctx)
        return INVALID if ctx.total > found else out
