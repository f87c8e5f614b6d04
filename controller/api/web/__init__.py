"""The table's web page: the control API over HTTP and a WebSocket event stream, served on
the controller's own loop when the table config has a ``web:`` section.

- server.py: the Starlette application, its routes and limits (served by uvicorn on the
  controller's loop: controller/api/listen.py); every op through the one op
  table (controller/api/ops.py) and the socket's shape check, over both transports, and the
  WebSocket event stream (read-only, the socket's slow-subscriber rule);
- access.py: roles, the per-game player PIN, the operator secret, logins and CSRF;
- secret.py: the operator secret's hash (made, checked, kept next to the database);
- table_web.py: the operator secret of a table config, and a new PIN for each game.

The contract is docs/API.md, "HTTP and WebSocket".
"""
