"""A featured table and its spectators over real sockets: what a watcher is sent, and what it costs the players."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio as aioredis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.messages import Act, Create, Events, Join, Snapshot
from server.hub import Hub
from server.metrics import Metrics
from server.service import TableService, token_digest
from server.store import Glance, Store
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.drive import GAME, next_move
from tests.server.players import close, play, seat_players
from tests.server.test_hub import Socket


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(store_url)
    yield Store(client)
    await client.aclose()


async def watcher(url: str, table: str, **watch: Any) -> tuple[ClientConnection, list[dict[str, Any]]]:
    """A raw connection watching ``table``, and what its watch was answered with (its ``snapshot`` last)."""
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    await ws.recv()
    return ws, await ask(ws, type="watch", table=table, ref="w", **watch)


async def ask(ws: ClientConnection, **msg: Any) -> list[dict[str, Any]]:
    """Send ``msg`` (with a ``ref``); what is received up to its reply, which comes last."""
    await ws.send(json.dumps(msg))
    received = [json.loads(await ws.recv())]
    while received[-1].get("ref") != msg["ref"]:
        received.append(json.loads(await ws.recv()))
    return received


async def test_a_spectator_is_sent_the_table_with_every_update_that_says_who_decides(server: ServerProcess) -> None:
    """The web page draws a table from its ``view``, which a spectator's updates did not carry: each page watching
    asked for a snapshot after every update (a ``watch``, a view encoded for it alone and a store read under the
    table's lock), and 100 pages cost the server 7 times the CPU of each action.  The spectators' view now comes
    with the ``prompts``, encoded once for them all: the one a ``watch`` at that ``seq`` would answer with."""
    table, players = await seat_players([server.url], seed=3)
    ws, _ = await watcher(server.url, table)
    try:
        await play(players, stop_at=12)
        *updates, snapshot = await ask(ws, type="watch", table=table, ref="again")  # (the table as it is now)
        assert [u["seq"] for u in updates] == list(range(6, snapshot["seq"] + 1))
        assert all("view" in u and "legal" not in u for u in updates), updates
        assert updates[-1]["view"] == snapshot["view"] and snapshot["view"]["seat"] is None
        assert snapshot["view"]["haunt"] == [None] * 4
    finally:
        await ws.close()
        await close(players)


async def test_a_watch_does_not_hold_the_tables_updates_behind_its_read_of_the_store(store: Store) -> None:
    """A watch reads the store (is the table still there?) before it takes the table's lock, not under it: each
    update of the table waited for the store round trip of every watch queued for the lock before it (a flood of
    watches, a store a millisecond away: a millisecond per watch queued, the server's core idle meanwhile).  Its
    read of the table's last chat lines too (``Store.glance``)."""
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=3))
    hub = Hub(table, await store.load(table), store)
    held, read = asyncio.Event(), store.glance

    async def slow(table: str) -> Glance:
        await held.wait()
        return await read(table)

    store.glance = slow  # type: ignore[method-assign]
    spectator = Socket()
    watch = asyncio.create_task(hub.attach(spectator, None, None, "w"))
    await asyncio.sleep(0.05)
    await asyncio.wait_for(service.join(hub, Join(table=table, name="A")), 2)  # delivered meanwhile
    held.set()
    await watch
    await service.join(hub, Join(table=table, name="B"))
    assert [(type(m), m.seq) for m in spectator.got] == [(Snapshot, 1), (Events, 2)]  # type: ignore[attr-defined]


class Logged(Socket):
    """A follower that notes in ``order`` when it is sent an update."""

    def __init__(self, name: str, order: list[tuple[str, int]]) -> None:
        super().__init__()
        self.name, self.order = name, order

    def send(self, frame: bytes) -> None:
        super().send(frame)
        if isinstance(self.got[-1], Events):
            self.order.append((self.name, self.got[-1].seq))  # type: ignore[attr-defined]


