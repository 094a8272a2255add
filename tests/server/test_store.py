"""The store's group commit: many commits in one pipeline, each still its own compare-and-set; a store that lost
its scripts (a restart, ``SCRIPT FLUSH``) gets them back without a commit being lost or applied twice."""

from __future__ import annotations

import asyncio
import secrets

import redis.asyncio as aioredis

from server.store import Batch, Conflict, Store, TableMeta


def meta() -> TableMeta:
    return TableMeta(game="mansion", seats=2, names=[None, None], tokens=[None, None])


async def test_concurrent_commits_share_round_trips_and_stay_atomic(store_url: str) -> None:
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    pipelines: list[int] = []
    run = store._commit._pipeline

    async def counted(calls: list[list[object]]) -> list[object]:
        pipelines.append(len(calls))
        return await run(calls)

    store._commit._pipeline = counted  # type: ignore[method-assign]
    tables = [secrets.token_hex(4) for _ in range(20)]
    try:
        for table in tables:
            assert await store.create(table, meta())
        await client.script_load(store._commit.script.script)  # as it is once a first commit has loaded it

        async def commit(table: str, expected: int) -> int | str:
            try:
                seq, fresh = await store.commit(table, expected, meta(), None, Batch(seq=expected + 1, at=0.0))
            except Conflict as exc:
                return f"conflict at {exc.seq}"
            assert fresh
            return seq

        # two racing commits per table against seq 0: exactly one of each pair wins
        results = await asyncio.gather(*(commit(t, 0) for t in tables for _ in range(2)))
        assert pipelines == [40]  # every commit made while none was in flight went in one round trip
        for table, pair in zip(tables, zip(results[::2], results[1::2], strict=True), strict=True):
            assert sorted(map(str, pair)) == ["1", "conflict at 1"], (table, pair)
            assert (await store.load(table)).seq == 1

        await client.script_flush()  # as after a restart of the store
        assert await asyncio.gather(*(commit(t, 1) for t in tables)) == [2] * len(tables)
        assert pipelines[1:] == [20, 20]  # NOSCRIPT for all: the script loaded, the same commits run again
        for table in tables:
            assert [b.seq for b in await store.batches(table, 0, 2)] == [1, 2]
    finally:
        await client.delete(*[k for t in tables for k in (f"{{t:{t}}}", f"{{t:{t}}}:log")])
        await client.aclose()
