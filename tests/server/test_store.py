"""The store's group commit: many commits in one pipeline, each still its own compare-and-set; a store that lost
its scripts (a restart, ``SCRIPT FLUSH``) gets them back without a commit being lost or applied twice.  How long
tables live, and the lobby's index of open tables."""

from __future__ import annotations

import asyncio
import secrets
import time

import msgspec
import pytest
import redis.asyncio as aioredis

from server.store import (
    ABANDONED,
    LOBBY_TTL,
    NO_PREFIX,
    TABLE_TTL,
    Batch,
    Conflict,
    Crowded,
    Keys,
    Notice,
    Store,
    TableMeta,
    decode_batch,
    decode_notice,
    encode,
)


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


async def test_a_notice_goes_out_only_to_other_listening_processes(store_url: str) -> None:
    """The committing process delivers to its own followers; the script publishes the notice (built by the
    script, decoded as ``Notice``) only when someone else listens, or when the committer asks for it."""
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    table = secrets.token_hex(4)
    mine, other = client.pubsub(), client.pubsub()

    async def notices(pubsub: aioredis.client.PubSub) -> list[Notice]:
        found = []
        while (message := await pubsub.get_message(timeout=0.2)) is not None:
            if message["type"] == "message":
                found.append(decode_notice(message["data"]))
        return found

    try:
        assert await store.create(table, meta())
        await mine.subscribe(NO_PREFIX.channel(table))  # this process's hub
        await store.commit(table, 0, meta(), b"state-1", Batch(seq=1, at=0.0))
        assert await notices(mine) == []  # nobody else listens: no notice at all

        await other.subscribe(NO_PREFIX.channel(table))  # a second process follows the table
        await store.commit(table, 1, meta(), None, Batch(seq=2, at=0.0), "c:0:x")
        (notice,) = await notices(other)
        assert (notice.meta, notice.state, notice.origin) == (encode(meta()), b"", store.origin)
        assert decode_batch(notice.batch).cmd == "c:0:x"
        assert await notices(mine) == [notice]  # seen here too, and skipped by its origin

        await other.unsubscribe(NO_PREFIX.channel(table))
        await store.commit(table, 2, meta(), b"state-3", Batch(seq=3, at=0.0), local=False)
        (notice,) = await notices(mine)  # a commit this process's fan-out must deliver: always announced
        assert (notice.state, notice.origin, decode_batch(notice.batch).seq) == (b"state-3", "", 3)
    finally:
        await mine.aclose()  # type: ignore[no-untyped-call]
        await other.aclose()  # type: ignore[no-untyped-call]
        await client.delete(*(f"{{t:{table}}}{suffix}" for suffix in ("", ":log", ":cmd")))
        await client.aclose()


async def test_a_lobby_nobody_comes_back_to_expires_in_a_day_a_game_in_a_week(store_url: str) -> None:
    """A public table where nobody sits lives ``ABANDONED`` past its last change (created, or left by everyone), one
    where someone waits a day, a private one a day however empty (shared by its id), a game a week; its log and its
    chat as long (a line said in the lobby kept its day only, then went in the middle of a long game)."""
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    table, private = secrets.token_hex(4), secrets.token_hex(4)
    try:
        assert await store.create(table, meta())
        assert 0 < await client.ttl(NO_PREFIX.record(table)) <= ABANDONED
        assert await store.create(private, msgspec.structs.replace(meta(), private=True))
        assert ABANDONED < await client.ttl(NO_PREFIX.record(private)) <= LOBBY_TTL
        waiting = msgspec.structs.replace(meta(), names=["ada", None])
        await store.commit(table, 0, waiting, None, Batch(seq=1, at=0.0))  # a join: still a lobby
        assert ABANDONED < await client.ttl(NO_PREFIX.record(table)) <= LOBBY_TTL
        await store.commit(table, 1, meta(), None, Batch(seq=2, at=0.0))  # she leaves: nobody sits
        assert 0 < await client.ttl(NO_PREFIX.record(table)) <= ABANDONED
        assert 0 < await client.ttl(NO_PREFIX.log(table)) <= ABANDONED
        await store.commit(table, 2, waiting, None, Batch(seq=3, at=0.0))
        await store.say(table, 0, "ada", "hello")
        assert ABANDONED < await client.ttl(NO_PREFIX.chat(table)) <= LOBBY_TTL
        playing = msgspec.structs.replace(waiting, status="playing")
        await store.commit(table, 3, playing, b"state", Batch(seq=4, at=0.0))
        for key in (NO_PREFIX.record(table), NO_PREFIX.log(table), NO_PREFIX.chat(table)):
            assert LOBBY_TTL < await client.ttl(key) <= TABLE_TTL, key
    finally:
        await client.delete(*(f(table) for f in (NO_PREFIX.record, NO_PREFIX.log, NO_PREFIX.chat)))
        await client.delete(NO_PREFIX.record(private))
        await client.zrem(NO_PREFIX.open, table)
        await client.aclose()


