"""The table's upkeep: counters and sensor tests, service reminders and intervals, the stick trays."""
