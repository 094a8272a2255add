"""Several ``hauntd serve`` processes sharing one store: seats split across them, racing commands."""

from __future__ import annotations

import asyncio

import redis

from clients.sdk import Client
from protocol.messages import Accepted, Rejected
from server.store import NO_PREFIX
from tests.server.conftest import ServerFactory
from tests.server.drive import next_move, stored_seq
from tests.server.players import assert_gapless, close, play, seat_players


async def test_seats_split_across_two_processes(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    a, b = start_server(), start_server()
    table, players = await seat_players([a.url, b.url], seed=2)
    try:
        await play(players)
    finally:
        await close(players)
    final = stored_seq(sync_redis, table)
    assert all(p.result == players[0].result for p in players)
    for p in players:
        assert_gapless(p, final)


async def test_racing_commands_from_two_processes_commit_once(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    a, b = start_server(), start_server()
    table, players = await seat_players([a.url], seed=3)
    twins = [Client(b.url, client=f"twin{i}") for i in range(4)]
    try:
        for twin, p in zip(twins, players, strict=True):
            await twin.connect()
            await twin.resume(table, p.client.seats[table].token)
        for i in range(12):
            seat, action, seq = next_move(sync_redis, table)
            here, there = players[seat].client, twins[seat]
            # the same command through both processes at once: applied once, both told the same seq
            same = await asyncio.gather(here.act(table, action, cmd=f"dup{i}"), there.act(table, action, cmd=f"dup{i}"))
            assert all(isinstance(r, Accepted) and r.seq == seq + 1 for r in same), same
            assert sync_redis.xlen(NO_PREFIX.log(table)) == seq + 1
            # two different commands for the same version: the compare-and-set lets exactly one through
            seat, action, seq = next_move(sync_redis, table)
            _, other, _ = next_move(sync_redis, table, pick=1)
            here, there = players[seat].client, twins[seat]
            both = await asyncio.gather(here.act(table, action, seq=seq), there.act(table, other, seq=seq))
            accepted = [r for r in both if isinstance(r, Accepted)]
            rejected = [r for r in both if isinstance(r, Rejected)]
            assert len(accepted) == 1 and len(rejected) == 1 and rejected[0].code == "stale", both
            assert stored_seq(sync_redis, table) == seq + 1 == sync_redis.xlen(NO_PREFIX.log(table))
    finally:
        await close(players)
        for twin in twins:
            await twin.close()