async def test_the_lobby_lists_the_latest_changed_first_and_forgets_the_expired(store_url: str) -> None:
    """Listed oldest first, tables left waiting (a day at most) would hide every new one past the first 200."""
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    first, second, gone = (secrets.token_hex(4) for _ in range(3))
    try:
        for table in (first, second):
            assert await store.create(table, msgspec.structs.replace(meta(), created=time.time()))
        await client.zadd(NO_PREFIX.open, {gone: time.time() - LOBBY_TTL - 1})  # an entry its table outlived
        listed = [table for table, _, _ in (await store.lobby()).open]
        assert listed.index(second) < listed.index(first)
        await store.set_open(first, (await store.load(first)).meta)  # a change at the first: a join, say
        listed = [table for table, _, _ in (await store.lobby()).open]
        assert listed.index(first) < listed.index(second)
        assert await client.zscore(NO_PREFIX.open, gone) is None
    finally:
        await client.zrem(NO_PREFIX.open, first, second)
        await client.delete(NO_PREFIX.record(first), NO_PREFIX.record(second))
        await client.aclose()


async def test_a_lobby_read_of_one_game_pages_through_the_others_up_to_a_bound(store_url: str) -> None:
    """A read of one game's tables goes on past other games' (``LISTED_PAGES`` pages of ``limit`` at most: each
    page is a round trip of records read), and a game this server has not is not read at all."""
    from server.store import LISTED_PAGES, Keys

    client = aioredis.Redis.from_url(store_url)
    keys = Keys.named(f"pages{secrets.token_hex(4)}")
    store = Store(client, keys)
    spook = msgspec.structs.replace(meta(), game="spook")
    try:
        near, far = "near", "far"
        now = time.time()
        assert await store.create(far, msgspec.structs.replace(meta(), created=now))
        for i in range(2 * LISTED_PAGES - 1):
            assert await store.create(f"s{i}", msgspec.structs.replace(spook, created=now + 1 + i))
        assert await store.create(near, msgspec.structs.replace(meta(), created=now + 2 * LISTED_PAGES))
        for i in range(2 * LISTED_PAGES - 1, 3 * LISTED_PAGES):
            assert await store.create(f"s{i}", msgspec.structs.replace(spook, created=now + 1 + 2 * LISTED_PAGES + i))
        # newest first: LISTED_PAGES + 1 spook tables, near, 2 * LISTED_PAGES - 1 spook tables, far
        assert [t for t, _, _ in await store.read_open_tables(2, "mansion")] == [near]
        assert [t for t, _, _ in await store.read_open_tables(LISTED_PAGES * 3, "mansion")] == [near, far]
        assert len(await store.read_open_tables(2)) == 2  # every game's: one page
        assert (await store.lobby("no-such-game")).open == []
        assert [t for t, _, _ in (await store.lobby("mansion")).open] == [near, far]
    finally:
        await client.delete(*[key async for key in client.scan_iter(match=f"{keys.prefix}*")])
        await client.aclose()


async def test_abandoned_tables_are_neither_listed_nor_counted_until_a_player_is_back(store_url: str) -> None:
    """Tables unchanged for ``abandoned_after``, each kept a day (as an older hauntd left them, during a rolling
    upgrade, or one with a seat taken): one nobody sits at is neither listed nor counted against its creator and
    leaves the index (its record is left to expire); one whose seated player is present (``Store.present``) is both;
    one whose player is not leaves ``waiting``, the list and the count, and is back in the first two once the
    player is.  A ``Crowded`` create stores nothing."""
    client = aioredis.Redis.from_url(store_url)
    keys = Keys.named(f"quiet{secrets.token_hex(4)}")
    store, cap = Store(client, keys, abandoned_after=60), ("198.51.100.7", 2)
    before = time.time() - 61  # the tables' last change, as the index says
    seated = msgspec.structs.replace(meta(), names=["ada", None])
    try:
        for table in ("empty", "waited", "ghost"):
            assert await store.create(table, msgspec.structs.replace(meta(), created=before), cap=cap)
            await client.expire(keys.record(table), LOBBY_TTL)
            if table != "empty":
                await store.commit(table, 0, seated, None, Batch(seq=1, at=0))
                await client.zadd(keys.waiting, {table: before})  # (its ``set_open`` then)
            if table == "waited":
                await store.present([table])
        assert await store.create("fresh", msgspec.structs.replace(meta(), created=time.time()), cap=cap)
        with pytest.raises(Crowded):
            await store.create("crowded", msgspec.structs.replace(meta(), created=time.time()), cap=cap)
        assert not await client.exists(keys.record("crowded"))
        assert [table for table, _, _ in await store.read_open_tables()] == ["waited", "fresh"]
        assert await client.zscore(keys.open, "empty") is None and await client.exists(keys.record("empty"))
        assert await client.zscore(keys.waiting, "ghost") is None
        assert {t.decode() for t in await client.zrange(keys.opened(cap[0]), 0, -1)} == {"waited", "fresh"}
        await store.present(["ghost"])  # Ada is back
        assert await client.zscore(keys.waiting, "ghost") == await client.zscore(keys.open, "ghost")
        assert [table for table, _, _ in await store.read_open_tables()] == ["waited", "ghost", "fresh"]
    finally:
        await client.delete(*[key async for key in client.scan_iter(match=f"{keys.prefix}*")])
        await client.aclose()
