"""The QEMU checks run in `make firmware-check` (MJT_FIRMWARE_CHECK=1), not in `make test`:
they need the Arm toolchain and QEMU, which that target installs."""
import os

import pytest

from ..firmware.builds import make
from ..support.folders import short_folder
from .qemu import Qemu

if not os.environ.get("MJT_FIRMWARE_CHECK"):
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def qemu_image(tmp_path_factory):
    build = tmp_path_factory.mktemp("firmware-qemu")
    make(build, "qemu")
    return build / "mjt-lm3s6965.elf"


@pytest.fixture
def board(qemu_image):
    """A freshly powered board in QEMU, in a short folder (the monitor's socket); stopped after."""
    with short_folder("mjqemu") as folder:
        qemu = Qemu(qemu_image, folder)
        try:
            yield qemu
        finally:
            qemu.stop()
