"""Per-decision time limits: the rules' default is applied when a deadline passes, once, by any process."""

from __future__ import annotations

import asyncio
import contextlib

import redis

from protocol.messages import Prompts, Snapshot
from server.store import decode_batch, log_key
from tests.server.conftest import ServerFactory
from tests.server.drive import stored_seq
from tests.server.players import close, seat_players


async def test_time_outs_apply_the_default_once(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    a, b = start_server(), start_server()
    table, players = await seat_players([a.url, b.url], seed=9, turn_seconds=0.4)
    try:
        started = stored_seq(sync_redis, table)
        first = await players[0].client.recv(timeout=5)
        while not isinstance(first, Snapshot) or first.status != "playing":
            first = await players[0].client.recv(timeout=5)
        assert first.prompts and all(p.deadline is not None for p in first.prompts)
        for _ in range(100):  # nobody plays: both processes race to time the turns out
            if stored_seq(sync_redis, table) >= started + 3:
                break
            await asyncio.sleep(0.1)
        now = stored_seq(sync_redis, table)
        assert now >= started + 3
        batches = [decode_batch(fields[b"b"]) for _, fields in sync_redis.xrange(log_key(table))]
        assert [b.seq for b in batches] == list(range(1, now + 1))  # each time-out committed once
        assert all(b.timeout and b.seat is not None for b in batches[started:])
        received = []
        with contextlib.suppress(TimeoutError):
            while True:
                received.append(await players[1].client.recv(timeout=0.2))
        prompts = [m for m in received if isinstance(m, Prompts)]
        assert prompts and all(p.deadline for m in prompts for p in m.prompts)
    finally:
        await close(players)
