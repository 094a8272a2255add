"""The schedule in Redis: the commit writes a table's earliest deadline atomically, a claim is exclusive, and a
stale claim can never undo a newer commit's entry."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator

import msgspec
import pytest
import redis.asyncio as aioredis

from server.schedule import Schedule
from server.store import NO_PREFIX, Batch, Store, TableMeta


@pytest.fixture
async def client(store_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(store_url)
    yield client
    await client.aclose()


async def commit(store: Store, table: str, seq: int, meta: TableMeta) -> None:
    await store.commit(table, seq, meta, b"state", Batch(seq=seq + 1, at=time.time()))


async def test_commit_claim_settle(client: aioredis.Redis) -> None:
    store, schedule = Store(client), Schedule(client)
    table = "sched-" + secrets.token_hex(4)
    meta = TableMeta(game="mansion", seats=2, turn_seconds=5.0, names=["a", "b"], tokens=[None, None])
    await store.create(table, meta)
    now = time.time()
    playing = msgspec.structs.replace(meta, status="playing", deadlines={0: now - 1.0, 1: now + 9.0})
    await commit(store, table, 0, playing)
    assert await client.zscore(NO_PREFIX.due, table) == now - 1.0  # the earliest deadline, written by the commit itself

    lease = now + 5.0
    assert table in await schedule.claim(now, lease, 1000)
    assert await client.zscore(NO_PREFIX.due, table) == lease
    assert table not in await schedule.claim(now, now + 5.5, 1000)  # claimed once: nobody else gets it

    # a commit after the claim overwrites the lease; the stale claim can then change nothing
    moved = msgspec.structs.replace(playing, deadlines={1: now + 3.0})
    await commit(store, table, 1, moved)
    assert await client.zscore(NO_PREFIX.due, table) == now + 3.0
    assert not await schedule.settle(table, lease, None)
    assert not await schedule.settle(table, lease, now + 60.0)
    assert await client.zscore(NO_PREFIX.due, table) == now + 3.0

    # a claim nothing overtook settles: rescheduled, then dropped
    lease = time.time() + 5.0
    assert table in await schedule.claim(now + 3.0, lease, 1000)
    assert await schedule.settle(table, lease, now + 7.0)
    assert await client.zscore(NO_PREFIX.due, table) == now + 7.0
    lease = time.time() + 5.0
    assert table in await schedule.claim(now + 7.0, lease, 1000)
    assert await schedule.settle(table, lease, None)
    assert await client.zscore(NO_PREFIX.due, table) is None

    # the game ends (no deadlines): the commit removes the entry; an untimed table has one only while a nudge's
    # deadline is set, and the commit that drops the deadline (its seat acted) removes it
    await commit(store, table, 2, playing)
    await commit(store, table, 3, msgspec.structs.replace(playing, status="over", deadlines={}))
    assert await client.zscore(NO_PREFIX.due, table) is None
    untimed = "sched-" + secrets.token_hex(4)
    await store.create(untimed, msgspec.structs.replace(meta, turn_seconds=None))
    for seq, deadlines in enumerate([{}, {1: now + 9.0}, {}]):
        await commit(store, untimed, seq, msgspec.structs.replace(playing, turn_seconds=None, deadlines=deadlines))
        assert await client.zscore(NO_PREFIX.due, untimed) == (deadlines[1] if deadlines else None)
