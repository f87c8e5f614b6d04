"""The QEMU checks run in `make firmware-check` (MJT_FIRMWARE_CHECK=1), not in `make test`:
they need the Arm toolchain and QEMU, which that target installs."""
import os
import re
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..firmware.builds import C_DIR, make
from ..support.folders import short_folder
from .qemu import Qemu

STALL_AFTER_MS = 4000
# The virtual tables' profiles, in the order VIRTUAL_PROFILE numbers them.
VIRTUAL_PROFILES = re.findall(r'^    \{"([\w-]+)", \{', (C_DIR / "hal" / "virtual" / "profiles.h").read_text(), re.M)

if not os.environ.get("MJT_FIRMWARE_CHECK"):
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def qemu_image(tmp_path_factory):
    build = tmp_path_factory.mktemp("firmware-qemu")
    make(build, "qemu")
    return build / "mjt-lm3s6965.elf"


@pytest.fixture(scope="session")
def profile_image(tmp_path_factory):
    """image(profile): the image of a virtual table with that shipped profile's devices."""
    built: dict[str, Path] = {}

    def image(profile: str) -> Path:
        if profile not in built:
            build = tmp_path_factory.mktemp(f"firmware-qemu-{profile}")
            make(build, f"BOARD_FLAGS=-DVIRTUAL_PROFILE={VIRTUAL_PROFILES.index(profile)}", "qemu")
            built[profile] = build / "mjt-lm3s6965.elf"
        return built[profile]
    return image


@pytest.fixture(scope="session")
def stalling_image(tmp_path_factory):
    """The image whose main loop hangs once, STALL_AFTER_MS after the first power-on."""
    build = tmp_path_factory.mktemp("firmware-qemu-stall")
    make(build, f"BOARD_FLAGS=-DSTALL_AFTER_MS={STALL_AFTER_MS}", "qemu")
    return build / "mjt-lm3s6965.elf"


@contextmanager
def powered(image):
    """A freshly powered board in QEMU, in a short folder (the monitor's socket); stopped after."""
    with short_folder("mjqemu") as folder:
        qemu = Qemu(image, folder)
        try:
            yield qemu
        finally:
            qemu.stop()


@pytest.fixture
def board(qemu_image):
    with powered(qemu_image) as qemu:
        yield qemu


@pytest.fixture
def stalling_board(stalling_image):
    with powered(stalling_image) as qemu:
        yield qemu
