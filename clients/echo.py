"""The echo baseline of ``hauntd loadtest --baseline echo``: what bare ``websockets`` does on this machine.

A server that sends every text frame straight back, and clients (one connection per table) that each send their
next frame as soon as the reply arrives.  Its round trips per second are the ceiling a game server built on the
same library and the same machine is compared with (``ratio`` in the load test's report).
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

# About the size of an ``act`` frame, so the baseline moves the same bytes per round trip as a bot does.
PAYLOAD = (
    b'{"type":"act","table":"sFES2VRX","token":"aYPNHt8nv-v3qS-CKJNWog","cmd":"0123456789abcdef",'
    b'"action":{"type":"move","to":2},"seq":3,"ref":"17"}'
)


async def _echo(ws: ServerConnection) -> None:
    async for frame in ws:
        await ws.send(frame)


async def _serve(host: str) -> None:
    async with serve(_echo, host, 0, compression=None, max_queue=8) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


@contextlib.contextmanager
def echo_server(host: str = "127.0.0.1") -> Iterator[tuple[str, int]]:
    """A bare echo server in its own process (as the game server is); yields its ``ws://`` address and pid."""
    process = subprocess.Popen([sys.executable, "-m", "clients.echo", host], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"ws://{host}:{port}", process.pid
    finally:
        process.terminate()
        process.wait(10)


async def echo_rate(
    url: str,
    connections: int,
    seconds: float,
    *,
    on_start: Callable[[], None] = lambda: None,
    on_end: Callable[[], None] = lambda: None,
) -> int:
    """Round trips over ``connections`` connections, each one frame in flight, for ``seconds``.  ``on_start`` and
    ``on_end`` are called as that window opens (every connection open) and closes (before any is closed): what
    is measured around them leaves the handshakes and the closes out."""
    sockets = [await connect(url, compression=None, max_size=None) for _ in range(connections)]
    count = 0
    deadline = 0.0

    async def loop(ws: object) -> None:
        nonlocal count
        send, recv = ws.send, ws.recv  # type: ignore[attr-defined]
        while time.perf_counter() < deadline:
            await send(PAYLOAD, text=True)
            await recv(decode=False)
            count += 1

    try:
        on_start()
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(loop(ws) for ws in sockets))
        on_end()
        return count
    finally:
        for ws in sockets:
            await ws.close()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"))
