"""The schedule of deadlines, held in Redis so any server process enforces them and a restart loses none.

``Keys.due`` is a sorted set: a table id scored by the earliest deadline in its record (when the server decides for
a seat: a turn's time limit, an away seat's grace, a server-run bot's move).  The commit script writes a table's
entry in the same atomic step as its record, so the entry always matches the latest committed state — except
while a process holds a *claim* on it:

* ``claim`` takes every due table (up to a batch) and moves its entry to a lease time a few seconds ahead, in one
  atomic step, so one process at a time handles a deadline;
* a commit to the table overwrites the lease with the table's new earliest deadline (or removes the entry);
* ``settle`` sets or removes the entry only while the caller's lease is still there, i.e. nothing committed since
  the claim, so it can never undo a newer commit's entry.

A process that dies holding a claim loses nothing: the lease runs out and any process claims the table again.
The decision itself commits through the table's compare-and-set with a command key naming the ``seq`` it was
made at, so it is applied exactly once however many processes race for it.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from server.store import NO_PREFIX, Keys

# KEYS: due.  ARGV: now, lease score, batch size.  Returns the claimed table ids.
_CLAIM = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids
"""

# KEYS: due.  ARGV: table id, lease score, new score ('' removes).  Returns 1 when the lease was still held.
_SETTLE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


class Schedule:
    def __init__(self, client: aioredis.Redis, keys: Keys = NO_PREFIX) -> None:
        self._due = keys.due
        self._claim = client.register_script(_CLAIM)
        self._settle = client.register_script(_SETTLE)

    async def claim(self, now: float, lease: float, batch: int) -> list[str]:
        """The tables due at ``now``, each now held by this caller until ``lease`` (a unique score)."""
        ids: list[Any] = await self._claim(keys=[self._due], args=[repr(now), repr(lease), batch])
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def settle(self, table: str, lease: float, due: float | None) -> bool:
        """Reschedule ``table`` at ``due`` (None: drop it) if the claim at ``lease`` still holds."""
        return bool(
            await self._settle(keys=[self._due], args=[table, repr(lease), repr(due) if due is not None else ""])
        )
