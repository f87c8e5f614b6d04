"""The table's web page: the control API over HTTP and a WebSocket event stream, served by
`mjtable run` on the controller's own loop when the table config has a ``web:`` section.

- server.py: the aiohttp application, its routes and limits; one op implementation
  (``Service.handle`` behind ``controller.api.check_request``) for both transports;
- access.py: roles, the per-game player PIN, the operator secret, sessions and CSRF;
- secrets_file.py: the operator secret's hash (made, checked, kept next to the database);
- events.py: the WebSocket stream (read-only, the socket's slow-subscriber rule).

The contract is docs/API.md, "HTTP and WebSocket".
"""
