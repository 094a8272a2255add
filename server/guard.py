"""Who may hold a connection, and for how long.

* A cap on simultaneous WebSocket connections per client address: a handshake past it is refused with HTTP 429.
  Loopback addresses are exempt unless told otherwise: local tools (the load tester opens thousands) and a
  reverse proxy connect from there, and behind a proxy the cap belongs in the proxy.
* The idle cut-off: a connection that sends no message for ``idle`` seconds is closed with code 4408 (``idle``).
  WebSocket pings do not count: they prove the socket is alive, not that anyone uses it.

(The browser ``Origin`` allow-list is websockets' own check, configured in ``server/app.py``: HTTP 403.)
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import time
from collections import Counter
from http import HTTPStatus
from typing import TYPE_CHECKING

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Response

from server.http import response
from server.metrics import Metrics

if TYPE_CHECKING:
    from server.connection import Connection

log = structlog.get_logger("hauntd.guard")

IDLE_CLOSE = 4408  # WebSocket close code for a connection idle too long (4000–4999: the application's own)


def _is_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


class Guard:
    def __init__(
        self, metrics: Metrics, *, max_per_ip: int, limit_loopback: bool = False, idle: float | None = None
    ) -> None:
        self.metrics = metrics
        self.max_per_ip = max_per_ip  # 0: no cap
        self.limit_loopback = limit_loopback
        self.idle = idle  # None: never
        self.per_ip: Counter[str] = Counter()
        self.live: set[Connection] = set()
        self._sweeper: asyncio.Task[None] | None = None

    # -- connections per address -------------------------------------------------------------------------
    def admit(self, ws: ServerConnection) -> Response | None:
        """None to go on with the WebSocket handshake, or the refusal to send instead."""
        address = ws.remote_address
        host = address[0] if isinstance(address, tuple) else None
        if host is None or not self.max_per_ip or (_is_loopback(host) and not self.limit_loopback):
            return None
        if self.per_ip[host] >= self.max_per_ip:
            self.metrics.refused.labels("per_ip").inc()
            log.warning("connection_refused", reason="per_ip", peer=host, limit=self.max_per_ip)
            return response(HTTPStatus.TOO_MANY_REQUESTS, b"too many connections from your address\n")
        self.per_ip[host] += 1
        ws.connection_lost_waiter.add_done_callback(lambda _: self._release(host))
        return None

    def _release(self, host: str) -> None:
        self.per_ip[host] -= 1
        if self.per_ip[host] <= 0:
            del self.per_ip[host]

    # -- idle connections --------------------------------------------------------------------------------
    async def start(self) -> None:
        if self.idle is not None:
            self._sweeper = asyncio.create_task(self._sweep(self.idle))

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper

    async def _sweep(self, idle: float) -> None:
        """Close every connection silent for ``idle`` seconds; checks a few times per period."""
        while True:
            await asyncio.sleep(min(5.0, idle / 4))
            now = time.monotonic()
            for conn in [c for c in self.live if now - c.seen > idle]:
                self.live.discard(conn)
                self.metrics.refused.labels("idle").inc()
                conn.log.info("idle_closed", seconds=round(now - conn.seen, 1))
                task = asyncio.create_task(conn.ws.close(IDLE_CLOSE, "idle"))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())
