"""The process's own health, for ``/metrics`` and the logs: every second the ``Watchdog`` measures how late the
event loop ran its timer (a loop blocked by CPU-heavy work serves nothing), stamps a heartbeat (a process
stopped or wedged stops stamping it, which a scrape answered by another worker shows), reads its resident memory
and PINGs the store; at each scrape, ``survey`` reads the lobby's and the schedule's sizes and how far behind
the schedule's deadlines are.

Lines only at a change: ``event_loop_blocked`` (a tick at least ``BLOCKED`` seconds late), ``store_unresponsive``
(no answer to a PING within ``PING_TIMEOUT``) and ``store_responsive`` (answering again, after ``seconds``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

import structlog

from server.metrics import Metrics
from server.store import Store
from server.tasks import cancel

log = structlog.get_logger("hauntd.watchdog")

BLOCKED = 0.5  # seconds late a tick must be to log ``event_loop_blocked``
PING_TIMEOUT = 1.0
OVERDUE = 1.0  # seconds past its deadline a schedule entry counts as overdue (a poll every 0.25 s claims it)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory (Linux ``/proc``; None elsewhere)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return None


class Watchdog:
    def __init__(
        self,
        store: Store,
        metrics: Metrics,
        *,
        every: float = 1.0,
        on_tick: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.redis = store.redis
        self.on_tick = on_tick  # told at each tick (``App.each_second``)
        self.keys = store.keys
        self.metrics = metrics
        self.every = every
        self._down_since: float | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start ticking (the store answered the preflight just before)."""
        self.metrics.heartbeat.set(time.time())
        self.metrics.store_up.set(1)
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        await cancel(self._task)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.every)
            lag = max(0.0, loop.time() - before - self.every)
            self.metrics.loop_lag.observe(lag)
            self.metrics.heartbeat.set(time.time())
            self.on_tick()
            if lag >= BLOCKED:
                log.warning("event_loop_blocked", seconds=round(lag, 3))
            rss = resident_bytes()
            if rss is not None:
                self.metrics.memory.set(rss)
            await self._ping()

    async def _ping(self) -> None:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(PING_TIMEOUT):
                await self.redis.ping()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.metrics.store_up.set(0)
            if self._down_since is None:
                self._down_since = time.monotonic()
                log.warning("store_unresponsive", within=PING_TIMEOUT, error=type(exc).__name__)
            return
        self.metrics.store_ping.observe(time.perf_counter() - started)
        self.metrics.store_up.set(1)
        if self._down_since is not None:
            log.warning("store_responsive", seconds=round(time.monotonic() - self._down_since, 1))
            self._down_since = None

    async def survey(self) -> None:
        """Set the store's figures (``hauntd_lobby_tables``, ``hauntd_playing_tables``, ``hauntd_scheduled_tables``,
        ``hauntd_deadlines_overdue`` and its ``_seconds``) for a scrape; NaN when the store does not answer within
        ``PING_TIMEOUT``.  The lobby counts as the list does (``Store.count_lobby``)."""
        now = time.time()
        m = self.metrics
        try:
            async with asyncio.timeout(PING_TIMEOUT):
                lobby = await self.store.count_lobby(now)
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.zcard(self.keys.playing)
                    pipe.zcard(self.keys.due)
                    pipe.zcount(self.keys.due, "-inf", repr(now - OVERDUE))
                    pipe.zrange(self.keys.due, 0, 0, withscores=True)
                    playing, scheduled, overdue, first = await pipe.execute()
        except asyncio.CancelledError:
            raise
        except Exception:
            for gauge in (m.lobby, m.playing, m.scheduled, m.overdue, m.overdue_age):
                gauge.set(float("nan"))
            return
        m.lobby.set(lobby)
        m.playing.set(playing)
        m.scheduled.set(scheduled)
        m.overdue.set(overdue)
        m.overdue_age.set(max(0.0, now - first[0][1]) if overdue and first else 0.0)
