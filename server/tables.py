"""``hauntd tables``: the tables in play in a store, one JSON line each, and with ``--stuck`` only those that cannot
move on by themselves, each with why.  A table in play is stuck when

* no seat can act: the game is playing but prompts nobody (an engine fault: nothing ever moves it again);
* a server-run bot must act but has no deadline (a bot's decision always falls due at once, ``service.deadlines``);
* its earliest deadline is not in the schedule (``Keys.due``): no process will ever decide it — the store set
  back, or its keys edited by hand;
* its earliest deadline passed more than ``--late`` seconds ago: no process polls the schedule (each stopped or
  wedged), or the decision keeps failing (a ``deadline_failed`` line names the table and why).

A table waiting for a person to act without a time limit, or paused (every person away), is not stuck: it waits.
Finding the tables takes a ``SCAN`` of the store's keys (it does not block the store as ``KEYS`` would), then a
read of each table in play; the hidden values are never printed (seats, prompt kinds and times only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import msgspec
import redis.asyncio as aioredis

from engine.contract import Prompt
from engine.registry import get_game
from server import cli
from server.app import redacted
from server.preflight import reach
from server.store import Keys, Missing, Record, Store, TableMeta, TooNew

LATE = 30.0  # default ``--late``: seconds past a deadline (the schedule's lease is 5 s, its poll 0.25 s)


def stuck(meta: TableMeta, prompts: dict[int, Prompt], scheduled: float | None, now: float, late: float) -> str | None:
    """Why a table in play, prompting ``prompts``, cannot move on by itself (see the module), or None;
    ``scheduled``: its entry's score in the schedule, if any."""
    if not prompts:
        return "no seat can act: the game is playing but prompts no seat"
    bots = sorted(seat for seat in prompts if seat in meta.bots and seat not in meta.deadlines)
    if bots:
        return f"server-run bot seat(s) {bots} must act but have no deadline"
    due = meta.due()
    if due is not None and scheduled is None:
        return "its deadline is not in the schedule: no process will decide it"
    if due is not None and now - due > late:
        return f"its deadline passed {now - due:.0f} s ago and was not decided"
    return None


def describe(table: str, record: Record, scheduled: float | None, now: float, late: float) -> dict[str, Any]:
    """A table in play as a JSON line: who must act, its deadline, and whether (and why) it is stuck."""
    meta = record.meta
    game = get_game(meta.game)
    row: dict[str, Any] = {"table": table, "game": meta.game, "seq": record.seq}
    try:
        prompts = game.prompts(game.decode_state(record.state))
    except msgspec.DecodeError as exc:
        return {**row, "stuck": f"its stored state does not decode ({exc})"}
    due = meta.due()
    row["to_act"] = [
        {"seat": seat, "kind": prompt.kind, "bot": seat in meta.bots, "away": seat in meta.away}
        for seat, prompt in sorted(prompts.items())
    ]
    row["paused"] = meta.paused
    row["overdue_s"] = round(now - due, 1) if due is not None else None
    row["stuck"] = stuck(meta, prompts, scheduled, now, late)
    return row


async def in_play(client: aioredis.Redis, keys: Keys) -> list[str]:
    """The ids of the tables whose record is in the store (``SCAN``), of every status."""
    head = keys.record("")[:-1]  # ``PREFIX{t:``
    found = []
    async for name in client.scan_iter(match=head + "*}", count=1000, _type="hash"):
        found.append(name.decode()[len(head) : -1])
    return found


async def survey(url: str, prefix: str, late: float) -> list[dict[str, Any]]:
    client = aioredis.Redis.from_url(url)
    try:
        await reach(client, redacted(url), 0)
        keys = Keys.named(prefix)
        store = Store(client, keys)
        rows = []
        for table in await in_play(client, keys):
            try:
                record = await store.load(table)
            except (Missing, TooNew):
                continue  # gone since the scan, or a newer hauntd's: that version lists it
            if record.meta.status != "playing":
                continue
            scheduled = await client.zscore(keys.due, table)
            rows.append(describe(table, record, scheduled, time.time(), late))
        return rows
    finally:
        await client.aclose()


# -- the command -------------------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stuck",
        action="store_true",
        help="only the tables that cannot move on by themselves, each with why (exit status 1 if any)",
    )
    parser.add_argument(
        "--late",
        type=cli.non_negative,
        default=LATE,
        metavar="SECONDS",
        help="how long past its deadline a table counts as stuck (default: %(default)s)",
    )
    cli.add_store_url(parser)


def run(args: argparse.Namespace) -> int:
    if not args.redis_url:
        print("hauntd tables: give --redis-url (or set REDIS_URL)", file=sys.stderr)
        return 2
    rows = asyncio.run(survey(args.redis_url, args.key_prefix, args.late))
    shown = [row for row in rows if row["stuck"]] if args.stuck else rows
    for row in shown:
        print(json.dumps(row))
    return 1 if args.stuck and shown else 0
