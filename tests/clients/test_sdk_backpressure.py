"""The SDK's inbox is bounded (``max_queue``): a client that stops reading stops reading its socket too, holds a
fixed number of updates, and either catches up when it reads again or is cut off by the server's slow-consumer
protection, after which it reconnects and resumes once it reads: every update still arrives once, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis

from clients.sdk import Client
from protocol.messages import Events, GameOver, ListTables, ServerMsg, Snapshot
from server.launch import ServerProcess
from server.store import NO_PREFIX
from tests.server.conftest import ServerFactory
from tests.server.players import close, play, seat_players

HIGH, LOW = 16, 4


def deepest(client: Client) -> Callable[[], int]:
    """Record the most updates the client's inbox ever held; returns a reader of that."""
    inbox = client._inbox
    put, most = inbox.put, [0]

    def counted(item: object) -> None:
        put(item)  # type: ignore[arg-type]
        most[0] = max(most[0], len(inbox))

    inbox.put = counted  # type: ignore[method-assign]
    return lambda: most[0]


async def read_all(client: Client) -> list[ServerMsg]:
    got = []
    with pytest.raises(TimeoutError):
        while True:
            got.append(await client.recv(timeout=2))
    return got


def assert_each_once_in_order(got: list[ServerMsg], tables: dict[str, int]) -> None:
    """Per table: a snapshot, then every update after it up to the last (``tables``: table → final seq), each
    once and in order, then its game over."""
    for table, final in tables.items():
        mine = [m for m in got if getattr(m, "table", None) == table]
        first = next(m for m in mine if isinstance(m, Snapshot))
        seqs = [m.seq for m in mine if isinstance(m, Events)]
        assert seqs == list(range(first.seq + 1, final + 1)), (table, first.seq, seqs)
        assert [m.seq for m in mine if isinstance(m, GameOver)] == [final]


def cut_off(server: ServerProcess) -> bool:
    return any(line.get("event") == "slow_consumer_dropped" for line in server.log_lines())


async def test_a_client_that_stops_reading_holds_max_queue_and_catches_up_when_it_reads(
    server: ServerProcess,
) -> None:
    table, players = await seat_players([server.url], seats=2, seed=9)
    slow = Client(server.url, max_queue=(HIGH, LOW), request_timeout=1.0)
    await slow.connect()
    most = deepest(slow)
    try:
        await slow.watch(table)
        await play(players)  # a whole game, more than a hundred updates, none of them read
        final = players[0].client.last_seq[table]
        assert final > 2 * HIGH and slow.pauses == 1
        assert most() == HIGH + 1  # (the rest of what the socket read meanwhile is held undecoded)
        # a request made while reading is stopped gets no reply, and says why
        with pytest.raises(TimeoutError, match="max_queue"):
            await slow.ping()
        got = await read_all(slow)
        assert_each_once_in_order(got, {table: final})
        assert slow.reconnects == 0 and slow.gaps == 0 and slow.repeats == 0
        assert await slow.ping() < 1  # reading again
        assert not cut_off(server)
    finally:
        await close(players)
        await slow.close()


async def test_a_client_that_never_reads_is_cut_off_by_the_server_and_resumes_when_it_reads(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """The server keeps 16 frames at most for a client that does not read.  The client stops reading during a
    game it watches; then it floods the server with ``list`` requests (their long replies pile up unread in
    front of the rest of the game) until the server cuts it off."""
    server = start_server("--send-queue", "16", "--max-tables", "1000", "--rate", "1e6", "--burst", "1000000")
    lobby = Client(server.url)
    await lobby.connect()
    listed = [await lobby.create("mansion", 4) for _ in range(200)]  # a long ``tables`` reply: about 20 kB
    await lobby.close()
    table, players = await seat_players([server.url], seats=2, seed=9)
    slow = Client(server.url, max_queue=(HIGH, LOW))
    await slow.connect()
    most = deepest(slow)
    try:
        await slow.watch(table)
        await play(players, stop_at=3 * HIGH)
        while slow.pauses == 0:
            await asyncio.sleep(0.01)
        for _ in range(100):
            for _ in range(50):
                await slow._send(ListTables())  # (sent without waiting: no reply is read now)
            await asyncio.sleep(0.05)
            if cut_off(server):
                break
        assert cut_off(server), "the server never cut the client off"
        await play(players)
        final = players[0].client.last_seq[table]
        assert slow.pauses == 1 and most() == HIGH + 1 and slow.reconnects == 0
        got = await read_all(slow)  # reading again: the rest of the socket, the close, a reconnect, the resume
        assert slow.reconnects == 1 and slow.gaps == 0 and slow.repeats == 0
        assert_each_once_in_order(got, {table: final})
        assert slow.connected and await slow.ping() < 1
    finally:
        await close(players)
        await slow.close()
        sync_redis.zrem(NO_PREFIX.open, *listed)  # (the store is shared: other tests list open tables)
    errors = [line for line in server.log_lines() if line.get("level") == "error" or "exception" in line]
    assert errors == []
