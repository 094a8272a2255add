"""The lobby over the wire: listing, private tables, leaving, watching, resuming in the hello itself."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from typing import Any

import pytest
import redis
from websockets.asyncio.client import connect

from clients.sdk import Client, ServerError
from engine.registry import get_game
from protocol.messages import Events, Snapshot
from server.store import NO_PREFIX, TABLE_TTL, decode_meta
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.players import Player, close, play, seat_players


async def test_list_join_leave_and_private_tables(server: ServerProcess) -> None:
    ada, bob = Client(server.url), Client(server.url)
    await ada.connect()
    await bob.connect()
    try:
        public = await ada.create("mansion", 2)
        hidden = await ada.create("mansion", 2, private=True)
        listed = {t.table: t for t in await bob.list_tables("mansion")}
        assert public in listed and hidden not in listed
        assert listed[public].taken == 0 and listed[public].status == "lobby"
        await bob.join(public, "Bob")
        assert {t.table: t for t in await ada.list_tables()}[public].taken == 1
        await ada.join(public, "Ada")
        assert public not in [t.table for t in await ada.list_tables()]  # full: no longer open
        left_seq = await bob.leave(public)
        assert public in [t.table for t in await ada.list_tables()]  # open again
        seats = None
        while seats is None:  # Ada sees Bob go, as one update
            msg = await ada.recv(timeout=5)
            if isinstance(msg, Events) and msg.seq == left_seq:
                seats = msg.seats
        assert seats is not None and [s.name for s in seats] == [None, "Ada"]
        again = await bob.join(hidden, "Bob")  # a private table: by its id
        assert again.seat == 0
    finally:
        await ada.close()
        await bob.close()


async def test_a_join_from_a_watching_connection_gets_its_update_before_joined(server: ServerProcess) -> None:
    """PROTOCOL.md has a player watch a table before it joins (to note the secret's commitment), and said only of
    ``act`` and ``start`` that their update comes first: a client reading the frame after its ``join`` as the
    ``joined`` got the ``events``."""
    async with connect(server.url) as ws:
        for message in ({"type": "hello", "version": 1}, {"type": "create", "game": "spook", "seats": 2}):
            await ws.send(json.dumps(message))
            reply = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "watch", "table": reply["table"]}))
        await ws.recv()
        await ws.send(json.dumps({"type": "join", "table": reply["table"], "name": "Ada"}))
        order = [json.loads(await ws.recv()) for _ in range(3)]
    assert [(m["type"], m["seq"]) for m in order] == [("events", 1), ("joined", 1), ("snapshot", 1)]


async def test_watch_from_a_seq_and_resume_in_hello(server: ServerProcess, sync_redis: redis.Redis) -> None:
    table, players = await seat_players([server.url], seed=10)
    try:
        await play(players, stop_at=20)
        watcher = Client(server.url)
        await watcher.connect()
        watcher.last_seq[table] = 12
        snapshot = await watcher.watch(table)
        seqs = []
        while True:
            msg = await watcher.recv(timeout=5)
            if isinstance(msg, Snapshot):
                break
            seqs.append(msg.seq)  # type: ignore[union-attr]
        assert seqs == list(range(13, snapshot.seq + 1)) and snapshot.seat is None
        assert snapshot.legal == [] and snapshot.view["haunt"] == [None] * 4
        await watcher.close()
        token = players[2].client.seats[table].token
        async with connect(server.url) as ws:  # a hand-typed hello that resumes seat 2 at once
            await ws.send(json.dumps({"type": "hello", "version": 1, "table": table, "token": token, "last_seq": 18}))
            frames = [json.loads(await ws.recv())]
            while frames[-1]["type"] != "snapshot":
                frames.append(json.loads(await ws.recv()))
        assert frames[0]["type"] == "welcome" and frames[-1]["seat"] == 2
        assert [f["seq"] for f in frames[1:-1]] == list(range(19, frames[-1]["seq"] + 1))
    finally:
        await close(players)


async def test_lobby_commands_sent_again_change_nothing_more(server: ServerProcess, sync_redis: redis.Redis) -> None:
    """A create, join or start whose reply was lost (the connection or the store died) is sent again with its id:
    the same table, the same seat, the same start — not a second table or seat, nor ``already_started``."""
    async with connect(server.url) as ws:

        async def ask(**msg: object) -> dict[str, Any]:
            """Send ``msg``; its reply (or error), skipping table updates."""
            await ws.send(json.dumps(msg))
            while True:
                reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if reply.get("ref") == msg["ref"]:
                    return reply

        await ask(type="hello", version=1, ref="h")
        cmd, token = secrets.token_urlsafe(16), secrets.token_urlsafe(16)  # fresh: the store outlives a test run
        create = {"type": "create", "game": "mansion", "seats": 2, "cmd": cmd}
        first = await ask(**create, ref="c1")
        again = await ask(**create, ref="c2")
        assert first["type"] == "created" and again["table"] == first["table"]
        table = first["table"]
        other = await ask(**{**create, "cmd": secrets.token_urlsafe(16)}, ref="c3")
        assert other["table"] != table  # another command: another table

        join = {"type": "join", "table": table, "name": "Ada", "token": token}
        ada = await ask(**join, ref="j1")
        ada_again = await ask(**{**join, "name": "Ada again"}, ref="j2")
        assert (ada_again["seat"], ada_again["token"]) == (ada["seat"], ada["token"]) == (0, token)
        short = await ask(type="join", table=table, name="Bo", token="short", ref="j3")
        assert short["type"] == "error" and short["code"] == "bad_field"  # an own token needs 128 bits
        bo = await ask(type="join", table=table, name="Bo", ref="j4")
        assert bo["seat"] == 1  # the first seat was taken once only

        start = {"type": "start", "table": table, "token": token, "cmd": "s-1"}
        started = await ask(**start, ref="s1")
        restarted = await ask(**start, ref="s2")
        assert started["type"] == restarted["type"] == "started" and restarted["seq"] == started["seq"]
        refused = await ask(**{**start, "cmd": "s-2"}, ref="s3")
        assert refused["type"] == "error" and refused["code"] == "already_started"
        seat_rejoined = await ask(**join, ref="j5")  # the seat it holds, even once started
        assert seat_rejoined["seat"] == 0
        assert int(sync_redis.hget(f"{{t:{table}}}", "seq")) == started["seq"] == 3  # two joins, one start


async def test_a_finished_game_frees_its_place_under_the_table_limit(start_server: ServerFactory) -> None:
    """``--max-tables`` counts the tables a connection follows while their games go on and those it created
    without following, so a client may play game after game on one connection (each finished table stayed
    followed, and each create counted for good: with 2, a second game was refused ``limit``)."""
    server = start_server("--max-tables", "2", "--rate", "1000", "--burst", "1000")
    client = Client(server.url)
    await client.connect()
    try:
        for game in range(3):
            table = await client.create("spook", 1)
            held = await client.join(table, "Solo")
            await client.start(table)
            await play([Player(client, table, held.seat, random.Random(game))])
            client.forget(table)
        snapshot = await client.watch(table)  # a finished table, watched: its snapshot and result, then let go
        assert snapshot.status == "over"
        for _ in range(2):  # created and not followed: these count
            await client.create("spook", 1)
        with pytest.raises(ServerError) as refused:
            await client.create("spook", 1)
        assert refused.value.code == "limit"
    finally:
        await client.close()


async def test_a_lobby_takes_a_bounded_number_of_seat_changes_and_still_fills(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """A client joining and leaving in a loop grew the table's log (and its command keys) without end, at its
    message rate, for as long as it liked: every change renews a lobby's day of life, so it never expired.  Joins
    refused past the cap then let anyone lock another's table that way in seconds (still listed as open, never to
    be filled or started): the leaves are refused instead, so the seats taken are kept and the table fills."""
    from protocol.errors import Code
    from server.service import LOBBY_UPDATES
    from server.store import NO_PREFIX

    server = start_server("--rate", "1e6", "--burst", "1000000")
    owner, churner, friend = Client(server.url), Client(server.url), Client(server.url)
    for client in (owner, churner, friend):
        await client.connect()
    try:
        table = await owner.create("mansion", 3)
        await owner.join(table, "Ada")
        while True:
            await churner.join(table, "Eve")
            try:
                await churner.leave(table)
            except ServerError as caught:
                assert caught.code == Code.LIMIT and "kept until the start" in caught.message
                break
        assert sync_redis.xlen(NO_PREFIX.log(table)) == LOBBY_UPDATES
        assert (await friend.join(table, "Bo")).seat == 2  # a join is never refused: the table fills …
        await friend.start(table)  # … and starts
        assert sync_redis.xlen(NO_PREFIX.log(table)) == LOBBY_UPDATES + 2
    finally:
        for client in (owner, churner, friend):
            await client.close()


async def test_listing_in_a_loop_reads_the_lobby_once_a_second(server: ServerProcess, sync_redis: redis.Redis) -> None:
    """A ``list`` read the records of up to 200 tables every time, 25 times a ``ping``'s cost to the server: 16
    connections listing at their message rate kept its core busy and every game waiting.  A lobby read now answers
    the lists of the next second, unless a change made through this process (a create, a join) makes it stale."""

    def lobby_reads() -> int:
        return int(sync_redis.info("commandstats").get("cmdstat_zrevrange", {}).get("calls", 0))

    client = Client(server.url)
    await client.connect()
    try:
        table = await client.create("spook", 2)
        before = lobby_reads()
        for _ in range(40):
            assert table in [t.table for t in await client.list_tables()]
        assert lobby_reads() - before <= 4  # (a read is two; a second may have passed meanwhile)
        await client.join(table, "Ada")
        assert {t.table: t for t in await client.list_tables()}[table].taken == 1  # a change shows at once
    finally:
        await client.close()


async def test_no_flood_of_empty_tables_hides_one_where_someone_waits(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """The lobby lists 200 tables, the latest changed first: one client creating empty tables (some 30 a minute
    from one address, many more from a few) pushed a table where a person sat waiting out of every list in
    minutes.  Tables where a person sits come first; a server-run bot waits for nobody."""
    prefix = f"flood{secrets.token_hex(4)}"
    server = start_server("--key-prefix", prefix, "--max-tables", "300", "--rate", "1000", "--burst", "1000")
    ada, troll = Client(server.url), Client(server.url)
    await ada.connect()
    await troll.connect()
    try:
        waits = await ada.create("mansion", 2)
        await ada.join(waits, "Ada")
        bots_only = await ada.create("spook", 2, bots=1)
        for _ in range(210):
            await troll.create("mansion", 2)
        listed = [t.table for t in await ada.list_tables()]
        assert len(listed) == 200 and listed[0] == waits and bots_only not in listed
        assert waits in [t.table for t in await troll.list_tables("mansion")]
        await ada.leave(waits)  # nobody waits there any more: an empty table among the others
        latest = await troll.create("mansion", 2)
        assert [t.table for t in await ada.list_tables()][:2] == [latest, waits]
    finally:
        await ada.close()
        await troll.close()
        sync_redis.delete(*sync_redis.scan_iter(match=f"{prefix}:*", count=1000))


async def _listed(url: str, **msg: Any) -> tuple[str, dict[str, Any]]:
    """A ``list`` on a fresh connection: its raw frame and its decoded answer."""
    async with connect(url) as ws:
        for message in ({"type": "hello", "version": 1}, {"type": "list", **msg}):
            await ws.send(json.dumps(message))
            frame = await ws.recv()
    return str(frame), json.loads(frame)


async def _until_listed(url: str, table: str, playing: bool) -> tuple[str, dict[str, Any]]:
    """``_listed`` until ``table`` is (or is not) among the games in play: another process's change shows within
    the server's second of lobby cache."""
    for _ in range(40):
        frame, reply = await _listed(url)
        if (table in [t["table"] for t in reply.get("playing", [])]) == playing:
            return frame, reply
        await asyncio.sleep(0.1)
    raise AssertionError(f"{table} {'not ' if playing else ''}listed as in play: {reply}")


