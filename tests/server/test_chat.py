"""Table chat over real sockets and a real store: who hears a line, who gets the last lines later, across two
server processes, and that no refused line (nor any line) changes the table or reaches the logs."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from clients.sdk import Client, ServerError
from protocol.errors import Code, ProtocolError
from protocol.messages import CHAT_CHARS, Chat, ChatLine, Create, GameOver, Join, Said, Say, ServerMsg, Snapshot
from server.chat import CHAT_BURST, say
from server.hub import Hub
from server.metrics import Metrics
from server.service import TableService, token_digest
from server.store import CHAT_LINES, NO_PREFIX, Store
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.players import Player, play, seat_players
from tests.server.test_hub import Socket


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(store_url)
    yield Store(client)
    await client.aclose()


async def seated(urls: list[str], seats: int = 2) -> tuple[str, list[Client]]:
    """A mansion table in its lobby with a client seated at each seat, seat ``i`` on ``urls[i % len(urls)]``."""
    clients = [Client(urls[i % len(urls)], client=f"talker{i}") for i in range(seats)]
    for client in clients:
        await client.connect()
    table = await clients[0].create("mansion", seats)
    for i, client in enumerate(clients):
        await client.join(table, f"P{i}")
    return table, clients


async def next_of(client: Client, kind: type[Any]) -> Any:
    """The next message of ``kind`` in the client's stream (the table's updates before it are passed over)."""
    while True:
        msg: ServerMsg = await client.recv(timeout=10)
        if isinstance(msg, kind):
            return msg


def table_as_stored(sync_redis: redis.Redis, table: str) -> tuple[Any, ...]:
    """Everything of the table a game reads: its record's seq, meta and state, its log and its commands."""
    seq, meta, state = sync_redis.hmget(NO_PREFIX.record(table), "seq", "meta", "state")
    log = sync_redis.xrange(NO_PREFIX.log(table))
    return seq, meta, state, log, sync_redis.hgetall(NO_PREFIX.cmds(table))


