"""Abandoned lobby tables (``ABANDONED``, ``serve --abandoned-after``): a public table no person is at (nobody sits,
or nobody seated has a connection following it) leaves the lobby and its creator's count of open tables
(``open_limit``) soon after its last change, over real sockets, two server processes on one store; one where someone
waits keeps its place, and a player back at a table puts it back."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import redis
from websockets.asyncio.client import ClientConnection, connect

from protocol.errors import Code
from tests.server.conftest import ServerFactory, ServerProcess
from tests.waiting import until

AFTER = 3  # seconds: ``--abandoned-after`` here (a note of presence each second)


async def ask(ws: ClientConnection, frame: dict[str, Any]) -> dict[str, Any]:
    """Send ``frame``: its reply (the updates of a table the connection follows, coming between, skipped)."""
    ref = secrets.token_hex(4)
    await ws.send(json.dumps({**frame, "ref": ref}))
    while (msg := json.loads(await asyncio.wait_for(ws.recv(), 10))).get("ref") != ref:
        pass
    return dict(msg)


async def listed(ws: ClientConnection) -> set[str]:
    reply = await ask(ws, {"type": "list"})
    return {row["table"] for row in reply["tables"]}


async def test_abandoned_tables_leave_the_lobby_and_the_cap_on_every_process(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """An address that created public tables and left them (the page closed before anyone came, after its
    create-then-join or before the join) was held at its ``open_limit`` for a day, and the lobby listed the dead
    tables as long.  Now, ``--abandoned-after`` past its last change, a table nobody sits at is gone, and one whose
    seated player has no connection left is out of the list and the count (kept, for its player to come back to),
    on both processes; the table where its creator waits, connected, stays listed and counted."""
    prefix = f"abandon{secrets.token_hex(4)}"
    args = ("--key-prefix", prefix, "--open-tables-per-ip", "3", "--trusted-proxy", "127.0.0.1")
    one, two = (start_server(*args, "--abandoned-after", str(AFTER)) for _ in range(2))

    async def hello_from(server: ServerProcess) -> ClientConnection:
        ws = await connect(server.url, additional_headers={"X-Forwarded-For": "198.51.100.9"})
        await ask(ws, {"type": "hello", "version": 1})
        return ws

    a, b, c = await hello_from(one), await hello_from(two), await hello_from(one)
    try:
        create = {"type": "create", "game": "spook", "seats": 2}
        empty, waited, closed = [(await ask(ws, create))["table"] for ws in (a, b, c)]
        assert (await ask(b, {"type": "join", "table": waited, "name": "Ada"}))["type"] == "joined"
        token = (await ask(c, {"type": "join", "table": closed, "name": "Bo"}))["token"]
        await c.close()  # the page closed
        assert (await ask(a, create))["code"] == Code.OPEN_LIMIT
        assert {empty, waited, closed} <= await listed(a)
        assert 0 < sync_redis.ttl(f"{prefix}:{{t:{empty}}}") <= AFTER
        await asyncio.sleep(AFTER + 1.2)  # (a lobby read is kept a second)
        assert sync_redis.exists(f"{prefix}:{{t:{empty}}}") == 0
        assert min(sync_redis.ttl(f"{prefix}:{{t:{table}}}") for table in (waited, closed)) > 3600
        for ws in (a, b):
            tables = await listed(ws)
            assert waited in tables and not {empty, closed} & tables
        fresh = [(await ask(ws, create))["table"] for ws in (b, a)]  # only the waited one counts, on either process
        assert (await ask(a, create))["code"] == Code.OPEN_LIMIT
        assert {waited, *fresh} <= await listed(b)
        assert sync_redis.zscore(f"{prefix}:hauntd:open", empty) is None  # (its index entry dropped at the read)
        c = await hello_from(two)  # Bo is back, on the other process
        await ask(c, {"type": "resume", "table": closed, "token": token, "last_seq": 1, "back": True})

        async def listed_again() -> bool:  # (within a note of its presence, and a lobby read)
            return closed in await listed(a)

        assert await until(listed_again, 10), "the table Bo came back to was not listed again"
    finally:
        for ws in (a, b, c):
            await ws.close()
        sync_redis.delete(*sync_redis.scan_iter(match=f"{prefix}:*", count=1000))