async def test_the_spectators_get_an_update_after_the_seats_and_the_command_that_made_it(store: Store) -> None:
    """Writing an update to a socket costs a system call (10–15 µs here): 400 spectators held each action's
    ``accepted`` and the other seats' update back by 5 ms, and seats that sat down after them (a featured table
    watched from its creation) were written to last.  The seats get it first; the spectators once the command
    that made it is answered, in order, and before anything else the hub sends them."""
    service = TableService(store, Metrics())
    table = await service.create(Create(game="mansion", seats=2))
    hub = Hub(table, await store.load(table), store)
    order: list[tuple[str, int]] = []
    early, late, seat = Logged("early", order), Logged("late", order), Logged("seat", order)
    await hub.attach(early, None, None, "w")
    tokens = [(await service.join(hub, Join(table=table, name=name)))[1] for name in "AB"]
    await hub.attach(seat, 0, None, None, token_digest(tokens[0]))
    await service.start(hub, tokens[0])

    async def act() -> int:
        prompted = min(GAME.prompts(hub.state))
        action = msgspec.to_builtins(GAME.legal_actions(hub.state, prompted)[0])
        act = Act(table=table, token=tokens[prompted], cmd=str(hub.seq), action=action)
        return await service.act(hub, prompted, act)

    await asyncio.sleep(0)
    order.clear()
    seq = await act()
    assert order == [("seat", seq)]  # the command is done: its answer goes out before any spectator's update
    await hub.attach(late, None, None, "w")  # the spectators get the update before the newcomer its snapshot
    assert order == [("seat", seq), ("early", seq)]
    seq = await act()
    await asyncio.sleep(0)
    assert order[2:] == [("seat", seq), ("early", seq), ("late", seq)]
    assert [(type(m), m.seq) for m in late.got] == [(Snapshot, seq - 1), (Events, seq)]  # type: ignore[attr-defined]


async def test_a_table_takes_so_many_spectators_and_the_next_is_told_why(start_server: ServerFactory) -> None:
    """Each spectator costs every update of its table a system call (10–15 µs): without a cap one table's
    audience could take a process's whole core from every other table.  Past ``--max-watchers`` a watch is
    refused ``limit`` (the seats are not counted, and a place left is taken again); other tables are not concerned."""
    server = start_server("--max-watchers", "3")
    table, players = await seat_players([server.url], seats=2, seed=4)
    other = await players[0].client.create("mansion", 2)
    watchers = [await watcher(server.url, table) for _ in range(3)]
    try:
        ws, refused = await watcher(server.url, table)
        assert refused[-1]["type"] == "error" and refused[-1]["code"] == "limit", refused
        assert "3 spectators" in refused[-1]["message"]
        assert (await ask(ws, type="watch", table=other, ref="o"))[-1]["type"] == "snapshot"
        again = await ask(watchers[0][0], type="watch", table=table, ref="again")  # one already there
        assert again[-1]["type"] == "snapshot"
        await watchers.pop()[0].close()
        for _ in range(50):  # the server lets the closed one go
            reply = await ask(ws, type="watch", table=table, ref="w")
            if reply[-1]["type"] == "snapshot":
                break
            await asyncio.sleep(0.05)
        assert reply[-1]["type"] == "snapshot" and "seat" not in reply[-1]
        await ws.close()
    finally:
        for w, _ in watchers:
            await w.close()
        await close(players)


