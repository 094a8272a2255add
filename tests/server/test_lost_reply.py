"""A commit whose reply is lost on the way back (the connection to the store drops just after the script ran):
redis-py sends it again on a new connection (``App``'s ``Retry``), so the table service meets its own change as
a rival's.  Shown through a real TCP proxy in front of the store that cuts one reply."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlparse

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from protocol.errors import Code, ProtocolError
from protocol.messages import Create, Events, Join
from server.hub import Hub
from server.metrics import Metrics
from server.service import TableService
from server.store import NO_PREFIX, Store
from tests.server.test_hub import Socket


class ReplyCutter:
    """Forwards a Redis connection's bytes both ways; once ``armed``, the first reply to an ``EVALSHA`` is not
    forwarded: the client's connection is closed instead (the script has run)."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.armed = False
        self.cut = 0
        self.server: asyncio.Server | None = None
        self.open: set[asyncio.StreamWriter] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in self.open:
            writer.transport.abort()
        await asyncio.sleep(0.05)  # the pumps see their sockets closed and end

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        store_r, store_w = await asyncio.open_connection(*self.upstream)
        self.open |= {client_w, store_w}
        script_sent = asyncio.Event()

        async def up() -> None:
            while data := await _read(client_r):
                if self.armed and b"EVALSHA" in data.upper():
                    script_sent.set()
                store_w.write(data)
                await store_w.drain()

        async def down() -> None:
            while data := await _read(store_r):
                if script_sent.is_set() and self.armed:
                    self.armed = False
                    self.cut += 1
                    client_w.transport.abort()  # the reply is lost; the script ran
                    return
                client_w.write(data)
                await client_w.drain()

        with contextlib.suppress(ConnectionError):
            await asyncio.gather(up(), down())  # each ends when its side closes: both do, once either does
        client_w.transport.abort()
        store_w.transport.abort()
        self.open -= {client_w, store_w}


async def _read(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.read(65536)
    except ConnectionError:
        return b""


@pytest.fixture
async def cutter(store_url: str) -> AsyncIterator[tuple[ReplyCutter, Store]]:
    url = urlparse(store_url)
    proxy = ReplyCutter(url.hostname or "127.0.0.1", url.port or 6379)
    port = await proxy.start()
    db = int(url.path.lstrip("/") or 0)
    client = aioredis.Redis(host="127.0.0.1", port=port, db=db, password=url.password, retry=Retry(NoBackoff(), 1))
    yield proxy, Store(client)
    await client.aclose()
    await proxy.close()


async def test_a_join_whose_reply_was_lost_takes_one_seat(cutter: tuple[ReplyCutter, Store]) -> None:
    proxy, store = cutter
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=3))
    hub = Hub(table, await store.load(table), store)
    await service.join(hub, Join(table=table, name="A"))  # (the commit script is loaded now)
    proxy.armed = True
    seat, _, seq = await service.join(hub, Join(table=table, name="B"))  # a token drawn by the server
    assert proxy.cut == 1  # the commit's first reply was lost, and redis-py sent it again
    record = await store.load(table)
    assert (seat, seq) == (1, 2) and record.seq == 2
    assert record.meta.names == ["A", "B", None]  # one seat for one join, not two


async def table_keys(client: aioredis.Redis) -> set[bytes]:
    return {k async for k in client.scan_iter(match="{t:*}", count=1000)}


async def test_a_create_whose_reply_was_lost_makes_one_table(cutter: tuple[ReplyCutter, Store]) -> None:
    proxy, store = cutter
    service = TableService(store, Metrics())
    await service.create(Create(game="mansion", seats=2))  # (the create script is loaded now)
    before = await table_keys(store.redis)
    proxy.armed = True
    table = await service.create(Create(game="mansion", seats=2))
    assert proxy.cut == 1  # the script's first reply was lost, and redis-py sent it again
    assert await table_keys(store.redis) - before == {b"{t:" + table.encode() + b"}"}  # no orphan beside it


async def seated(store: Store, seats: int = 2) -> tuple[TableService, Hub, list[str]]:
    """A public table with every seat taken, its hub followed by one socket (the commit script is loaded)."""
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=seats))
    hub = Hub(table, await store.load(table), store)
    tokens = [(await service.join(hub, Join(table=table, name=f"P{i}")))[1] for i in range(seats)]
    return service, hub, tokens


async def test_a_leave_whose_reply_was_lost_answers_left(cutter: tuple[ReplyCutter, Store]) -> None:
    """The store ran the leave; redis-py sent it again; the table no longer seats that token.  The answer is
    still ``left``, with the seq it committed as, and the hub (its followers, the lobby index) has it."""
    proxy, store = cutter
    service, hub, tokens = await seated(store)
    follower = Socket()
    await hub.attach(follower, None, None, None)
    assert await store.redis.zscore(NO_PREFIX.open, hub.table) is None  # full
    proxy.armed = True
    seq = await service.leave(hub, tokens[1])
    assert proxy.cut == 1
    record = await store.load(hub.table)
    assert seq == record.seq == 3 and record.meta.names == ["P0", None]
    assert hub.seq == 3 and [m.seq for m in follower.got if isinstance(m, Events)] == [3]
    assert await store.redis.zscore(NO_PREFIX.open, hub.table) is not None  # open again
    # nobody else is answered ``left`` for it: the same token again, a wrong token
    for token in (tokens[1], "not-a-token-of-this-table"):
        with pytest.raises(ProtocolError) as refused:
            await service.leave(hub, token)
        assert refused.value.code == Code.AUTH
    assert (await store.load(hub.table)).seq == 3


@pytest.mark.parametrize("cmd", [None, "s-1"])
async def test_a_start_whose_reply_was_lost_answers_started(cutter: tuple[ReplyCutter, Store], cmd: str | None) -> None:
    proxy, store = cutter
    service, hub, tokens = await seated(store)
    proxy.armed = True
    seq = await service.start(hub, tokens[0], cmd)
    assert proxy.cut == 1
    record = await store.load(hub.table)
    assert seq == record.seq == 3 and record.meta.status == "playing"
    assert hub.latest.seq == 3 and hub.state is not None
    # only that very start is answered ``started``: another seat's, a wrong token's, even with the same cmd, not
    for token in (tokens[1], "not-a-token-of-this-table"):
        with pytest.raises(ProtocolError) as refused:
            await service.start(hub, token, cmd)
        assert refused.value.code == Code.ALREADY_STARTED
    if cmd is not None:  # its own retry (same token, same cmd) gets its seq
        assert await service.start(hub, tokens[0], cmd) == 3
