"""The shipped configuration as the package ``mjtable_config`` (pyproject.toml maps it to
this folder), so that an installed wheel has the rule-set presets, table profiles, table
config, systemd unit and udev rule too, and an editable install reads this folder."""
from importlib.resources import files
from pathlib import Path

# A file-system package: the table config's relative paths need a real folder.
CONFIG_DIR = Path(str(files(__name__)))
