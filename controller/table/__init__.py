"""The table facade: the link to the table's MCU, its traffic, line quality, reports and capabilities."""
