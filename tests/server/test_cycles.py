"""A closed connection is freed at once, by reference counting, whatever it was refused: the server relaxes the
cyclic collector (``relax_gc``), so a connection kept in a reference cycle (an exception's traceback holding
a frame that holds the exception) would hold its socket's buffers until a rare collection."""

from __future__ import annotations

import asyncio
import gc
import json
import socket

from websockets.asyncio.client import connect

from server.app import App, Settings
from server.connection import Connection

HELLO = {"type": "hello", "version": 1}
REFUSED = {
    "not_found join": {"type": "join", "table": "nope", "name": "x"},
    "not_found watch": {"type": "watch", "table": "nope"},
    "not_found act": {"type": "act", "table": "nope", "token": "x", "cmd": "c", "action": {"type": "move"}},
    "malformed": "{nope",
    "unknown": {"type": "shout"},
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _refused(url: str, frame: object) -> str:
    async with connect(url) as ws:
        await ws.send(json.dumps(HELLO))
        await ws.recv()
        await ws.send(frame if isinstance(frame, str) else json.dumps(frame))
        reply: str = json.loads(await ws.recv())["code"]
        return reply


async def test_refused_commands_leave_no_connection_to_the_cyclic_collector(valkey_url: str) -> None:
    port = _free_port()
    app = App(Settings(port=port, redis_url=valkey_url))
    stop: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    running = asyncio.create_task(app.run(stop))
    url = f"ws://127.0.0.1:{port}"
    for _ in range(100):
        try:
            async with connect(url):
                break
        except OSError:
            await asyncio.sleep(0.05)
    gc.collect()
    gc.disable()
    before = {id(o) for o in gc.get_objects() if type(o) is Connection}  # (this test's probe is freed already)
    try:
        codes = {name: await _refused(url, frame) for name, frame in REFUSED.items()}
        assert codes == {
            "not_found join": "not_found",
            "not_found watch": "not_found",
            "not_found act": "not_found",
            "malformed": "malformed",
            "unknown": "unknown_type",
        }
        for _ in range(250):  # the handlers end once the close handshake is through (5 s at most)
            if not app.guard.live:
                break
            await asyncio.sleep(0.02)
        kept = [o for o in gc.get_objects() if type(o) is Connection and id(o) not in before]  # (cycles too)
        assert kept == []
    finally:
        gc.enable()
        stop.set_result(None)
        await running
