"""``hauntd chaos``: a short run survives kills, cuts and a store restart with nothing lost, doubled, skipped or
leaked; and the audit does see a lost action, a doubled command and a skipped seq when there is one."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys

import redis.asyncio as aioredis

from clients.bots.base import get_strategy
from clients.chaos import ChaosBot, Ledger, audit, passed
from clients.leaks import LeakChecker
from clients.loadstats import Stats
from clients.loadtest import Clock, died
from clients.sdk import Client
from protocol.messages import Events, Snapshot
from server.launch import ROOT
from server.store import NO_PREFIX, Batch, Store, TableMeta, encode

ZERO = ("lost_actions", "duplicate_actions", "sequence_gaps", "replay_failures", "leaks")


def test_a_short_chaos_run_loses_nothing() -> None:
    command = [sys.executable, "-m", "server.cli", "chaos", "--tables", "4", "--processes", "2", "--duration", "22"]
    command += ["--kill-every", "7", "--drop-every", "1", "--grace", "20", "--seed", "3", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["processes"] == 2 and report["tables"] == 4
    assert report["kills"] >= 1 and report["dropped_connections"] >= 1 and report["redis_restarts"] == 1
    assert report["games_started"] >= 4 and report["games_completed"] == report["games_started"]
    assert report["logged_updates"] >= report["actions"] > 500
    assert report["games_replayed"] == report["games_completed"]  # each replayed from its log (hauntd verify)
    assert all(report[key] == 0 for key in ZERO), report
    assert report["reconnects"] >= report["kills"]  # each kill cut that server's connections
    assert "progress" not in done.stdout and "games" in done.stderr  # the progress line is on stderr only


async def test_the_audit_sees_a_lost_action_a_doubled_command_and_a_skipped_seq(store_url: str) -> None:
    client = aioredis.Redis.from_url(store_url)
    store = Store(client)
    table = "audit" + str(random.randrange(10**9))
    meta = TableMeta(game="mansion", seats=2, names=["A", "B"], tokens=[None, None], status="playing")
    try:
        assert await store.create(table, meta)
        for seq, cmd in ((1, "c:0:a"), (2, "c:1:b"), (3, "c:0:c")):
            await store.commit(table, seq - 1, meta, None, Batch(seq=seq, at=0.0, seat=int(cmd[2])), cmd)
        ledger = Ledger(started={table})
        ledger.accepted[table] = [(0, "a", 1), (1, "b", 2), (0, "c", 3)]
        assert await audit(store_url, ledger) == {
            "lost_actions": 0,
            "duplicate_actions": 0,
            "log_gaps": 0,
            "logged_updates": 3,
            "replay_failures": 0,
            "replay_examples": {},
        }
        ledger.accepted[table].append((1, "d", 2))  # told accepted as 2, but 2 is another command
        await client.xadd(NO_PREFIX.log(table), {"b": encode(Batch(seq=5, at=0.0, seat=0, cmd="c:0:a"))}, id="5-0")
        await client.hset(NO_PREFIX.record(table), "seq", 5)  # and 4 is missing from the log
        ledger.completed.add(table)  # and said to be over, though its record is not: it cannot be replayed
        found = await audit(store_url, ledger)
        assert found == {
            "lost_actions": 1,
            "duplicate_actions": 1,
            "log_gaps": 1,
            "logged_updates": 4,
            "replay_failures": 1,
            "replay_examples": {table: ["the game is playing: its seed is revealed only at the end"]},
        }
        report = {"games_started": 1, "games_completed": 1, **found, "sequence_gaps": found["log_gaps"], "leaks": 0}
        assert not passed(report)
    finally:
        await client.delete(NO_PREFIX.record(table), NO_PREFIX.log(table), NO_PREFIX.cmds(table))
        await client.aclose()


def test_a_seat_handed_an_update_out_of_order_is_counted() -> None:
    ledger = Ledger()
    game = "mansion"
    bot = ChaosBot(
        ledger,
        Stats(recording=True),
        Clock(4),
        LeakChecker(game, 0, {}),
        Client("ws://unused"),
        "T",
        0,
        get_strategy(game, "random"),
        random.Random(1),
    )
    bot.observe(Snapshot(table="T", game=game, seq=3, status="playing", seats=[]))
    for seq in (4, 5, 7, 7):
        bot.observe(Events(table="T", seq=seq))
    assert ledger.seat_gaps == 2  # 7 after 5, then 7 again


async def test_a_runner_or_helper_that_died_fails_the_run() -> None:
    """What ``gather(..., return_exceptions=True)`` hands back for tasks that died of their own failure (not a
    cancellation) is counted, and a chaos run with any such death does not pass: it tested less than it says."""

    async def fails() -> None:
        raise RuntimeError("a bug in a runner")

    async def waits() -> None:
        await asyncio.sleep(10)

    tasks = [asyncio.create_task(fails()), asyncio.create_task(waits()), asyncio.create_task(asyncio.sleep(0))]
    await asyncio.sleep(0.01)
    tasks[1].cancel()
    assert died(await asyncio.gather(*tasks, return_exceptions=True)) == {"RuntimeError": 1}
    clean = {"games_started": 3, "games_completed": 3, "harness_errors": {}} | dict.fromkeys(ZERO, 0)
    assert passed(clean) and not passed(clean | {"harness_errors": {"RuntimeError": 1}})