async def test_the_public_games_in_play_are_listed_on_every_process_without_hidden_information(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """A spectator needs a table's id to watch it, and ``list`` gave only those not yet started: a game in play
    could not be found.  ``playing`` lists the public ones, on a process other than the one that started them too,
    with nothing a spectator does not see (no token, secret, nonce, hand or Haunt value), and not once over."""
    one, other = start_server(), start_server()
    table, players = await seat_players([one.url], seats=2, seed=7, game="spook")
    hidden, private = await seat_players([one.url], seats=2, seed=8, game="spook", private=True)
    try:
        frame, reply = await _until_listed(other.url, table, playing=True)
        info = next(t for t in reply["playing"] if t["table"] == table)
        assert set(info) == {"table", "game", "seats", "taken", "status", "names", "seq", "started"}, info
        assert (info["game"], info["seats"], info["taken"], info["status"]) == ("spook", 2, 2, "playing")
        assert info["names"] == ["P0", "P1"] and info["seq"] >= 3 and abs(info["started"] - time.time()) < 30
        assert table not in [t["table"] for t in reply["tables"]]  # not open
        assert hidden not in frame  # a private table is never listed
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        secrets_kept = [meta.secret, *meta.nonces, *meta.tokens, *(p.client.seats[table].token for p in players)]
        assert not [s for s in secrets_kept if s and s in frame], frame
        state = get_game("spook").decode_state(sync_redis.hget(NO_PREFIX.record(table), "state"))
        assert not [card for hand in state.hands for card in hand if f'"{card}"' in frame]
        mansion = (await _listed(other.url, game="mansion"))[1].get("playing", [])
        assert table not in [t["table"] for t in mansion] and {t["game"] for t in mansion} <= {"mansion"}
        assert sync_redis.zscore(NO_PREFIX.playing, hidden) is None
        await play(players)
        await _until_listed(one.url, table, playing=False)  # at once where it ended
        await _until_listed(other.url, table, playing=False)
        assert sync_redis.zscore(NO_PREFIX.playing, table) is None
    finally:
        await close(players + private)


async def test_a_game_expired_in_play_leaves_the_list_and_the_index(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    """A table nobody plays on expires (a week after its last change) still in play: the lobby read drops its entry,
    as it does one left from more than a week ago that no read met among the latest."""
    table, players = await seat_players([server.url], seats=2, seed=9, game="spook")
    gone = secrets.token_hex(4)
    sync_redis.zadd(NO_PREFIX.playing, {gone: time.time() - TABLE_TTL - 1})
    try:
        await _until_listed(server.url, table, playing=True)
        sync_redis.delete(NO_PREFIX.record(table))
        await _until_listed(server.url, table, playing=False)
        assert (
            sync_redis.zscore(NO_PREFIX.playing, table) is None and sync_redis.zscore(NO_PREFIX.playing, gone) is None
        )
    finally:
        await close(players)


async def test_a_list_of_one_game_finds_its_tables_behind_many_newer_tables_of_another(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """A ``list`` of one game read the 200 latest open tables (and the 100 latest games in play) of every game,
    then kept that game's: behind 200 newer Spook tables, a mansion table waiting to be joined, or a mansion game
    to watch, was listed to nobody looking for mansion tables."""
    prefix = f"games{secrets.token_hex(4)}"
    server = start_server("--key-prefix", prefix, "--max-tables", "400", "--rate", "1e6", "--burst", "1000000")
    try:
        async with connect(server.url) as ws:

            async def ask(**msg: Any) -> dict[str, Any]:
                await ws.send(json.dumps({**msg, "ref": "r"}))
                while (reply := json.loads(await ws.recv())).get("ref") != "r":
                    pass
                assert reply["type"] != "error", reply
                return reply

            await ask(type="hello", version=1)

            async def started(game: str, seats: int) -> str:
                table = (await ask(type="create", game=game, seats=seats, bots=seats - 1))["table"]
                token = (await ask(type="join", table=table, name="Ada"))["token"]
                await ask(type="start", table=table, token=token)
                return table

            waiting = (await ask(type="create", game="mansion", seats=2))["table"]
            playing = await started("mansion", 2)
            for _ in range(100):
                await started("spook", 1)
            for _ in range(200):
                await ask(type="create", game="spook", seats=2)
        reply = (await _listed(server.url, game="mansion"))[1]
        assert [t["table"] for t in reply["tables"]] == [waiting]
        assert [t["table"] for t in reply["playing"]] == [playing]
        everything = (await _listed(server.url))[1]
        assert len(everything["tables"]) == 200 and waiting not in [t["table"] for t in everything["tables"]]
        assert len(everything["playing"]) == 100 and playing not in [t["table"] for t in everything["playing"]]
    finally:
        sync_redis.delete(*sync_redis.scan_iter(match=f"{prefix}:*", count=1000))
