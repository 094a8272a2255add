"""Every server process runs one ``Autoplay``: it claims the tables whose deadline has passed from the schedule
in Redis (``server/schedule.py``) and has the service decide for the seat (a time-out's default, a bot's move).

It polls the schedule every ``poll`` seconds, which covers deadlines set by other processes, by a process that
died, or before a restart; deadlines this process commits itself wake it at the exact time.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time

import redis.asyncio as aioredis
import structlog

from server.schedule import Schedule
from server.service import TableService
from server.store import Missing, Store
from server.tasks import cancel

log = structlog.get_logger("hauntd.autoplay")


class Autoplay:
    def __init__(
        self,
        store: Store,
        client: aioredis.Redis,
        service: TableService,
        *,
        poll: float = 0.25,
        lease: float = 5.0,
        batch: int = 32,
    ) -> None:
        self.store = store
        self.schedule = Schedule(client, store.keys)
        self.service = service
        self.poll, self.lease, self.batch = poll, lease, batch
        self._wake = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")
        self._task: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()
        self._closing = False
        store.on_due = self.wake_at

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        self._closing = True
        await cancel(self._task, *self._handling)
        if self._timer is not None:
            self._timer.cancel()

    def wake_at(self, when: float) -> None:
        """Look at the schedule at ``when`` (a Unix time) at the latest."""
        delay = when - time.time()
        if delay <= 0:
            self._wake.set()
        elif when < self._timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer_at = when
            self._timer = asyncio.get_running_loop().call_later(delay + 0.001, self._ring)

    def _ring(self) -> None:
        self._timer, self._timer_at = None, float("inf")
        self._wake.set()

    async def _run(self) -> None:
        while not self._closing:
            self._wake.clear()
            claimed: list[str] = []
            try:
                now = time.time()
                lease = now + self.lease + secrets.randbelow(1_000_000) / 1e9  # unique: settle compares it
                claimed = await self.schedule.claim(now, lease, self.batch)
                for table in claimed:
                    task = asyncio.create_task(self._handle(table, lease))
                    self._handling.add(task)
                    task.add_done_callback(self._handling.discard)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.store.failed(log, "schedule_poll_failed", exc)
            if len(claimed) < self.batch:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll):  # (not wait_for: on 3.11 it can swallow a cancel)
                        await self._wake.wait()

    async def _handle(self, table: str, lease: float) -> None:
        try:
            try:
                record = await self.store.load(table)
            except Missing:
                await self.schedule.settle(table, lease, None)
                return
            due = record.meta.due()
            if due is None or due > time.time():  # nothing due any more, or not yet: back in the schedule
                if await self.schedule.settle(table, lease, due) and due is not None:
                    self.wake_at(due)
                return
            deadlines = record.meta.deadlines
            seat = min(deadlines, key=lambda s: (deadlines[s], s))
            self.service.metrics.deadline_lateness.observe(time.time() - due)
            await self.service.decide(table, record, seat)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the lease runs out and the table is tried again
            self.store.failed(log, "deadline_failed", exc, table=table)
