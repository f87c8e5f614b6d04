"""The API surfaces: one op table, the control socket, HTTP and WebSocket, MQTT, the floor view, the client."""
