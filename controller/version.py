"""The installed package's version, read on demand: importlib.metadata costs a CLI call some
25 ms and a controller some 2.7 MB, and only `--version` and the MQTT discovery configs want it."""
from __future__ import annotations


def installed_version(missing: str = "unknown") -> str:
    """mjtable's version, or `missing` in a tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("mjtable")
    except PackageNotFoundError:
        return missing
