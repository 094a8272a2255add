"""Who may hold a connection, for how long, and how much one client address may ask for.

* A cap on simultaneous WebSocket connections per client address: a handshake past it is refused with HTTP 429.
  Loopback addresses are exempt unless told otherwise: local tools (the load tester opens thousands) and a
  reverse proxy connect from there.  An IPv6 client is counted by its /64 network (``counted_as``), here and in
  the budgets below.
* The client's address behind a reverse proxy: a connection from a trusted proxy (``--trusted-proxy``) is counted
  against the address its ``X-Forwarded-For`` names, not against the proxy's, which every client shares.
* A budget of new tables per client address (``tables_per_minute``, the same exemption): a table lives on in the
  store after its creator left (a day in the lobby), so without it one client reconnecting in a loop could fill
  the store and the lobby.  Past it a ``create`` is refused ``rate_limited``.
* A cap on the open public tables (not started, a seat free) per client address (``open_tables``, the same
  exemption): within its budget one address still had a few hundred tables waiting in the lobby in a few minutes,
  every one listed until it expired.  Counted in the store (``Store.create``), so it holds across processes, and
  only while someone is there (``ABANDONED``); past it a ``create`` is refused ``open_limit``.
* A cap on the places one client address holds as a spectator (``watchers_per_ip``, the same exemption): each
  of its connections watching a table holds one.  ``--max-watchers`` caps a table's spectators, so without it a
  few addresses could take every place at a table and shut everyone else out.  Past it a ``watch`` is refused
  ``limit``; counted by each process, as the connections are (``Held``).
* A budget of updates replayed per client address (``REPLAYS_PER_MINUTE``, the same exemption): a ``watch`` or
  ``resume`` from an old ``last_seq`` costs the server every update since, redacted and encoded anew, for one
  small frame; past the budget it is refused ``rate_limited``.
* The idle cut-off: a connection that sends no message for ``idle`` seconds is closed with code 4408 (``idle``),
  counted from the end of its last command's handling (a replay at the client's pace is one: its next messages
  wait unread meanwhile), or from when it was last found taking in what it was sent.  WebSocket pings do not
  count: they prove the socket is alive, not that anyone uses it.
* The browser ``Origin`` allow-list (``--allowed-origin``): a handshake with another ``Origin`` gets HTTP 403;
  clients that send none (not browsers) are let in.  Checked here rather than by websockets' ``origins`` so that a
  refusal is logged and counted: a mistyped allow-list otherwise turned every browser away without a trace.
"""

from __future__ import annotations

import asyncio
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
from server.tasks import cancel

if TYPE_CHECKING:
    from server.connection import Connection

log = structlog.get_logger("hauntd.guard")

IDLE_CLOSE = 4408  # WebSocket close code for a connection idle too long (4000–4999: the application's own)


_BUCKETS = 4096  # addresses whose table (or replay) budgets are kept before the full ones are forgotten
REFUSALS_LOGGED_PER_MINUTE = 10
"""Refused handshakes logged a minute for one address (all are counted in ``/metrics``): each one wrote a line, so a
client knocking at a closed door as fast as it could (2,900 times a second) filled the log at no cost to itself."""
REPLAYS_PER_MINUTE = 20_000
"""Updates one client address may have replayed a minute (as many at once): a few long games resumed from their
start.  Replaying a 5,000-update table from seq 0 took 60 ms of the server's time, so one connection asking it
again and again (or reconnecting to ask it) kept the server busy with nothing else."""


class TokenBucket:
    """``rate`` a second on average (messages, tables …), ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, amount: float = 1.0) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= amount:
            self.tokens -= amount
            return True
        return False

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class Held:
    """What each client address holds at once (connections, places as a spectator), at most ``cap`` each."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts: Counter[str] = Counter()

    def take(self, address: str) -> bool:
        """Hold one more for ``address``, unless it holds ``cap`` already."""
        if self.counts[address] >= self.cap:
            return False
        self.counts[address] += 1
        return True

    def release(self, address: str) -> None:
        self.counts[address] -= 1
        if self.counts[address] <= 0:
            del self.counts[address]


