"""``hauntd serve``: the WebSocket server; without a Redis URL it starts an embedded Valkey in the data dir."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import urllib.parse
from pathlib import Path

import structlog

from server import cli, logs, metrics
from server.app import Settings, env_redis_url, run_forever
from server.embedded import EmbeddedValkey
from server.store import LOBBY_TTL
from server.supervisor import supervise
from server.worker import Worker


def _network(text: str) -> str:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an address or a network: {text!r}") from None
    return text


def _origin(text: str) -> str:
    """An ``--allowed-origin``: what a browser sends, ``scheme://host[:port]`` (or ``null``), compared as text.  A
    trailing slash, a path or a default port (which browsers leave out) would match no browser at all."""
    if text == "null":
        return text
    try:
        url = urllib.parse.urlsplit(text)
        port = url.port
    except ValueError:
        url, port = urllib.parse.urlsplit(""), None
    default = {"http": 80, "https": 443}.get(url.scheme)
    if not url.scheme or not url.hostname or url.path or url.query or url.fragment or url.username is not None:
        raise argparse.ArgumentTypeError(
            f"not an Origin (scheme://host[:port], no path, no slash at the end): {text!r}"
        )
    if port is not None and port == default:
        raise argparse.ArgumentTypeError(f"browsers leave the default port out of an Origin: {text!r}")
    if text != text.lower():
        raise argparse.ArgumentTypeError(f"browsers send an Origin in lower case: {text!r}")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument("--host", default=defaults.host, help="address to listen on (default: %(default)s)")
    parser.add_argument(
        "--port", type=cli.bounded(int, 0, 65535), default=defaults.port, help="port (default: %(default)s; 0 = any)"
    )
    parser.add_argument(
        "--redis-url",
        type=cli.redis_url,
        default=env_redis_url(),
        help="Redis or Valkey to keep tables in (default: $REDIS_URL; unset: an embedded Valkey in --data-dir)",
    )
    cli.add_key_prefix(parser)
    parser.add_argument(
        "--store-wait",
        type=cli.non_negative,
        default=defaults.store_wait,
        metavar="SECONDS",
        help="how long to wait at start for a store that does not answer yet (started at the same time, or loading "
        "its data), saying so in a store_unreachable line, before giving up with exit status 1 (default: "
        "%(default)s; 0 = not at all)",
    )
    parser.add_argument(
        "--workers",
        type=cli.at_least_one,
        default=1,
        help="server processes sharing the port, to use more than one core (default: %(default)s: this process "
        "serves; N > 1: it starts the embedded Valkey if any, then N workers on one listening socket, restarts any "
        "that exits and stops them all on SIGTERM; /metrics counts all of them). --max-connections-per-ip, "
        "--tables-per-minute and --watchers-per-ip are counted by each worker: one address may get up to N times "
        "each cap "
        "(--open-tables-per-ip is counted in the store: it holds across them)",
    )
    parser.add_argument(
        "--worker-timeout",
        type=cli.non_negative,
        default=20.0,
        metavar="SECONDS",
        help="with --workers N: a worker whose event loop has not ticked for this long (stopped, or blocked) is "
        "killed and started again, a worker_hung line saying so; its clients reconnect to the others at once "
        "(default: %(default)s; 0 = never)",
    )
    # set by the supervisor of --workers N (not named --worker: `--worker 2`, short for --workers, would mean it)
    parser.add_argument("--as-worker", dest="worker", type=Worker.parse, help=argparse.SUPPRESS)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("data"),
        help="embedded Valkey's data, created if missing (default: data, in the working directory)",
    )
    parser.add_argument(
        "--log-format",
        choices=["json", "console", "auto"],
        default="auto",
        help="json lines, console, or auto: console on a terminal (default)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"], help="(default: %(default)s)"
    )
    parser.add_argument(
        "--max-frame-bytes",
        type=cli.at_least_one,
        default=defaults.max_frame_bytes,
        help="largest frame accepted (default: %(default)s)",
    )
    parser.add_argument(
        "--rate",
        type=cli.bounded(float, 0, above=True),
        default=defaults.messages_per_second,
        help="messages per second per connection (default: %(default)s)",
    )
    parser.add_argument(
        "--burst", type=cli.at_least_one, default=defaults.burst, help="burst of messages (default: %(default)s)"
    )
    parser.add_argument(
        "--max-tables",
        type=cli.at_least_one,
        default=defaults.max_tables,
        help="tables one connection may hold: those it follows whose games are not over, and those it created and does "
        "not follow (default: %(default)s)",
    )
    parser.add_argument(
        "--max-watchers",
        type=cli.bounded(int, 0),
        default=defaults.max_watchers,
        help="spectators one table may have (each costs every update of the table a write); past it a watch is "
        "refused limit (default: %(default)s; 0 = no cap; counted by each process of --workers)",
    )
    parser.add_argument(
        "--watchers-per-ip",
        type=cli.bounded(int, 0),
        default=defaults.watchers_per_ip,
        help="places as a spectator one address may hold (each table a connection of it watches holds one; an IPv6 /64 "
        "network counts as one), so a few addresses cannot take every place --max-watchers leaves at a table; past "
        "it a watch is refused limit (default: %(default)s; 0 = no cap; counted by each process of --workers; "
        "loopback is exempt unless --limit-loopback)",
    )
    parser.add_argument(
        "--allowed-origin",
        type=_origin,
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin allowed to open a WebSocket, as browsers send it: scheme://host[:port], no slash "
        "at the end (repeatable; e.g. https://play.example.org); once any "
        "is given, a handshake with another Origin is refused with HTTP 403 (clients sending none are let in)",
    )
    parser.add_argument(
        "--max-connections-per-ip",
        type=cli.bounded(int, 0),
        default=defaults.max_connections_per_ip,
        help="simultaneous WebSocket connections from one address (an IPv6 /64 network counts as one); past it "
        "the handshake gets HTTP 429 (default: %(default)s; 0 = no cap; loopback is exempt unless --limit-loopback)",
    )
    parser.add_argument(
        "--tables-per-minute",
        type=cli.non_negative,
        default=defaults.tables_per_minute,
        help="new tables one client address may create a minute (as many at once, then one every 60/N s); past "
        "it a create is refused rate_limited (default: %(default)s; 0 = no cap; loopback is exempt unless "
        "--limit-loopback)",
    )
    parser.add_argument(
        "--open-tables-per-ip",
        type=cli.bounded(int, 0),
        default=defaults.open_tables_per_ip,
        help="open public tables (not started, a seat free) one address may have created at once, counted in the "
        "store across every process; past it a create is refused open_limit (default: %(default)s; 0 = no cap; "
        "loopback is exempt unless --limit-loopback)",
    )
    parser.add_argument(
        "--abandoned-after",
        type=cli.bounded(int, 1, LOBBY_TTL),
        default=defaults.abandoned_after,
        metavar="SECONDS",
        help="a public table not started that no person is at (nobody sits: its creator never sat, everyone left, "
        "bots alone; or no seated player has a connection open to it: a page closed) leaves the lobby's list and "
        "its creator's --open-tables-per-ip count this long after its last change and the last time a seated "
        "player was connected; one where nobody sits is gone from the store then, one with a seat taken is kept "
        f"{LOBBY_TTL // 3600} h for its player to come back to (default: %(default)s)",
    )
    parser.add_argument(
        "--limit-loopback",
        action="store_true",
        help="apply --max-connections-per-ip, --tables-per-minute, --open-tables-per-ip and --watchers-per-ip to "
        "loopback clients too "
        "(exempt by default: local tools, proxies)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=_network,
        metavar="ADDRESS",
        help="a reverse proxy (an address, or a network such as 10.0.0.0/8; repeatable) whose X-Forwarded-For "
        "names the client: connections from it count against that client's address in the caps above",
    )
    parser.add_argument(
        "--idle-timeout",
        type=cli.non_negative,
        default=defaults.idle_timeout,
        help="close a connection that sends no message for this many seconds, with code 4408 "
        "(default: %(default)s; 0 = never)",
    )
    parser.add_argument(
        "--away-grace",
        type=cli.non_negative,
        default=defaults.away_grace,
        help="seconds the server waits before deciding for a seat marked away (default: %(default)s)",
    )
    parser.add_argument(
        "--nudge-after",
        type=cli.non_negative,
        default=defaults.nudge_after,
        metavar="SECONDS",
        help="at a table without a time limit, how long it must stand still (no update) before a seated player may "
        "nudge a seat it waits on (default: %(default)s: time for a hard decision, not for a player gone)",
    )
    parser.add_argument(
        "--nudge-seconds",
        type=cli.positive,
        default=defaults.nudge_seconds,
        metavar="SECONDS",
        help="the time limit a nudge gives the decisions the table waits on; past it the rules' default is played "
        "and the seat marked away, as at a timed table (default: %(default)s: time to come back and decide)",
    )
    parser.add_argument(
        "--send-queue",
        type=cli.at_least_one,
        default=defaults.send_queue,
        help="frames queued for a client before it is dropped as not reading (default: %(default)s)",
    )
    parser.add_argument(
        "--send-timeout",
        type=cli.bounded(float, 0, above=True),
        default=defaults.send_timeout,
        help="seconds a replay (watch or resume from an old last_seq), sent at the client's pace, waits for the "
        "client to take in what it was sent before it is dropped as not reading (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    logs.configure(args.log_format, args.log_level)
    if args.worker is not None:
        structlog.contextvars.bind_contextvars(worker=args.worker.index)
        metrics.name_files(args.worker.index)
    log = structlog.get_logger("hauntd.server")
    embedded: EmbeddedValkey | None = None
    url = args.redis_url
    if url is None:
        embedded = EmbeddedValkey(args.data_dir)
        embedded.start()
        url = embedded.url
        log.info("embedded_valkey_started", data_dir=str(embedded.data_dir), port=embedded.port)
    try:
        if args.workers > 1:
            worker = [sys.executable, "-m", "server.cli", *args.argv, "--workers", "1"]
            # the store's URL in the workers' environment, not on their command lines, which ``ps`` shows to every
            # user of the machine: it may hold the password given in REDIS_URL
            env = {"REDIS_URL": url}
            return supervise(worker, args.workers, args.host, args.port, env=env, timeout=args.worker_timeout)
        run_forever(_settings(args, url))
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


def _settings(args: argparse.Namespace, url: str) -> Settings:
    return Settings(
        host=args.host,
        port=args.port,
        redis_url=url,
        key_prefix=args.key_prefix,
        store_wait=args.store_wait,
        max_frame_bytes=args.max_frame_bytes,
        messages_per_second=args.rate,
        burst=args.burst,
        max_tables=args.max_tables,
        max_watchers=args.max_watchers,
        watchers_per_ip=args.watchers_per_ip,
        send_queue=args.send_queue,
        send_timeout=args.send_timeout,
        away_grace=args.away_grace,
        nudge_after=args.nudge_after,
        nudge_seconds=args.nudge_seconds,
        allowed_origins=tuple(args.allowed_origin),
        max_connections_per_ip=args.max_connections_per_ip,
        tables_per_minute=args.tables_per_minute,
        open_tables_per_ip=args.open_tables_per_ip,
        abandoned_after=args.abandoned_after,
        limit_loopback=args.limit_loopback,
        trusted_proxies=tuple(args.trusted_proxy),
        idle_timeout=args.idle_timeout,
        worker=args.worker,
    )
