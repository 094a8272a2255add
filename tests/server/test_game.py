"""A whole 4-seat Call of the Spirits game over real sockets against a real server and store."""

from __future__ import annotations

import urllib.request

import redis

from engine.fairness import verify
from server.store import NO_PREFIX
from tests.server.conftest import ServerProcess
from tests.server.players import assert_gapless, close, play, seat_players


async def test_four_seat_mansion_game_to_the_end(server: ServerProcess, sync_redis: redis.Redis) -> None:
    table, players = await seat_players([server.url] * 4)
    try:
        await play(players)
    finally:
        await close(players)
    final = int(sync_redis.hget(NO_PREFIX.record(table), "seq"))
    assert sync_redis.xlen(NO_PREFIX.log(table)) == final  # one log entry per update, nothing else
    results = [p.result for p in players]
    assert results[0] is not None
    assert all(r == results[0] for r in results)  # everyone sees the same final reveal
    result = results[0].result
    assert len(result["scores"]) == 4 and result["winners"]
    assert verify(result["seed"], table, results[0].commitment)  # M30: the seed matches the commitment
    assert results[0].seq == final
    for p in players:
        assert_gapless(p, final)
    assert sum(p.acted for p in players) == final - 5  # 4 joins and the start; every other update an action
    metrics = urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode()
    assert "hauntd_actions_total" in metrics and "hauntd_action_latency_seconds_bucket" in metrics
    assert urllib.request.urlopen(f"{server.http}/healthz", timeout=5).read() == b"ok\n"
