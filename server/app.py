"""The server process: settings, the pieces wired together, and the WebSocket listener."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import resource
import secrets
import signal
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import redis.asyncio as aioredis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from engine.registry import games
from protocol.messages import PROTOCOL_VERSION, GameInfo, Limits, Welcome
from server import http, preflight, redis_wire
from server.autoplay import Autoplay
from server.connection import Connection, QuietCloses, kinds
from server.guard import Guard
from server.hub import Fanout
from server.metrics import Metrics
from server.presence import Presence
from server.service import NUDGE_AFTER, NUDGE_SECONDS, TableService
from server.store import ABANDONED, Keys, Store
from server.watchdog import Watchdog
from server.worker import Worker

log = structlog.get_logger("hauntd.server")


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str = "redis://127.0.0.1:6379/0"
    key_prefix: str = ""  # the deployment's name in the store (``Keys.named``)
    store_wait: float = 30.0  # seconds to wait at start for a store that does not answer yet
    max_frame_bytes: int = 64 * 1024
    messages_per_second: float = 50.0
    burst: int = 100
    max_tables: int = 32
    max_watchers: int = 1000  # spectators one table may have in this process (0: no cap)
    watchers_per_ip: int = 20  # places as a spectator one client address may hold in this process (0: no cap)
    send_queue: int = 512
    send_timeout: float = 20.0  # seconds a replay waits for the client to take in what it was sent
    away_grace: float = 2.0
    nudge_after: float = NUDGE_AFTER  # seconds an untimed table stands still before a seat it waits on may be nudged
    nudge_seconds: float = NUDGE_SECONDS  # the time a nudge gives
    allowed_origins: tuple[str, ...] = ()  # browser Origins allowed to connect (empty: any)
    max_connections_per_ip: int = 256  # 0: no cap
    tables_per_minute: float = 30.0  # new tables one client address may create a minute (0: no cap)
    open_tables_per_ip: int = 20  # open public tables one client address may have created at once (0: no cap)
    abandoned_after: int = ABANDONED  # seconds before a public lobby table no person is at is abandoned
    limit_loopback: bool = False  # count loopback clients against the caps above too
    trusted_proxies: tuple[str, ...] = ()  # reverse proxies (addresses, networks) whose X-Forwarded-For is believed
    idle_timeout: float = 300.0  # seconds without a client message before the connection is closed (0: never)
    web_root: Path = http.WEB_ROOT
    worker: Worker | None = None  # one of ``serve --workers N``: serve on the supervisor's socket, not host:port


class App:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server_id = f"hauntd-{secrets.token_hex(3)}"
        self.metrics = Metrics()
        # A pooled connection the store closed (it restarted) fails the next command sent on it; that command is
        # sent once more on a new connection.  Safe for every command here: reads, idempotent writes, and
        # commits, which compare the table's seq and record their command id (a second run does nothing).
        pool = redis_wire.pool(settings.redis_url, max_connections=64, timeout=10, retry=Retry(NoBackoff(), 1))
        self.redis = aioredis.Redis(connection_pool=pool)  # waits for a free connection under load
        self.store = Store(self.redis, Keys.named(settings.key_prefix), settings.abandoned_after)
        self.store.on_failure = self.metrics.failed
        self.store.on_commit = self.metrics.store_commit.observe
        self.service = TableService(
            self.store, self.metrics, settings.away_grace, settings.nudge_after, settings.nudge_seconds
        )
        self.fanout = Fanout(
            self.store,
            self.redis,
            on_count=self.metrics.tables.set,
            on_lag=self.metrics.notice_lag.observe,
            on_catchup=self.metrics.catchups.inc,
        )
        self.autoplay = Autoplay(self.store, self.redis, self.service)
        self.presence = Presence(self.fanout, self.store)
        self.watchdog = Watchdog(self.store, self.metrics, on_tick=self.each_second)
        self.quiet = QuietCloses()
        self.guard = Guard(
            self.metrics,
            max_per_ip=settings.max_connections_per_ip,
            limit_loopback=settings.limit_loopback,
            idle=settings.idle_timeout or None,
            tables_per_minute=settings.tables_per_minute,
            open_tables=settings.open_tables_per_ip,
            watchers_per_ip=settings.watchers_per_ip,
            trusted_proxies=settings.trusted_proxies,
            allowed_origins=settings.allowed_origins,
        )
        self._welcome_games = [
            GameInfo(name=g.name, title=g.title, min_seats=g.min_seats, max_seats=g.max_seats) for g in games().values()
        ]
        self._limits = Limits(
            max_frame_bytes=settings.max_frame_bytes,
            messages_per_second=settings.messages_per_second,
            burst=settings.burst,
            max_tables_per_connection=settings.max_tables,
            idle_seconds=settings.idle_timeout or None,
            tables_per_minute=settings.tables_per_minute or None,
            open_tables=settings.open_tables_per_ip or None,
            watch_places=settings.watchers_per_ip or None,
            nudge_after=settings.nudge_after,
            nudge_seconds=settings.nudge_seconds,
            abandoned_after=settings.abandoned_after,
        )

    def welcome(self, ref: str | None) -> Welcome:
        return Welcome(
            version=PROTOCOL_VERSION, server=self.server_id, games=self._welcome_games, limits=self._limits, ref=ref
        )

    def each_second(self) -> None:
        """The watchdog's tick: a worker's heartbeat to its supervisor, and the connections counted by kind."""
        if self.settings.worker is not None:
            self.settings.worker.beat()
        for kind, count in kinds(self.guard.live).items():
            self.metrics.connection_kinds.labels(kind).set(count)

    async def ready(self) -> bool:
        """Whether the store answers a PING within a second (``/readyz``)."""
        try:
            return bool(await asyncio.wait_for(self.redis.ping(), 1.0))
        except Exception:
            return False

    async def handle(self, ws: ServerConnection) -> None:
        conn = Connection(ws, self)
        self.guard.live.add(conn)
        try:
            await conn.run()
        finally:
            self.guard.live.discard(conn)

    def _process_request(self) -> Callable[[ServerConnection, Request], Awaitable[Response | None]]:
        """Plain HTTP first (``server/http.py``), then the guard for a WebSocket handshake."""
        serve_http = http.handler(self, self.settings.web_root)

        async def process_request(ws: ServerConnection, request: Request) -> Response | None:
            reply: Response | None = await serve_http(ws, request)
            return reply if reply is not None else self.guard.admit(ws)

        return process_request

    async def run(self, stop: asyncio.Future[None]) -> None:
        store = redacted(self.settings.redis_url)
        await preflight.reach(self.redis, store, self.settings.store_wait)
        await preflight.inspect(self.redis, store)
        await self.fanout.start()
        await self.autoplay.start()
        await self.presence.start()
        await self.guard.start()
        await self.watchdog.start()
        worker = self.settings.worker
        where = {"sock": worker.socket()} if worker else {"host": self.settings.host, "port": self.settings.port}
        try:
            async with serve(
                self.handle,
                process_request=self._process_request(),
                max_size=4 * self.settings.max_frame_bytes,
                max_queue=8,
                compression=None,  # per-socket deflate would undo encoding each update once per audience
                ping_interval=20,
                ping_timeout=20,
                server_header=f"hauntd/{PROTOCOL_VERSION}",
                **where,
            ) as server:
                ports = [s.getsockname()[1] for s in server.sockets]
                log.info(
                    "listening",
                    host=self.settings.host,
                    ports=ports,
                    server=self.server_id,
                    games=list(games()),
                    store=store,
                    key_prefix=self.settings.key_prefix,
                )
                if worker:
                    worker.ready()
                await stop
                log.info("stopping", server=self.server_id)
        finally:
            await self.watchdog.close()
            await self.guard.close()
            await self.presence.close()
            await self.autoplay.close()
            await self.fanout.close()
            with contextlib.suppress(Exception):
                await self.redis.aclose()


def _finish(stop: asyncio.Future[None]) -> None:
    if not stop.done():
        stop.set_result(None)


def raise_open_files() -> int:
    """Raise this process's open-files limit to its hard limit (children inherit it): a socket per connection.
    Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def relax_gc() -> None:
    """Almost everything a server allocates per message dies by reference counting, yet the cyclic collector
    ran every 700 allocations and its older passes walked a heap of thousands of connections, stalling the
    loop for milliseconds (tens to a hundred for a full pass).  What exists at start is frozen out of its
    reach, and it runs some two hundred times less often.  Under heavy load the objects of the commands in
    flight are young and alive, and each pass walks them all: at 2,000 tables flat out, passes every 70,000
    allocations took 13% of the server's time and stopped it for up to 0.5 s; every 150,000, 1.3% and 0.2 s.
    Less often still lets the garbage of connections closed on protocol errors (websockets leaves them in
    reference cycles) pile up: under ``hauntd fuzz`` memory then grows instead of levelling off.  Cycles are
    still collected."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(150_000, 20, 20)


def stop_signals() -> list[signal.Signals]:
    """The signals a server (or a supervisor) stops on, cleanly: SIGINT, SIGTERM and SIGHUP — the terminal it was
    started from closed, which ended it on the spot, its clients told nothing — unless SIGHUP is ignored, as
    ``nohup`` leaves it for a server meant to outlive its terminal."""
    hangup = [] if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN else [signal.SIGHUP]
    return [signal.SIGINT, signal.SIGTERM, *hangup]


def run_forever(settings: Settings) -> None:
    """Serve until one of the ``stop_signals``."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop: asyncio.Future[None] = loop.create_future()
        for sig in stop_signals():
            loop.add_signal_handler(sig, _finish, stop)
        relax_gc()
        log.info("open_files_limit", limit=raise_open_files())
        await App(settings).run(stop)

    asyncio.run(main())


def env_redis_url() -> str | None:
    return os.environ.get("REDIS_URL") or None


def redacted(url: str) -> str:
    """A store's URL fit for a log line: its password (``:PASSWORD@`` or ``?password=``), if any, as ``***``."""
    head, mark, query = url.partition("?")
    netloc = urllib.parse.urlsplit(head).netloc
    user, at, host = netloc.rpartition("@")
    if at and ":" in user:
        head = head.replace(netloc, f"{user.partition(':')[0]}:***@{host}", 1)
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    if any(name == "password" for name, _ in pairs):
        query = urllib.parse.urlencode([(n, "***" if n == "password" else v) for n, v in pairs], safe="*")
    return head + mark + query
