"""Play again: the seats of a finished table ask for its rematch, on any process, and all get the one table."""

from __future__ import annotations

import asyncio
import random

import msgspec
import pytest
import redis

from clients.sdk import Client, ServerError
from protocol.messages import Error, GameOver, Rematch, Rematched, Resume, ServerMsg, Snapshot
from server.store import NO_PREFIX, decode_batch, decode_meta, decode_notice
from tests.server.conftest import ServerFactory
from tests.server.players import Player, close, play

FAST = ("--rate", "1000", "--burst", "1000")  # (random players answer every prompt at once)


async def _seated(
    urls: list[str], people: int, bots: int, start: bool = True, **create: object
) -> tuple[str, list[Player]]:
    """A Ghost at Home table of ``bots`` server-run bots and ``people`` players, player ``i`` connected to
    ``urls[i % len(urls)]``, started unless not ``start``."""
    clients = [Client(urls[i % len(urls)], client=f"player{i}") for i in range(people)]
    for client in clients:
        await client.connect()
    table = await clients[0].create("ghost-at-home", bots + people, bots=bots, bot_strategy="random", **create)
    players = []
    for i, client in enumerate(clients):
        held = await client.join(table, f"P{i}")
        players.append(Player(client, table, held.seat, random.Random(i)))
    if start:
        await clients[0].start(table)
    return table, players


def _tables(sync_redis: redis.Redis) -> int:
    return sum(1 for key in sync_redis.scan_iter("{t:*}") if key.endswith(b"}"))


async def _next(client: Client, kind: type[ServerMsg], timeout: float = 10) -> ServerMsg:
    while not isinstance(msg := await client.recv(timeout=timeout), kind):
        pass
    return msg


async def test_two_seats_on_two_processes_asking_at_once_get_one_rematch_and_everyone_hears(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    a, b = start_server(*FAST), start_server(*FAST)
    old, players = await _seated([a.url, b.url, a.url], people=3, bots=1, private=True, turn_seconds=600)
    watcher = Client(b.url)
    try:
        await watcher.connect()
        await watcher.watch(old)
        await play(players)
        before = _tables(sync_redis)
        asked = await asyncio.gather(*(p.client.rematch(old) for p in players[:2]))  # (seats on a and b)
        new = asked[0].rematch
        assert [r.rematch for r in asked] == [new, new] and asked[0].seat == asked[1].seat in (1, 2)
        assert _tables(sync_redis) == before + 1  # one table made, whoever asked first
        assert sync_redis.hget(NO_PREFIX.record(old), "rematch") == new.encode()
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(new), "meta"))
        assert (meta.game, meta.seats, meta.private, meta.turn_seconds) == ("ghost-at-home", 4, True, 600)
        assert meta.bots == {0: "random"} and meta.names == ["bot-0", None, None, None] and meta.status == "lobby"
        # the seat that did not ask (on a) hears of it, unasked, with nothing but the two ids and a seat
        told = await _next(players[2].client, Rematched)
        assert msgspec.structs.asdict(told) == {"table": old, "rematch": new, "seat": asked[0].seat, "ref": None}
        # a spectator of a private table is not told: the new id is an invitation for its seats (our ruling)
        with pytest.raises(TimeoutError):
            await _next(watcher, Rematched, timeout=1)
        # everyone sits again, each in the seat they had, and the new table starts with its bot
        for p in players:
            assert (await p.client.join(new, f"P{p.seat}", seat=p.seat)).seat == p.seat
        await players[0].client.start(new)
        started = await _next(players[0].client, Snapshot)
        while not (isinstance(started, Snapshot) and started.table == new and started.status == "playing"):
            started = await players[0].client.recv(timeout=10)
        assert [s.bot for s in started.seats] == [True, False, False, False]
    finally:
        await watcher.close()
        for p in players:
            await p.client.close()


