"""Where the simulated table meets its host: in process, on a pseudo-terminal, over TCP.

    host_line = connect_in_process(loop, table)      # virtual time welcome
    async with serve_pty(table) as path: ...         # "/dev/pts/7", as a serial device
    async with serve_tcp(table, "127.0.0.1", 0) as url: ...   # "socket://127.0.0.1:40123"
"""
from __future__ import annotations

import asyncio
import os
import tty
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from firmware_protocol.transport import FdTransport, Impairment, MemoryTransport, StreamTransport, memory_pair
from sim.table import SimulatedTable


def connect_in_process(loop: asyncio.AbstractEventLoop, table: SimulatedTable, impairment: Impairment | None = None,
                       seed: int = 0, byte_time: float = 1e-5) -> MemoryTransport:
    """Attach the table to one end of an in-memory line; return the host's end."""
    host_end, table_end = memory_pair(loop, byte_time, impairment, seed)
    table.attach(table_end)
    return host_end


@asynccontextmanager
async def serve_pty(table: SimulatedTable) -> AsyncIterator[str]:
    """Serve on a new pseudo-terminal; yields the device path for the host to open.

    The slave stays open here, in raw mode, so the host can open and close it as often
    as it likes without the master seeing a hang-up or the line discipline cooking bytes.
    """
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        table.attach(FdTransport(master, asyncio.get_running_loop()))
        yield os.ttyname(slave)
    finally:
        table.firmware.detach()  # closes the master
        os.close(slave)


@asynccontextmanager
async def serve_tcp(table: SimulatedTable, host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve on TCP; yields the pyserial URL. A new connection replaces the old one."""
    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        table.attach(StreamTransport(reader, writer))

    server = await asyncio.start_server(connected, host, port)
    try:
        bound_host, bound_port = server.sockets[0].getsockname()[:2]
        yield f"socket://{bound_host}:{bound_port}"
    finally:
        server.close()
        table.firmware.detach()
        await server.wait_closed()
