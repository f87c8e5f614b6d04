from importlib.metadata import PackageNotFoundError, version


def installed_version() -> str:
    """The controller's version as installed (the MQTT device, the metrics' build info)."""
    try:
        return version("mjtable")
    except PackageNotFoundError:  # run from a tree that was never installed
        return "unknown"
