"""mjtable's version. pyproject.toml takes it from here (setuptools' dynamic version), so a
running controller tells it (the metrics, the MQTT discovery) without importlib.metadata,
which costs a process some 25 ms and, loading email, csv and zipfile, a few hundred KB."""
from __future__ import annotations

VERSION = "0.1.0"
