"""A table its store sets back: a Redis restarted from an older snapshot (RDB, no append-only file) or a replica
promoted before it had the last writes holds the table at an older ``seq`` than its players were sent.  The
table's hub is ended, its followers told (``not_found``, saying so) and a warning logged, and whoever follows it
again from the start plays on from the stored state.  The store's side is simulated by putting back a copy of the
table's keys (``DUMP`` / ``RESTORE``), which is what such a restart does to them."""

from __future__ import annotations

import redis
from websockets.asyncio.client import ClientConnection

from clients.sdk import Client
from protocol.errors import Code
from protocol.messages import Act, Error, Snapshot
from server.service import token_digest
from server.store import NO_PREFIX, Missing
from tests.server.conftest import ServerFactory
from tests.server.drive import next_move, stored_seq
from tests.server.players import close, play, seat_players
from tests.server.test_expiry import A, B, ask, in_process, raw, started
from tests.server.test_hub import Socket


def names(table: str) -> tuple[str, str, str]:
    return NO_PREFIX.record(table), NO_PREFIX.log(table), NO_PREFIX.cmds(table)


def copy(sync_redis: redis.Redis, table: str) -> dict[str, bytes]:
    return {k: sync_redis.dump(k) for k in names(table) if sync_redis.exists(k)}


def put_back(sync_redis: redis.Redis, table: str, keys: dict[str, bytes]) -> None:
    sync_redis.delete(*names(table))
    for name, value in keys.items():
        sync_redis.restore(name, 0, value)


async def test_a_table_set_back_ends_its_hub_at_the_resync_or_the_next_command(
    store_url: str, sync_redis: redis.Redis
) -> None:
    """The hub kept the newer table: the resync took the store's lower seq for nothing new, and every command
    met a conflict it judged again on that same record, eight times, then answered ``busy`` — for good."""
    async with in_process(store_url) as (fanout, service):  # resynced by hand below
        table, hub = await started(fanout, service)
        older = copy(sync_redis, table)  # at seq 3
        seat, action, seq = next_move(sync_redis, table)
        await service.act(hub, seat, Act(table=table, token=(A, B)[seat], cmd="x", action=action, seq=seq))
        follower = Socket()
        await hub.attach(follower, 0, None, None, token_digest(A))
        put_back(sync_redis, table, older)
        await fanout.resync()
        notice = follower.got[-2]
        assert hub.gone and fanout.hubs == {} and isinstance(notice, Error) and notice.code == Code.NOT_FOUND
        assert (
            notice.message
            == f"table {table} is gone (its store lost the updates after 3: follow it again from the start)"
        )

        hub = await fanout.hub(table)  # followed again: the table as stored, played on from there
        assert hub.seq == 3
        await service.act(hub, seat, Act(table=table, token=(A, B)[seat], cmd="y", action=action, seq=seq))
        seat, action, seq = next_move(sync_redis, table)
        put_back(sync_redis, table, older)  # and again, found this time by a command, before any resync
        try:
            await service.act(hub, seat, Act(table=table, token=(A, B)[seat], cmd="z", action=action, seq=seq))
        except Missing:
            pass
        else:
            raise AssertionError("committed on a set-back table")
        assert hub.gone and fanout.hubs == {}


async def test_players_of_a_table_set_back_are_told_and_play_on_from_where_it_is(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """The notice says which update the table is at now (``seq``), and so does a resume's refusal past it; the SDK
    follows the table again from there by itself (it forgot the table and its seat: a bot waited for ever)."""
    server = start_server("--rate", "1e6", "--burst", "1000000")
    table, players = await seat_players([server.url], seats=2, game="ghost-at-home", seed=3)
    try:
        await play(players, stop_at=10)
        older = copy(sync_redis, table)
        stored = stored_seq(sync_redis, table)
        await play(players, stop_at=20)
        tokens = [p.client.seats[table].token for p in players]
        put_back(sync_redis, table, older)
        for p in players:  # within a resync (2 s), after the updates still unread
            while not isinstance(told := await p.client.recv(timeout=10), Error):
                pass
            assert told.code == Code.NOT_FOUND and told.seq == stored and f"after {stored}" in told.message
            assert p.client.seats[table].token in tokens and p.client.last_seq[table] == stored
        stale: ClientConnection = await raw(server.url)  # a client still at the seq it was sent
        reply, _ = await ask(stale, {"type": "resume", "table": table, "token": tokens[0], "last_seq": 20}, "r")
        assert reply["code"] == Code.BAD_FIELD and f"past the table's last update, {stored}" in reply["message"]
        assert reply["seq"] == stored
        await stale.close()
        await play(players)  # from the snapshot each client asked for by itself
        assert all(p.result is not None for p in players)
        for p in players:
            assert [m.seq for m in p.received if isinstance(m, Snapshot)][-1] == stored
    finally:
        await close(players)
    (line,) = [line for line in server.log_lines() if line["event"] == "table_set_back"]
    assert line["level"] == "warning" and line["table"] == table and line["stored"] == stored
    assert [line for line in server.log_lines() if line["level"] == "error"] == []


async def test_a_client_resuming_past_the_tables_last_update_is_refused(start_server: ServerFactory) -> None:
    """It was sent a snapshot older than what it had, which the SDK took for one it had seen (its ``last_seq``
    kept), dropping every update up to the one it knew."""
    server = start_server()
    async with Client(server.url) as c:
        table = await c.create("mansion", 2)
        token = (await c.join(table, "Ada")).token
    ws = await raw(server.url)
    reply, _ = await ask(ws, {"type": "resume", "table": table, "token": token, "last_seq": 7}, "r")
    assert reply["code"] == Code.BAD_FIELD
    await ws.close()
