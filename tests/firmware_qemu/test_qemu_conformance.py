"""`mjtable conformance` through the console script against the C core on an emulated
Cortex-M3, its MCU reset by the QEMU monitor's `system_reset` (the reset mid-shuffle)."""
import subprocess

from ..support.processes import MJTABLE

KIT_TIMEOUT = 180  # QEMU's SysTick drifts under load: the kit's own timeouts are wide


def test_the_cortex_m3_build_passes_the_kit_with_an_mcu_reset_mid_shuffle(board):
    done = subprocess.run([MJTABLE, "conformance", board.port, "--reset-with", board.reset_command()],
                          capture_output=True, text=True, timeout=KIT_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = {line.split()[1]: line.split()[0] for line in done.stdout.splitlines()[:-1]}
    assert {name: v for name, v in seen.items() if v == "n/a"} == {"unsupported": "n/a", "state.lid_open": "n/a"}
    assert seen["reset.reset_request"] == seen["reset.booted"] == seen["reset.state"] == "pass"
    assert seen["boot.booted"] == "pass"
    print(done.stdout.splitlines()[-1])
