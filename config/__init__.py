"""The shipped configuration as the package ``mjtable_config`` (pyproject.toml maps it to
this folder), so that an installed wheel has the rule-set presets, table profiles, table
config, systemd unit and udev rule too, and an editable install reads this folder."""
from __future__ import annotations

from pathlib import Path

# A file-system package: the table config's relative paths need a real folder. (Its
# __file__'s, not importlib.resources': that loads zipfile and tempfile into every process.)
CONFIG_DIR = Path(__file__).resolve().parent


def shipped_names(folder: str) -> list[str]:
    """The names of the YAML files shipped in ``folder`` (rulesets, tables)."""
    return sorted(p.stem for p in (CONFIG_DIR / folder).glob("*.yaml"))


def named_file(folder: str, name_or_path: str | Path, base: Path | None = None) -> Path:
    """A shipped file by name (``ema-2016`` is ``rulesets/ema-2016.yaml``), or a path, relative
    to ``base`` when given. A name that is not shipped gives a path that does not exist."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or text.endswith((".yaml", ".yml")):
        path = Path(text).expanduser()
        return path if path.is_absolute() or base is None else base / path
    return CONFIG_DIR / folder / f"{text}.yaml"
