"""The table on the parlour's MQTT broker (the `mqtt:` section of the table config).

``settings`` is the section's shape (imported by every config load, so it imports no MQTT
library); ``topics`` names the topic tree and shapes its payloads; ``publisher`` runs in
the controller's loop and never lets the broker hold up the game. docs/MQTT.md is the
contract the floor view and other subscribers rely on.
"""