class Budgets:
    """One budget per client address: ``per_minute`` at once, then refilled evenly.  Only addresses that used
    some of theirs lately are kept (the full ones are forgotten past ``_BUCKETS`` addresses)."""

    def __init__(self, per_minute: float) -> None:
        self.per_minute = per_minute
        self.buckets: dict[str, TokenBucket] = {}
        self.pruned = 0.0  # when the full budgets were last forgotten

    def take(self, host: str, amount: float = 1.0) -> bool:
        bucket = self.buckets.get(host)
        if bucket is None:
            now = time.monotonic()
            if len(self.buckets) >= _BUCKETS and now - self.pruned >= 1.0:  # (at most once a second: a walk)
                self.buckets = {h: b for h, b in self.buckets.items() if not b.full(now)}
                self.pruned = now
            bucket = self.buckets[host] = TokenBucket(self.per_minute / 60, max(1, int(self.per_minute)))
        return bucket.take(amount)


def host_of(ws: ServerConnection) -> str | None:
    """The address the connection comes from (None for a Unix socket)."""
    address = ws.remote_address
    return address[0] if isinstance(address, tuple) else None


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address (an IPv4 one mapped into IPv6 as itself), or None for no address."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def _forwarded(hop: str) -> str | None:
    """An X-Forwarded-For entry's address: "203.0.113.9", "2001:db8::7", or either with the port some proxies
    add ("203.0.113.9:4711", "[2001:db8::7]:4711"); None for anything else ("unknown", "_hidden")."""
    hop = hop.strip()
    if hop.startswith("["):
        hop = hop[1:].partition("]")[0]
    elif hop.count(":") == 1:
        hop = hop.partition(":")[0]
    return hop if _ip(hop) is not None else None


def counted_as(host: str) -> str:
    """What an address's caps and budgets count against: an IPv4 address itself, an IPv6 one its /64 network,
    which one host or household is handed whole (counted address by address, such a client had 2**64 of each)."""
    address = _ip(host)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host if address is None else str(address)


def _is_loopback(host: str) -> bool:
    address = _ip(host)
    return address is not None and address.is_loopback