async def test_a_connection_that_sits_and_watches_sees_as_the_one_it_chose_last(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    """A connection follows a table as one audience (PROTOCOL, Connection life cycle): once it watches, a seat's
    connection is sent what every spectator is, its own Haunt cards hidden too, though its token still acts; a
    ``resume`` makes it the seat again, its own cards shown, and nobody else's."""
    table, players = await seat_players([server.url], seats=2, seed=6)
    tokens = [p.client.seats[table].token for p in players]
    ws, _ = await watcher(server.url, table)  # a spectator first, then the seat, then a spectator again
    try:
        seat = (await ask(ws, type="resume", table=table, token=tokens[0], last_seq=3, ref="r"))[-1]
        assert seat["seat"] == 0 and seat["view"]["haunt"][0] is not None and seat["view"]["haunt"][1] is None
        watching = (await ask(ws, type="watch", table=table, ref="w2"))[-1]
        assert "seat" not in watching and "legal" not in watching and watching["view"]["haunt"] == [None, None]
        acted = []
        for n in range(4):  # each seat acts from this connection, with its token
            prompted, action, seq = next_move(sync_redis, table)
            act = {"table": table, "token": tokens[prompted], "cmd": f"x{n}", "seq": seq}
            acted += await ask(ws, type="act", action=msgspec.to_builtins(action), ref=str(n), **act)
        assert [m["type"] for m in acted] == ["events", "accepted"] * 4, acted
        for update in acted[::2]:
            assert "legal" not in update and update["view"]["seat"] is None and update["view"]["haunt"] == [None, None]
        again = (await ask(ws, type="resume", table=table, token=tokens[1], last_seq=0, ref="r2"))[-1]
        assert again["seat"] == 1 and again["view"]["haunt"][0] is None and again["view"]["haunt"][1] is not None
    finally:
        await ws.close()
        await close(players)


async def test_a_spectator_that_stops_reading_is_told_why_once_it_reads_again(start_server: ServerFactory) -> None:
    """A watcher that reads nothing is cut off once its queue is full; it was sent no close frame (the socket
    aborted: 1006, "connection lost", whatever it read after).  What was on its way goes out, then a close
    4429 (``slow``), so a client that reads again learns why before it reconnects."""
    server = start_server("--send-queue", "8", "--rate", "1e6", "--burst", "1000000")
    table, players = await seat_players([server.url], seats=2, seed=2)
    ws = await connect(server.url, max_queue=1)  # reads no more than a frame ahead: the socket's buffers fill
    try:
        await ws.send(json.dumps({"type": "hello", "version": 1}))
        for _ in range(100):  # each answered by a snapshot (a kilobyte or two) this client does not read
            for _ in range(50):
                await ws.send(json.dumps({"type": "watch", "table": table}))
            await asyncio.sleep(0.01)
            if any(line.get("event") == "slow_consumer_dropped" for line in server.log_lines()):
                break
        else:
            pytest.fail("not cut off")
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), 5)
        assert ws.close_code == 4429 and ws.close_reason == "slow"
    finally:
        await ws.close()
        await close(players)


async def test_one_address_holds_so_many_places_as_a_spectator_and_gets_them_back(start_server: ServerFactory) -> None:
    """``--max-watchers`` caps a table's spectators in a process, so four addresses could take a table's 1,000
    places and shut everyone else out.  An address holds ``--watchers-per-ip`` places at most, on all its
    connections; a place is given back when its connection drops or closes, its watcher takes a seat there, or
    its game ends."""
    server = start_server("--watchers-per-ip", "2", "--limit-loopback")
    table, players = await seat_players([server.url], seats=2, seed=5)
    lobby = [await players[0].client.create("mansion", 2) for _ in range(2)]
    first, _ = await watcher(server.url, table)
    second, _ = await watcher(server.url, lobby[0])
    try:
        assert (await ask(first, type="watch", table=table, ref="again"))[-1]["type"] == "snapshot"  # held already
        refused = (await ask(second, type="watch", table=lobby[1], ref="w"))[-1]
        assert (refused["type"], refused["code"]) == ("error", "limit") and "2 places" in refused["message"], refused
        first.transport.abort()  # dropped without a close: its place comes back once the server sees it
        for _ in range(50):
            reply = (await ask(second, type="watch", table=lobby[1], ref="w"))[-1]
            if reply["type"] == "snapshot":
                break
            await asyncio.sleep(0.05)
        assert reply["type"] == "snapshot", reply
        third, refused = await watcher(server.url, table)
        assert refused[-1]["code"] == "limit"
        joined = await ask(second, type="join", table=lobby[0], name="Ada", ref="j")  # a seat, no place
        assert joined[-1]["type"] == "joined"
        while json.loads(await second.recv())["type"] != "snapshot":  # (the seat's, once it follows as the seat)
            pass
        assert (await ask(third, type="watch", table=table, ref="w"))[-1]["type"] == "snapshot"
        await third.close()
        await play(players)  # over: the spectators of the table are let go
        late, watched = await watcher(server.url, table)
        assert watched[-1]["status"] == "over" and json.loads(await late.recv())["type"] == "game_over"
        assert (await ask(late, type="watch", table=lobby[1], ref="x"))[-1]["type"] == "snapshot"  # the 2nd place
        assert (await ask(late, type="watch", table=lobby[0], ref="y"))[-1]["code"] == "limit"
        await late.close()
        refusals = [line for line in server.log_lines() if line["event"] == "watch_refused"]
        assert len(refusals) >= 3 and refusals[0]["peer"] == "127.0.0.1" and refusals[0]["limit"] == 2
    finally:
        await second.close()
        await close(players)