async def test_a_line_reaches_every_seat_and_spectator_and_leaves_the_game_as_it_was(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    table, (ada, bob) = await seated([server.url])
    await ada.start(table)
    watcher = Client(server.url, client="watcher")
    await watcher.connect()
    try:
        await watcher.watch(table)
        before = table_as_stored(sync_redis, table)
        said = await ada.say(table, "good luck, <b>all</b> 👻")
        assert (said.n, said.seat, said.name, said.text) == (1, 0, "P0", "good luck, <b>all</b> 👻")
        for client in (ada, bob, watcher):
            heard = await next_of(client, Said)
            assert (heard.table, heard.n, heard.seat, heard.text) == (table, 1, 0, said.text)
            assert heard.time == said.time
        assert (await bob.say(table, "thanks")).n == 2
        assert (await next_of(ada, Said)).text == "thanks"
        assert table_as_stored(sync_redis, table) == before  # no seq, no state, nothing logged (M30)
    finally:
        for client in (ada, bob, watcher):
            await client.close()


async def test_who_comes_later_gets_the_last_lines_after_the_snapshot(server: ServerProcess) -> None:
    table, (ada, bob) = await seated([server.url])
    late = Client(server.url, client="late")
    again = Client(server.url, client="again")
    try:
        for text in ("hi", "back in 2 min", "ok"):
            await ada.say(table, text)
        await late.connect()
        await late.watch(table)
        snapshot = await next_of(late, Snapshot)
        chat = await late.recv(timeout=10)  # right after it
        assert isinstance(chat, Chat) and chat.table == table == snapshot.table
        assert [(line.n, line.seat, line.name, line.text) for line in chat.lines] == [
            (1, 0, "P0", "hi"),
            (2, 0, "P0", "back in 2 min"),
            (3, 0, "P0", "ok"),
        ]
        token = bob.seats[table].token
        await bob.close()
        await again.connect()
        await again.resume(table, token)
        await next_of(again, Snapshot)
        assert [line.text for line in (await again.recv(timeout=10)).lines] == ["hi", "back in 2 min", "ok"]
        assert (await again.say(table, "I am back")).seat == 1  # the resumed seat speaks
    finally:
        for client in (ada, bob, late, again):
            await client.close()


async def test_a_line_said_on_one_process_is_heard_on_the_other(start_server: ServerFactory) -> None:
    a, b = start_server(), start_server()
    table, (ada, bob) = await seated([a.url, b.url])
    watcher = Client(b.url, client="watcher")
    await watcher.connect()
    try:
        await watcher.watch(table)
        said = await ada.say(table, "your turn")
        for client in (bob, watcher):  # both on the other process
            assert (await next_of(client, Said)).text == "your turn"
        assert (await bob.say(table, "on my way")).n == said.n + 1
        assert (await next_of(ada, Said)).n == said.n  # (her own, in her stream too)
        heard = await next_of(ada, Said)
        assert (heard.n, heard.seat, heard.text) == (said.n + 1, 1, "on my way")
    finally:
        for client in (ada, bob, watcher):
            await client.close()


async def test_refused_lines_leave_the_table_and_its_chat_as_they_were(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    table, (ada, bob) = await seated([server.url])
    watcher, stranger = Client(server.url, client="watcher"), Client(server.url, client="stranger")
    await watcher.connect()
    await stranger.connect()
    try:
        await watcher.watch(table)
        await ada.say(table, "first")
        before = table_as_stored(sync_redis, table), sync_redis.lrange(NO_PREFIX.chat(table), 0, -1)
        refusals: list[tuple[Client, str, str]] = [
            (watcher, "I only watch", "auth"),  # a spectator reads, not writes
            (stranger, "who am I", "auth"),  # not following the table at all
            (bob, "", "bad_field"),
            (bob, "   ", "bad_field"),  # blank
            (bob, "two\nlines", "bad_field"),
            (bob, "bell\x07", "bad_field"),
            (bob, "\u202eesrever", "bad_field"),  # a bidi override
            (bob, "x" * (CHAT_CHARS + 1), "bad_field"),
        ]
        for client, text, code in refusals:
            with pytest.raises(ServerError) as refused:
                await client.say(table, text)
            assert refused.value.code == code, (text, refused.value)
        assert (table_as_stored(sync_redis, table), sync_redis.lrange(NO_PREFIX.chat(table), 0, -1)) == before
        for i in range(CHAT_BURST):  # bob's own allowance: ada's line took none of it
            await bob.say(table, f"line {i}")
        with pytest.raises(ServerError) as refused:
            await bob.say(table, "one too many")
        assert refused.value.code == "rate_limited"
        assert len(sync_redis.lrange(NO_PREFIX.chat(table), 0, -1)) == 1 + CHAT_BURST
        assert (await ada.say(table, "still mine")).n == 2 + CHAT_BURST
    finally:
        for client in (ada, bob, watcher, stranger):
            await client.close()
    await asyncio.sleep(0.2)
    logged = server.log_path.read_text()
    assert "command_rejected" in logged and '"type": "say"' in logged.replace('":"', '": "')
    for text in ("first", "line 0", "still mine", "I only watch", "one too many"):
        assert text not in logged  # what players say is not logged


async def test_the_seats_of_a_finished_table_talk_on_to_everyone_who_saw_the_end(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """After the end ("gg") the seats talk on, heard on both processes by everyone their connections kept (seats and
    spectators, who still only read); the lines stay with the table, and the game is as it ended."""
    a, b = start_server(), start_server()
    table, players = await seat_players([a.url, b.url], seats=2, seed=4)
    ada, bob = (p.client for p in players)
    watcher, stranger = Client(b.url, client="watcher"), Client(a.url, client="stranger")
    try:
        await watcher.connect()
        await stranger.connect()
        await watcher.watch(table)
        await ada.say(table, "good luck")
        await play(players)
        await next_of(watcher, GameOver)
        before = table_as_stored(sync_redis, table)
        said = await ada.say(table, "good game!")  # (on a: bob and the watcher on b)
        for client in (bob, watcher):
            heard = await next_of(client, Said)
            assert (heard.table, heard.n, heard.seat, heard.text) == (table, said.n, 0, "good game!")
        assert (await bob.say(table, "again?")).n == said.n + 1
        assert (await next_of(ada, Said)).text == "good game!"  # (her own, in her stream too)
        for client in (ada, watcher):
            assert (await next_of(client, Said)).text == "again?"
        for client, code in ((watcher, "auth"), (stranger, "game_over")):  # a spectator reads; one never there
            with pytest.raises(ServerError) as refused:
                await client.say(table, "me too")
            assert refused.value.code == code
        with pytest.raises(ServerError) as refused:
            await ada.say("nosuchtable", "anyone?")
        assert refused.value.code == "not_found"
        assert table_as_stored(sync_redis, table) == before  # no seq, no state, nothing logged (M30)
        await stranger.watch(table)  # a late spectator gets the lines said after the end too
        kinds = [await stranger.recv(timeout=10) for _ in range(3)]
        assert [type(m).__name__ for m in kinds] == ["Snapshot", "Chat", "GameOver"]
        assert [line.text for line in kinds[1].lines] == ["good luck", "good game!", "again?"]
    finally:
        for client in (ada, bob, watcher, stranger):
            await client.close()


async def _finished(client: Client) -> tuple[str, str]:
    """A Ghost at Home table, ``client`` at its one person's seat beside a bot, played to its end: (id, token)."""
    table = await client.create("ghost-at-home", 2, bots=1, bot_strategy="random")
    held = await client.join(table, "Ada")
    await client.start(table)
    await play([Player(client, table, held.seat, random.Random(7))])
    return table, held.token


async def test_a_connection_talks_at_the_last_table_it_saw_end_and_at_an_older_one_resumed(
    start_server: ServerFactory,
) -> None:
    """A connection keeps only the last table it saw end: at an older one its seat is refused ``game_over`` (nobody
    there hears it) until it resumes that seat, which keeps that table instead."""
    server = start_server("--rate", "1000", "--burst", "1000")
    async with Client(server.url, client="ada") as ada:
        first, token = await _finished(ada)
        second, _ = await _finished(ada)
        assert (await ada.say(second, "gg")).seat == 1
        with pytest.raises(ServerError) as refused:
            await ada.say(first, "gg, first")
        assert refused.value.code == "game_over"
        assert (await ada.resume(first, token)).status == "over"  # told its end again, and kept
        assert (await ada.say(first, "gg, first")).text == "gg, first"
        with pytest.raises(ServerError) as refused:
            await ada.say(second, "gg again")
        assert refused.value.code == "game_over"


async def test_the_store_keeps_the_last_lines_as_long_as_the_table(store: Store, sync_redis: redis.Redis) -> None:
    table = "chatkeep1"
    sync_redis.hset(NO_PREFIX.record(table), mapping={"seq": 3, "meta": b"x"})
    sync_redis.expire(NO_PREFIX.record(table), 1000)
    try:
        for i in range(CHAT_LINES + 5):
            assert (await store.say(table, i % 2, f"P{i % 2}", f"line {i}")).n == i + 1
        lines = await store.chat(table)
        assert [line.n for line in lines] == list(range(6, CHAT_LINES + 6))
        assert lines[-1].text == f"line {CHAT_LINES + 4}" and lines[-1].name == "P0"
        assert 990 <= sync_redis.ttl(NO_PREFIX.chat(table)) <= 1000  # the record's
        assert sync_redis.hget(NO_PREFIX.record(table), "seq") == b"3"
    finally:
        sync_redis.delete(NO_PREFIX.record(table), NO_PREFIX.chat(table))
    with pytest.raises(Exception, match=table):
        await store.say(table, 0, "P0", "to nobody")  # the table is gone: ``Missing``
    assert not sync_redis.exists(NO_PREFIX.chat(table))


async def test_a_seat_let_go_while_its_line_waits_for_the_table_is_refused_and_nothing_is_said(store: Store) -> None:
    """The seat is judged under the hub's lock, as the updates that let it go (the game's end, a leave) are
    delivered: a line checked before and said after went unanswered to its sayer (no ``said`` with its ``ref``)."""
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=2))
    hub = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(hub, Join(table=table, name="A"))
    sayer = Socket()
    await hub.attach(sayer, 0, None, None, token_digest(token))
    async with hub.lock:  # (an update being delivered)
        line = asyncio.ensure_future(say(hub, sayer, Say(table=table, text="hello", ref="r1")))
        await asyncio.sleep(0.05)
        hub.detach(sayer)  # let go by that update
    with pytest.raises(ProtocolError) as refused:
        await line
    assert refused.value.code is Code.AUTH
    assert await store.chat(table) == [] and not any(isinstance(m, Said) for m in sayer.got)


async def test_a_follower_gets_the_last_lines_read_before_the_lock_and_a_line_said_meanwhile(store: Store) -> None:
    """``attach`` reads the last lines with its existence check, before the hub's lock (the table's updates do not
    wait behind a store round trip); a line said here between that read and the lock is read again under it."""
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=2))
    hub = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(hub, Join(table=table, name="A"))
    await store.say(table, 0, "A", "before")
    locked_reads: list[bool] = []
    read = store.chat

    async def chat(table: str) -> list[ChatLine]:
        locked_reads.append(hub.lock.locked())
        return await read(table)

    store.chat = chat  # type: ignore[method-assign]
    first = Socket()
    await hub.attach(first, None, None, None)
    assert [line.text for m in first.got if isinstance(m, Chat) for line in m.lines] == ["before"]
    assert True not in locked_reads
    late = Socket()
    async with hub.lock:  # (a line said here while ``late``'s read is done and it waits for the lock)
        follow = asyncio.ensure_future(hub.attach(late, 0, None, None, token_digest(token)))
        await asyncio.sleep(0.05)
        hub.said(await store.say(table, 0, "A", "meanwhile"))
    await follow
    assert [line.text for m in late.got if isinstance(m, Chat) for line in m.lines] == ["before", "meanwhile"]