class Guard:
    def __init__(
        self,
        metrics: Metrics,
        *,
        max_per_ip: int,
        limit_loopback: bool = False,
        idle: float | None = None,
        tables_per_minute: float = 0.0,
        open_tables: int = 0,
        watchers_per_ip: int = 0,
        trusted_proxies: tuple[str, ...] = (),
        allowed_origins: tuple[str, ...] = (),
    ) -> None:
        self.metrics = metrics
        self.origins = frozenset(allowed_origins)  # empty: any
        self.proxies = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies]
        self.max_per_ip = max_per_ip  # 0: no cap
        self.limit_loopback = limit_loopback
        self.idle = idle  # None: never
        self.tables_per_minute = tables_per_minute  # 0: no cap
        self.open_tables = open_tables  # 0: no cap
        self.per_ip = Held(max_per_ip)  # connections
        self.watching = Held(watchers_per_ip)  # places as a spectator (0: no cap)
        self.creates = Budgets(tables_per_minute)
        self.replays = Budgets(REPLAYS_PER_MINUTE)
        self.refusals_logged = Budgets(REFUSALS_LOGGED_PER_MINUTE)
        self.live: set[Connection] = set()
        self._sweeper: asyncio.Task[None] | None = None

    # -- the client's address ---------------------------------------------------------------------------
    def client(self, ws: ServerConnection) -> str | None:
        """The client's address: the connection's, or, coming from a trusted proxy, the address its
        ``X-Forwarded-For`` names last that is not itself a trusted proxy (each proxy appends the address it was
        reached from; what a client wrote itself stays on the left, unread).  An entry that is no address
        ("unknown") leaves the proxy's own."""
        host = host_of(ws)
        if not self.proxies or host is None or ws.request is None:
            return host
        hops = [hop for value in ws.request.headers.get_all("X-Forwarded-For") for hop in value.split(",")]
        while hops and self._trusted(host) and (hop := _forwarded(hops.pop())) is not None:
            host = hop
        return host

    def _trusted(self, host: str) -> bool:
        address = _ip(host)
        return address is not None and any(address in network for network in self.proxies)

    # -- connections per address -------------------------------------------------------------------------
    def admit(self, ws: ServerConnection) -> Response | None:
        """None to go on with the WebSocket handshake, or the refusal to send instead."""
        host = self.client(ws)
        if self.origins and ws.request is not None:
            sent = ws.request.headers.get_all("Origin")
            if len(sent) > 1 or (sent and sent[0] not in self.origins):
                self._refused("origin", host, origin=", ".join(sent)[:200])
                return response(HTTPStatus.FORBIDDEN, b"this page's Origin may not open a WebSocket here\n")
        counted = self.counted(host, self.max_per_ip)
        if counted is None:
            return None
        if not self.per_ip.take(counted):
            self._refused("per_ip", host, limit=self.max_per_ip)
            return response(HTTPStatus.TOO_MANY_REQUESTS, b"too many connections from your address\n")
        ws.connection_lost_waiter.add_done_callback(lambda _: self.per_ip.release(counted))
        return None

    def _refused(self, reason: str, host: str | None, **fields: object) -> None:
        """Count a refused handshake, and log it unless its address had its lines this minute already."""
        self.metrics.refused.labels(reason).inc()
        if host is None or self.refusals_logged.take(counted_as(host)):
            log.warning("connection_refused", reason=reason, peer=host, **fields)

    def _exempt(self, host: str) -> bool:
        return _is_loopback(host) and not self.limit_loopback

    def counted(self, host: str | None, cap: float) -> str | None:
        """What a client at ``host`` counts against under ``cap`` (``counted_as``); None: not counted (no address,
        a loopback one unless ``limit_loopback``, or a cap of 0)."""
        return None if host is None or not cap or self._exempt(host) else counted_as(host)

    # -- places as a spectator per address ---------------------------------------------------------------
    def may_watch(self, host: str | None) -> bool:
        """Whether a client at ``host`` may hold one more place as a spectator (``watchers_per_ip``); held if so,
        until ``watch_ended``.  A refusal is logged (``watch_refused``): the line of the ``watch`` refused ``limit``
        does not say whether the table or the address was full."""
        counted = self.counted(host, self.watching.cap)
        if counted is None or self.watching.take(counted):
            return True
        log.warning("watch_refused", peer=host, limit=self.watching.cap)
        return False

    def watch_ended(self, host: str | None) -> None:
        """A place ``may_watch`` let ``host`` hold is given back."""
        counted = self.counted(host, self.watching.cap)
        if counted is not None:
            self.watching.release(counted)

    # -- new tables per address --------------------------------------------------------------------------
    def may_create(self, host: str | None) -> bool:
        """Whether a client at ``host`` may create a table now: ``tables_per_minute`` at once, then one every
        ``60 / tables_per_minute`` seconds.  Only addresses that used some of their budget lately are kept."""
        counted = self.counted(host, self.tables_per_minute)
        if counted is None or self.creates.take(counted):
            return True
        log.warning("create_refused", peer=host, limit=self.tables_per_minute)
        return False

    def open_cap(self, host: str | None) -> tuple[str, int] | None:
        """What the public tables a client at ``host`` creates count against: its address as counted, and the open
        tables it may have at once (``open_tables``); None: no cap."""
        counted = self.counted(host, self.open_tables)
        return None if counted is None else (counted, self.open_tables)

    def may_replay(self, host: str | None, updates: int) -> bool:
        """Whether a client at ``host`` may have ``updates`` updates replayed now (``REPLAYS_PER_MINUTE``)."""
        counted = self.counted(host, updates > 0)  # (nothing replayed: nothing counted)
        if counted is None or self.replays.take(counted, updates):
            return True
        log.warning("replay_refused", peer=host, limit=REPLAYS_PER_MINUTE)
        return False

    # -- idle connections --------------------------------------------------------------------------------
    async def start(self) -> None:
        if self.idle is not None:
            self._sweeper = asyncio.create_task(self._sweep(self.idle))

    async def close(self) -> None:
        await cancel(self._sweeper)

    async def _sweep(self, idle: float) -> None:
        """Close every connection silent for ``idle`` seconds; checks a few times per period.  One whose own
        command is still being handled (a replay sent at the client's pace), or still taking in what it was sent
        (the end of that replay, some 50 KB, takes a slow reader seconds), is not idle: its time starts again."""
        while True:
            await asyncio.sleep(min(5.0, idle / 4))
            now = time.monotonic()
            for conn in [c for c in self.live if now - c.seen > idle]:
                if conn.busy or conn.taking_in():
                    conn.seen = now
                    continue
                self.live.discard(conn)
                conn.noted = True
                self.metrics.refused.labels("idle").inc()
                conn.log.info("idle_closed", seconds=round(now - conn.seen, 1))
                task = asyncio.create_task(conn.ws.close(IDLE_CLOSE, "idle"))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())
