"""The C core's Cortex-M3 image in QEMU's lm3s6965evb, as a table on a pty.

    -serial pty                  UART0: the table's line ("char device redirected to /dev/pts/N")
    -monitor unix:SOCK,...       the monitor: `system_reset` is the MCU's reset line

QEMU 7.2 may hang when it quits with output pending on a pty nobody reads, so stopping
asks the monitor to quit and kills QEMU (SIGKILL) if it has not gone within seconds.
"""
from __future__ import annotations

import re
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

START_TIMEOUT = 10.0
QUIT_TIMEOUT = 5.0
MONITOR = Path(__file__).with_name("monitor.py")


class Qemu:
    def __init__(self, image: Path, folder: Path) -> None:
        self.monitor = folder / "qemu-monitor.sock"
        self.proc = subprocess.Popen(
            ["qemu-system-arm", "-M", "lm3s6965evb", "-kernel", str(image), "-display", "none", "-serial", "pty",
             "-monitor", f"unix:{self.monitor},server=on,wait=off"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.port = self._pty()

    def _pty(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        seen = ""
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self.proc.stdout], [], [], deadline - time.monotonic())
            if not readable:
                break
            line = self.proc.stdout.readline()
            seen += line
            found = re.search(r"redirected to (/dev/pts/\d+)", line)
            if found:
                return found.group(1)
            if not line:
                break
        self.stop()
        raise AssertionError(f"QEMU printed no pty: {seen}")

    def reset_command(self) -> str:
        """The shell command that resets the MCU (for `mjtable conformance --reset-with`)."""
        return f"{sys.executable} {MONITOR} {self.monitor} system_reset"

    def reset(self) -> None:
        subprocess.run([sys.executable, str(MONITOR), str(self.monitor), "system_reset"], check=True, timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(str(self.monitor))
                    s.sendall(b"quit\n")
            except OSError:
                pass
            try:
                self.proc.wait(QUIT_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()  # hung on a closed pty with output pending
                self.proc.wait(QUIT_TIMEOUT)
        self.proc.stdout.close()