async def test_a_seat_coming_back_later_finds_the_rematch_in_the_snapshot_a_spectator_not(
    start_server: ServerFactory,
) -> None:
    server = start_server(*FAST)
    old, players = await _seated([server.url], people=1, bots=1, private=True)
    me = players[0]
    try:
        await play(players)
        token = me.client.seats[old].token
        made = await me.client.rematch(old)
        assert made.seat == me.seat
        again = await me.client.rematch(old)  # (sent again: the same one)
        assert again.rematch == made.rematch
        later, spectator = Client(server.url), Client(server.url)
        await later.connect()
        await spectator.connect()
        snapshot = await later.resume(old, token)
        assert (snapshot.rematch, snapshot.rematch_seat) == (made.rematch, me.seat)
        watched = await spectator.watch(old)
        assert watched.status == "over" and watched.rematch is None and watched.rematch_seat is None
        await later.close()
        await spectator.close()
    finally:
        await me.client.close()


async def test_a_public_tables_spectator_hears_of_its_rematch(start_server: ServerFactory) -> None:
    server = start_server(*FAST)
    old, players = await _seated([server.url], people=1, bots=1)
    watcher = Client(server.url)
    try:
        await watcher.connect()
        await watcher.watch(old)
        await play(players)
        made = await players[0].client.rematch(old)
        told = await _next(watcher, Rematched)
        assert (told.table, told.rematch, told.seat) == (old, made.rematch, players[0].seat)
        assert (await watcher.watch(made.rematch)).status == "lobby"
    finally:
        await watcher.close()
        await players[0].client.close()


