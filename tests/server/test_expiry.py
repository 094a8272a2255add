"""A table that expires under a live hub (its keys gone from the store while followers are attached): every
command about it answers ``not_found`` (never ``internal``), the hub is dropped, its followers are told with an
``error`` ``not_found`` naming the table, and no log line carries a traceback.  Expiry is simulated by deleting
the table's keys with a plain Redis client; the store's ``TABLE_TTL`` does the same a week after the last change
(``LOBBY_TTL``, a day, before the start)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect

from clients.bots.runner import run_bot
from clients.sdk import Client, ServerError
from protocol.errors import Code
from protocol.messages import Act, Create, Error, Join, Rejected
from server import hub as hub_module
from server.hub import Fanout, Hub
from server.metrics import Metrics
from server.service import TableService, token_digest
from server.store import NO_PREFIX, Missing, Store
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.players import close, play, seat_players
from tests.server.test_hub import Socket
from tests.waiting import until

A, B = "a" * 22, "b" * 22  # seat tokens of the clients' own


@contextlib.asynccontextmanager
async def in_process(store_url: str) -> AsyncIterator[tuple[Fanout, TableService]]:
    """A server's tables in this process, on the store at ``store_url``: its fanout (resynced by hand only, with
    ``resync``) and its service."""
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    fanout = Fanout(store, client, resync_seconds=3600)
    await fanout.start()
    try:
        yield fanout, TableService(store, Metrics())
    finally:
        await fanout.close()
        await client.aclose()


async def started(fanout: Fanout, service: TableService) -> tuple[str, Hub]:
    """A two-seat mansion table, its seats taken with the tokens ``A`` and ``B`` and started; and its hub."""
    table = await service.create(Create(game="mansion", seats=2))
    hub = await fanout.hub(table)
    for token in (A, B):
        await service.join(hub, Join(table=table, name=token[0], token=token))
    await service.start(hub, A)
    return table, hub


def expire(sync_redis: redis.Redis, table: str) -> None:
    """What the store's expiry does to a table: its record, log and command ids are gone (its entries in the
    global indexes, the lobby's and the schedule's, stay: both are hints, re-checked)."""
    assert sync_redis.delete(NO_PREFIX.record(table), NO_PREFIX.log(table), NO_PREFIX.cmds(table)) >= 1


async def raw(url: str) -> ClientConnection:
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    assert json.loads(await ws.recv())["type"] == "welcome"
    return ws


async def ask(ws: ClientConnection, frame: dict[str, Any], ref: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Send ``frame`` with ``ref``: its reply, and what came before it."""
    await ws.send(json.dumps({**frame, "ref": ref}))
    before = []
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if msg.get("ref") == ref:
            return msg, before
        before.append(msg)


def tables_followed(server: ServerProcess) -> float:
    """The server's ``hauntd_tables`` gauge: its live hubs."""
    text = urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode()
    return float(next(line.split()[1] for line in text.splitlines() if line.startswith("hauntd_tables ")))


def assert_clean_log(*servers: ServerProcess) -> None:
    """No error and no traceback in the servers' logs (a table found gone is an ``info`` line)."""
    for server in servers:
        bad = [line for line in server.log_lines() if line.get("level") == "error" or "exception" in line]
        assert bad == [], bad
    assert any(line.get("event") == "table_gone" for s in servers for line in s.log_lines())


def is_gone_notice(msg: Any, table: str) -> bool:
    if isinstance(msg, dict):
        return msg.get("type") == "error" and msg.get("ref") is None and msg.get("table") == table
    return isinstance(msg, Error) and msg.ref is None and msg.table == table and msg.code == Code.NOT_FOUND


