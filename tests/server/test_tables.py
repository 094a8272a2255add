"""``hauntd tables --stuck``: the tables in play that cannot move on by themselves, found in a real store after a
real server played them, each fault made on purpose."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from typing import Any

import msgspec
import redis

from clients.sdk import Client
from server.launch import ROOT
from server.store import Keys, decode_meta, encode
from tests.server.conftest import ServerFactory
from tests.server.players import close, play, seat_players
from tests.waiting import until

PREFIX = "tables-test"  # its own keys: other tests' tables in the shared store are none of these tests' business
KEYS = Keys.named(PREFIX)


def tables(store_url: str, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """``hauntd tables`` on the test's keys: its exit status and its lines by table."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "tables", "--redis-url", store_url, "--key-prefix", PREFIX, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stderr == "", done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, {row["table"]: row for row in rows}


async def playing(url: str, turn_seconds: float | None = None) -> str:
    """A mansion table of two people, started."""
    first, second = Client(url), Client(url)
    async with first, second:
        table = await first.create("mansion", 2, turn_seconds=turn_seconds)
        await first.join(table, "Ada")
        await second.join(table, "Bo")
        await first.start(table)
    return table


def edit_meta(sync_redis: redis.Redis, table: str, **changes: Any) -> None:
    meta = decode_meta(sync_redis.hget(KEYS.record(table), "meta"))
    sync_redis.hset(KEYS.record(table), "meta", encode(msgspec.structs.replace(meta, **changes)))


async def test_a_deadline_no_process_decides_is_listed_until_one_does(
    start_server: ServerFactory, store_url: str
) -> None:
    """Every process of a deployment stopped or wedged: players saw their turn's clock run out and nothing happen,
    and nothing listed which tables were stuck so.  Once a process polls the schedule again it decides them."""
    server = start_server("--key-prefix", PREFIX)
    table = await playing(server.url, turn_seconds=3)
    server.kill(signal.SIGTERM)  # (before the first time-out: two would leave both seats away, the table paused)
    code, rows = tables(store_url)
    assert code == 0 and rows[table]["stuck"] is None and rows[table]["to_act"], rows
    assert rows[table]["overdue_s"] < 0  # due in a few seconds
    await asyncio.sleep(1.5 - rows[table]["overdue_s"])  # then 1.5 s past it, no process running
    code, rows = tables(store_url, "--stuck", "--late", "1")
    assert code == 1 and rows[table]["stuck"].startswith("its deadline passed"), rows
    assert rows[table]["overdue_s"] >= 1
    start_server("--key-prefix", PREFIX)
    assert await until(lambda: table not in tables(store_url, "--stuck", "--late", "1")[1], 10)


async def test_each_fault_a_table_cannot_leave_by_itself(
    start_server: ServerFactory, store_url: str, sync_redis: redis.Redis
) -> None:
    """A deadline missing from the schedule, a bot's turn without a deadline, a game that prompts nobody: each
    kept a table in play for ever, and only reading its record by hand showed it.  A table waiting for a person
    with no time limit is not stuck."""
    server = start_server("--key-prefix", PREFIX)
    timed, waiting, botless = [await playing(server.url, 60), await playing(server.url), await playing(server.url)]
    ended, players = await seat_players([server.url], seed=4)
    try:
        await play(players)
    finally:
        await close(players)
    server.kill(signal.SIGTERM)
    sync_redis.zrem(KEYS.due, timed)  # as a store restored from an older copy might have it
    edit_meta(sync_redis, botless, bots={seat: "greedy" for seat in range(2)})
    edit_meta(sync_redis, ended, status="playing")  # the final state, which prompts nobody
    code, rows = tables(store_url, "--stuck")
    assert code == 1
    assert rows[timed]["stuck"] == "its deadline is not in the schedule: no process will decide it"
    assert rows[botless]["stuck"].startswith("server-run bot seat(s) ["), rows[botless]
    assert rows[ended]["stuck"] == "no seat can act: the game is playing but prompts no seat"
    assert rows[ended]["to_act"] == []
    assert waiting not in rows
    assert tables(store_url)[1][waiting]["stuck"] is None
