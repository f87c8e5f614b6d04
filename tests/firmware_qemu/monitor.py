"""`python monitor.py SOCKET COMMAND`: one command to a QEMU monitor on a unix socket
(`system_reset` resets the emulated MCU as its reset line would)."""
import socket
import sys
import time

PROMPT = b"(qemu) "


def send(path: str, command: str) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(path)
        seen = b""
        while not seen.endswith(PROMPT):
            seen += s.recv(4096)
        s.sendall(command.encode() + b"\n")
        time.sleep(0.1)  # let QEMU act before the socket closes


if __name__ == "__main__":
    send(sys.argv[1], sys.argv[2])