async def test_every_command_at_a_lobby_table_gone_under_its_hub(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    a, b, c = await raw(server.url), await raw(server.url), await raw(server.url)
    table = (await ask(a, {"type": "create", "game": "mansion", "seats": 3}, "c"))[0]["table"]
    await ask(a, {"type": "join", "table": table, "name": "A", "token": A}, "ja")
    await ask(b, {"type": "join", "table": table, "name": "B", "token": B}, "jb")
    assert tables_followed(server) == 1
    expire(sync_redis, table)
    probes: list[tuple[ClientConnection, dict[str, Any]]] = [
        (c, {"type": "join", "table": table, "name": "C"}),
        (c, {"type": "join", "table": table, "name": "C", "seat": 0}),  # taken, as the hub remembers it
        (c, {"type": "watch", "table": table}),
        (c, {"type": "watch", "table": table, "last_seq": 0}),
        (c, {"type": "watch", "table": table, "last_seq": 9}),
        (c, {"type": "resume", "table": table, "token": B, "last_seq": 2}),
        (c, {"type": "resume", "table": table, "token": B, "last_seq": 5}),
        (c, {"type": "leave", "table": table, "token": "x" * 22}),
        (c, {"type": "start", "table": table, "token": B, "cmd": "s-1"}),
        (c, {"type": "act", "table": table, "token": B, "cmd": "a-1", "action": {"type": "end_turn"}, "seq": 7}),
        (a, {"type": "leave", "table": table, "token": A}),
        (b, {"type": "start", "table": table, "token": B}),
        (b, {"type": "act", "table": table, "token": B, "cmd": "a-2", "action": {"type": "end_turn"}}),
        (b, {"type": "resume", "table": table, "token": B, "last_seq": 2}),
    ]
    unsolicited: dict[ClientConnection, list[dict[str, Any]]] = {a: [], b: [], c: []}
    for i, (ws, frame) in enumerate(probes):
        reply, before = await ask(ws, frame, f"r{i}")
        unsolicited[ws] += before
        assert reply["type"] in ("error", "rejected") and reply["code"] == Code.NOT_FOUND, (frame, reply)
    for ws in (a, b, c):
        reply, before = await ask(ws, {"type": "ping"}, "p")
        unsolicited[ws] += before
    # the followers were told, once each (by the first command that met the table gone), and let go
    for ws in (a, b):
        assert [m for m in unsolicited[ws] if m["type"] == "error"] == [
            {
                "type": "error",
                "code": "not_found",
                "message": f"table {table} is gone (it expired, or its store lost it)",  # (not "it expired": the
                "table": table,  # same line followed a store restarted without persistence, tables 5 minutes old)
            }
        ]
    assert unsolicited[c] == []  # never followed it
    assert tables_followed(server) == 0  # the hub is dropped at once, not after its idle delay
    for ws in (a, b, c):
        await ws.close()
    assert_clean_log(server)


async def test_followers_are_told_without_any_command(server: ServerProcess, sync_redis: redis.Redis) -> None:
    """The resync notices the table gone by itself: followers (players, a spectator) get the notice, the SDK
    forgets the table (no resume of it after a reconnect) and the hub is dropped."""
    table, players = await seat_players([server.url], seats=2, seed=3)
    spectator = Client(server.url)
    await spectator.connect()
    token = players[1].client.seats[table].token
    try:
        await spectator.watch(table)
        await play(players, stop_at=5)
        expire(sync_redis, table)
        for client in [p.client for p in players] + [spectator]:
            msg = await client.recv(timeout=10)
            while not isinstance(msg, Error):
                msg = await client.recv(timeout=10)
            assert is_gone_notice(msg, table), msg
            assert table not in client.last_seq and table not in client.seats and table not in client.watching
        assert tables_followed(server) == 0
        # a reconnect resumes nothing of it (and asks nothing): the client carries on
        players[0].client.drop()
        assert await players[0].client.ping() < 5
        assert players[0].client.reconnects == 1
        with_token = Client(server.url)
        await with_token.connect()
        try:
            with pytest.raises(ServerError) as refused:
                await with_token.resume(table, token)
            assert refused.value.code == Code.NOT_FOUND
        finally:
            await with_token.close()
    finally:
        await close(players)
        await spectator.close()
    assert_clean_log(server)


async def test_a_game_gone_mid_play_across_two_processes(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """Seats on two processes; the table goes mid-game.  An action on one process is rejected ``not_found``
    (the process that took it drops its hub and tells its followers at once); the other process finds out by
    itself; a follower that reconnects meanwhile is told by its resume's answer.  The schedule lets the table go."""
    one, two = start_server(), start_server()
    table, players = await seat_players([one.url, two.url], seed=11, turn_seconds=300)
    try:
        await play(players, stop_at=12)
        assert sync_redis.zscore(NO_PREFIX.due, table) is not None
        expire(sync_redis, table)
        mover = next(p for p in players if p.client.url == one.url)
        outcome = await mover.client.act(table, {"type": "end_turn"})
        assert isinstance(outcome, Rejected) and outcome.code == Code.NOT_FOUND, outcome
        # a follower on the other process drops its connection before being told: its resume is the answer
        late = next(p for p in players if p.client.url == two.url)
        late.client.drop()
        started = time.monotonic()
        for p in players:
            msg = await p.client.recv(timeout=10)
            while not isinstance(msg, Error):
                msg = await p.client.recv(timeout=10)
            assert msg.code == Code.NOT_FOUND and msg.table == table, msg
            assert table not in p.client.last_seq
        assert time.monotonic() - started < 8
        for server in (one, two):
            assert await until(lambda s=server: tables_followed(s) == 0, 5), tables_followed(server)
        sync_redis.zadd(NO_PREFIX.due, {table: 0})  # its deadline, once claimed, finds no table and leaves the schedule
        assert await until(lambda: sync_redis.zscore(NO_PREFIX.due, table) is None, 10)
    finally:
        await close(players)
    assert_clean_log(one, two)


async def test_a_hub_found_gone_leaves_nothing_behind(store_url: str, sync_redis: redis.Redis) -> None:
    """In one process: the resync finds the table gone; the hub is out of the fanout, unsubscribed from the
    table's channel, its follower told and let go, no task of it left; a command still holding it, a follower
    attaching to it and a new hub for the table all meet ``not_found``."""
    async with in_process(store_url) as (fanout, service):
        table = await service.create(Create(game="mansion", seats=2))
        hub = await fanout.hub(table)
        _, token, _ = await service.join(hub, Join(table=table, name="A"))
        follower = Socket()
        await hub.attach(follower, 0, None, None, token_digest(token))
        assert sync_redis.pubsub_numsub(NO_PREFIX.channel(table)) == [(NO_PREFIX.channel(table).encode(), 1)]
        expire(sync_redis, table)
        await fanout.resync()
        assert hub.gone and fanout.hubs == {} and hub.followers == {} and hub.holders == {}
        notice = follower.got[-2]
        assert isinstance(notice, Error) and notice.code == Code.NOT_FOUND and notice.table == table
        assert follower.got[-1] == ("done", table)
        assert await until(lambda: not hub_module._background, 5)  # the unsubscribe is done
        assert sync_redis.pubsub_numsub(NO_PREFIX.channel(table)) == [(NO_PREFIX.channel(table).encode(), 0)]
        with pytest.raises(Missing):  # (the connection answers ``not_found``)
            await service.join(hub, Join(table=table, name="B"))
        with pytest.raises(Missing):
            await hub.attach(Socket(), None, None, None)
        with pytest.raises(Missing):
            await fanout.hub(table)
        assert fanout.hubs == {} and fanout._pending == {} and len(follower.got) == 3  # told once


async def test_an_action_with_a_past_seq_at_a_table_gone_mid_play_answers_not_found(
    store_url: str, sync_redis: redis.Redis
) -> None:
    """``stale`` is judged on the record in memory (no read): at a table gone under its hub, an action naming a
    past ``seq`` is still answered ``not_found`` (the read its refusal makes, for the command's key, shows the
    table gone), and the hub is ended at once, not at the next resync."""
    async with in_process(store_url) as (fanout, service):  # no resync: the action alone must find it out
        table, hub = await started(fanout, service)
        follower = Socket()
        await hub.attach(follower, 0, None, None, token_digest(A))
        expire(sync_redis, table)
        act = Act(table=table, token=A, cmd="late", action={"type": "end_turn"}, seq=hub.latest.seq - 1)
        with pytest.raises(Missing):
            await service.act(hub, 0, act)
        assert hub.gone and fanout.hubs == {} and follower.got[-1] == ("done", table)


async def test_a_bot_whose_table_is_gone_stops_with_not_found(server: ServerProcess, sync_redis: redis.Redis) -> None:
    creator = Client(server.url)
    await creator.connect()
    table = await creator.create("mansion", 2)
    await creator.close()
    bot = asyncio.create_task(
        run_bot(server.url, table, seat=None, name="bot", strategy_name="random", game="auto", seed=1)
    )
    while sync_redis.hget(NO_PREFIX.record(table), "seq") != b"1":  # seated, waiting for a second player
        await asyncio.sleep(0.05)
    expire(sync_redis, table)
    with pytest.raises(ServerError) as ended:
        await asyncio.wait_for(bot, 15)
    assert ended.value.code == Code.NOT_FOUND
    assert_clean_log(server)
