"""The C reference core's size on a microcontroller (targets: the core <= 12 KB of flash and
<= 2 KB of RAM, with 64-byte frames and a window of 4).

`arm-none-eabi-size` of the core's objects built at -Os for Cortex-M0 and M3 (the
Makefile's `sizes` target of firmware_protocol/c): flash is .text + .data; the core has no
RAM of its own, so its RAM is the structs the caller provides (sizeof on the target: the
decoder, the link with its queue and the decoder, the whole table, and the receive
interrupt's byte ring), not counting the stack and the C library's memcpy/memset/memmove.
"""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

C_DIR = Path(__file__).resolve().parents[1] / "firmware_protocol" / "c"
FLASH_TARGET = 12 * 1024
RAM_TARGET = 2 * 1024
LAYERS = (("frame layer", ("mjt_frame",), ("mjt_decoder",)),
          ("link (with the frame layer)", ("mjt_frame", "mjt_link"), ("mjt_link",)),
          ("whole core, no HAL", ("mjt_frame", "mjt_link", "mjt_msg", "mjt_table"), ("mjt_table", "mjt_rx_ring")))


def flash(build: Path, cpu: str, module: str) -> int:
    out = subprocess.run(["arm-none-eabi-size", str(build / cpu / f"{module}.o")], capture_output=True, text=True,
                         check=True).stdout.splitlines()[1].split()
    return int(out[0]) + int(out[1])  # text + data


def struct_sizes(build: Path, cpu: str) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-nm", "-S", str(build / cpu / "sizeof.o")], capture_output=True, text=True,
                         check=True).stdout
    return {name.removeprefix("sizeof_"): int(size, 16) for _, size, _, name in (line.split() for line in out.splitlines())}


def main() -> None:
    with tempfile.TemporaryDirectory() as build:
        subprocess.run(["make", "-s", "-C", str(C_DIR), f"BUILD={build}", "sizes"], check=True,
                       stdout=subprocess.DEVNULL)
        print("firmware: the C core at -Os (arm-none-eabi-gcc), 64-byte frames, window 4, queue of 10 messages")
        print(f"  {'part':<30}{'cpu':>6}{'flash B':>9}{'RAM B':>7}")
        for cpu in ("m0", "m3"):
            structs = struct_sizes(Path(build), cpu)
            for label, modules, state in LAYERS:
                rom = sum(flash(Path(build), cpu, m) for m in modules)
                ram = sum(structs[s] for s in state)
                verdict = ""
                if label.startswith("whole"):
                    verdict = "  met" if rom <= FLASH_TARGET and ram <= RAM_TARGET else "  OVER"
                print(f"  {label:<30}{'M' + cpu[1]:>6}{rom:>9}{ram:>7}{verdict}")
        print(f"  target: whole core <= {FLASH_TARGET} B flash and <= {RAM_TARGET} B RAM (stack and libc not counted)")


if __name__ == "__main__":
    main()
