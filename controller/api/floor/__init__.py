"""The floor view (`mjtable floor`): every table of the parlour on one page.

``board`` keeps the latest of each table from the broker's messages (pure); ``broker``
subscribes to the broker and feeds the board, reconnecting for ever; ``web`` serves the
page and pushes every change to it over a WebSocket; ``static/`` is the page itself
(plain HTML, CSS and JavaScript). The topics are the tables' (docs/MQTT.md).
"""