async def test_a_rematch_refused_leaves_every_table_as_it_was(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    server = start_server(*FAST, "--tables-per-minute", "1", "--limit-loopback")
    old, players = await _seated([server.url], people=1, bots=1, start=False)  # (its create: the minute's one)
    me = players[0].client
    try:
        before = _tables(sync_redis), sync_redis.hgetall(NO_PREFIX.record(old))
        with pytest.raises(ServerError) as waiting:
            await me.rematch(old)
        assert waiting.value.code == "not_over"
        with pytest.raises(ServerError) as stranger:
            await me._expect(Rematch(table=old, token="not-a-seat-token-at-all"), Rematched)
        assert stranger.value.code == "auth"
        with pytest.raises(ServerError) as unknown:
            await me._expect(Rematch(table="nosuchtable", token="x"), Rematched)
        assert unknown.value.code == "not_found"
        assert (_tables(sync_redis), sync_redis.hgetall(NO_PREFIX.record(old))) == before
        await me.start(old)
        await play(players)
        over = sync_redis.hgetall(NO_PREFIX.record(old))
        with pytest.raises(ServerError) as limited:  # a rematch is a create: within the address's budget
            await me.rematch(old)
        assert limited.value.code == "rate_limited"
        assert _tables(sync_redis) == before[0] and sync_redis.hgetall(NO_PREFIX.record(old)) == over
        assert isinstance(players[0].result, GameOver)
    finally:
        await me.close()


class NoticeBefore(msgspec.Struct, array_like=True):
    """``Notice`` as the version before the rematch has it."""

    batch: bytes
    meta: bytes
    state: bytes
    origin: str = ""
    format: int = 1


async def test_the_rematch_notice_reads_to_the_version_before_as_the_last_update_again(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """So a process of the version before, following the finished table in a rolling upgrade, skips it (an update
    it delivered already) rather than failing on it; this version reads the rematch."""
    server = start_server(*FAST)
    old, players = await _seated([server.url], people=1, bots=1)
    listener = sync_redis.pubsub()
    try:
        await play(players)
        listener.subscribe(NO_PREFIX.channel(old))
        assert listener.get_message(timeout=5)["type"] == "subscribe"  # (so listening before the rematch is made)
        made = await players[0].client.rematch(old)
        message = listener.get_message(timeout=5)
        before = msgspec.msgpack.decode(message["data"], type=NoticeBefore)
        seq, meta, state = sync_redis.hmget(NO_PREFIX.record(old), "seq", "meta", "state")
        assert decode_batch(before.batch).seq == int(seq)
        # the last update itself, as logged, and the state: a process of that version whose hub missed the end
        # (its notice lost) delivers it as the end, with its events, not an empty update and no state
        ((_, logged),) = sync_redis.xrange(NO_PREFIX.log(old), f"{int(seq)}-0", f"{int(seq)}-0")
        assert (before.batch, before.meta, before.state) == (logged[b"b"], meta, state)
        notice = decode_notice(message["data"])
        assert (notice.rematch, notice.rematch_seat) == (made.rematch, players[0].seat)
    finally:
        listener.close()
        await players[0].client.close()


async def test_a_rematch_whose_notice_was_lost_shows_in_the_snapshot_of_a_hub_kept_meanwhile(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """README: a rematch notice lost between processes is learnt from the snapshot.  The players' connections keep
    the finished table's hub (to hear of its rematch), so that snapshot came from a hub that never heard: it now
    reads the rematch from the store with the table's existence check, and tells those it keeps too."""
    server = start_server(*FAST)
    old, players = await _seated([server.url], people=1, bots=1)
    watcher = Client(server.url, client="watcher")
    try:
        await play(players)
        # as another process's create script sets it, its notice lost (a pub/sub connection that dropped)
        sync_redis.hset(NO_PREFIX.record(old), mapping={"rematch": "Rematch0001", "rematch_seat": 1})
        await watcher.connect()
        await watcher.watch(old)
        snapshot = await _next(watcher, Snapshot)
        assert (snapshot.rematch, snapshot.rematch_seat) == ("Rematch0001", 1)  # type: ignore[attr-defined]
        told = await _next(players[0].client, Rematched)  # the seat it kept hears of it now
        assert (told.rematch, told.seat) == ("Rematch0001", 1)  # type: ignore[attr-defined]
    finally:
        await watcher.close()
        await players[0].client.close()


async def test_the_rematch_a_connection_made_counts_against_its_tables_as_a_create_does(
    start_server: ServerFactory,
) -> None:
    """``--max-tables`` counts the tables a connection created and does not follow: a rematch is a create by its
    asker, so it counts until the asker follows it (it did not: every finished game gave one more table free)."""
    server = start_server(*FAST, "--max-tables", "2")
    old, players = await _seated([server.url], people=1, bots=1)
    me = players[0].client
    try:
        await play(players)
        made = await me.rematch(old)  # (the finished table is followed no more: 1 of 2, the rematch)
        await me.create("spook", 1)  # 2 of 2
        with pytest.raises(ServerError) as full:
            await me.create("spook", 1)
        assert full.value.code == "limit"
        assert made.seat == players[0].seat
    finally:
        await me.close()


async def test_a_connection_at_its_limit_sits_at_a_table_it_created(start_server: ServerFactory) -> None:
    """A table created and then joined moves from created to followed: it counts once, not twice (a connection
    holding ``--max-tables`` created tables, a rematch among them, could sit at none of them)."""
    server = start_server(*FAST, "--max-tables", "2")
    async with Client(server.url) as me:
        first = await me.create("spook", 1)
        await me.create("spook", 1)
        assert (await me.join(first, "Ada")).seat == 0


@pytest.mark.parametrize("then", ["resume_refused", "watch"])
async def test_a_seat_that_follows_its_finished_private_table_again_still_hears_of_its_rematch(
    start_server: ServerFactory, then: str
) -> None:
    """A connection keeps the last table it saw end, to hear of its rematch; a private table's goes to its seats
    only.  A resume of that table refused (here a ``last_seq`` past its end) let the connection go from it, and a
    watch of it (as the page's spectator view may) kept the seat as a spectator: either way, never told."""
    server = start_server(*FAST)
    old, players = await _seated([server.url], people=2, bots=0, private=True)
    asker, told = (p.client for p in players)
    try:
        await play(players)
        if then == "watch":
            assert (await told.watch(old)).status == "over"
        else:
            refused = await told._request(Resume(table=old, token=told.seats[old].token, last_seq=10**6))
            assert isinstance(refused, Error) and refused.code == "bad_field"
        made = await asker.rematch(old)
        heard = await _next(told, Rematched, timeout=5)
        assert (heard.table, heard.rematch, heard.seat) == (old, made.rematch, made.seat)  # type: ignore[attr-defined]
    finally:
        await close(players)
