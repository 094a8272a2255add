"""A closed connection is freed at once, by reference counting, whatever it was refused: the server relaxes the
cyclic collector (``relax_gc``), so a connection kept in a reference cycle (an exception's traceback holding
a frame that holds the exception) would hold its socket's buffers until a rare collection."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import socket
from collections.abc import AsyncIterator

from websockets.asyncio.client import connect

from clients.sdk import Client
from server.app import App, Settings
from server.connection import Connection
from tests.server.players import Player

HELLO = {"type": "hello", "version": 1}
REFUSED = {
    "not_found join": {"type": "join", "table": "nope", "name": "x"},
    "not_found watch": {"type": "watch", "table": "nope"},
    "not_found act": {"type": "act", "table": "nope", "token": "x", "cmd": "c", "action": {"type": "move"}},
    "not_found rematch": {"type": "rematch", "table": "nope", "token": "x"},
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


@contextlib.asynccontextmanager
async def _serving(valkey_url: str) -> AsyncIterator[tuple[App, str]]:
    """A server in this process, its URL, and the connections made from here on left to reference counting alone
    (the cyclic collector off): at the end, none of them may be left in memory once closed."""
    port = _free_port()
    app = App(Settings(port=port, redis_url=valkey_url, messages_per_second=1e6, burst=1_000_000))
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
        yield app, url
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


async def test_refused_commands_leave_no_connection_to_the_cyclic_collector(valkey_url: str) -> None:
    async with _serving(valkey_url) as (_, url):
        codes = {name: await _refused(url, frame) for name, frame in REFUSED.items()}
        assert codes == {
            "not_found join": "not_found",
            "not_found watch": "not_found",
            "not_found act": "not_found",
            "not_found rematch": "not_found",
            "malformed": "malformed",
            "unknown": "unknown_type",
        }


async def test_a_connection_keeping_a_finished_table_for_its_rematch_is_freed_at_its_close(valkey_url: str) -> None:
    """It and the table's hub hold each other (``Connection.finished``, ``Hub.after``) until it closes."""
    async with _serving(valkey_url) as (app, url), Client(url) as client:
        table = await client.create("ghost-at-home", 2, bots=1, bot_strategy="random")
        held = await client.join(table, "Ada")
        await client.start(table)
        await asyncio.wait_for(Player(client, table, held.seat, random.Random(1)).run(), 60)
        hub = app.fanout.hubs[table]
        assert len(hub.after) == 1  # (kept: it hears of the rematch)
        await client.rematch(table)
    assert hub.after == {}
