"""Whether an optimized controller found the compiled bytecode it needs.

The systemd unit runs the controller without docstrings (PYTHONOPTIMIZE=2: 1.7 MB less
resident memory). That needs bytecode compiled for it at install: the service cannot write
it under its read-only /opt and /usr, so a module without it is compiled from source at
every start — slower, and more memory than the docstrings saved (docs/INSTALL.md).
"""
from __future__ import annotations

import os
import sys


def uncompiled() -> list[str]:
    """The loaded modules whose bytecode for this optimization level is missing (none
    when not optimized: the ordinary bytecode is written by pip at install)."""
    if not sys.flags.optimize:
        return []
    return sorted(name for name, module in list(sys.modules.items())
                  if (cached := getattr(getattr(module, "__spec__", None), "cached", None))
                  and not os.path.exists(cached))
