"""``hauntd loadtest``: N tables of bots, each seat its own SDK connection, playing whole games at once.

Every table keeps its connections and starts a new game as soon as one ends, for ``--duration`` seconds after
all of them are seated.  Each bot checks every message it receives for hidden values it must not see
(``clients/leaks.py``).  Measured: actions per second; send → ``accepted`` (``latency_ms``); send → the update
reaching every other seat of the table (``event_latency_ms``); errors by code; leaks; with ``--spawn`` the
server's memory and the CPU each process used; with ``--baseline echo`` the round trips per second of a bare
``websockets`` echo server on the same machine, and the ratio of the two.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.bots.base import Strategy, get_strategy, strategy_names
from clients.bots.runner import HARMLESS, SeatBot
from clients.echo import echo_rate, echo_server
from clients.leaks import LeakChecker
from clients.progress import Progress
from clients.sdk import Client, ConnectionLost, ServerError
from engine.registry import games
from protocol.messages import Accepted, Events, Rejected, ServerMsg
from server.app import raise_open_files, relax_gc
from server.latency import percentiles_ms
from server.launch import ServerProcess

GAMES = ("mansion", "spook", "ghost-at-home")


@dataclass
class Stats:
    """Everything the bots of all tables measured (the progress line reads it as it grows)."""

    actions: int = 0
    games: int = 0
    messages: int = 0
    latency: list[float] = field(default_factory=list)
    event_latency: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    rejections: Counter[str] = field(default_factory=Counter)
    leaks: int = 0
    leak_examples: list[str] = field(default_factory=list)
    connections: int = 0
    reconnects: int = 0  # connections the SDK re-opened (and resumed) after a drop
    recording: bool = False  # counting only inside the measured window

    def leak(self, where: str) -> None:
        self.leaks += 1
        if len(self.leak_examples) < 10:
            self.leak_examples.append(where)


class Clock:
    """One table's fan-out timer: when the action that will commit as ``seq`` was sent, and which seats have
    received that update since."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.sent: dict[int, tuple[float, int]] = {}  # seq → (sent at, sending seat)
        self.seen: dict[int, int] = {}  # seq → how many other seats received it
        self.heard = time.perf_counter()  # when any seat last received anything (the stall watchdog reads it)

    def sending(self, seq: int, seat: int, at: float) -> None:
        self.sent.setdefault(seq, (at, seat))

    def received(self, seq: int, seat: int, at: float) -> float | None:
        """The fan-out time once every seat but the sender has ``seq``; None before (or if nobody sent it)."""
        stamp = self.sent.get(seq)
        if stamp is None or stamp[1] == seat:
            return None
        seen = self.seen.get(seq, 0) + 1
        if seen < self.seats - 1:
            self.seen[seq] = seen
            return None
        del self.sent[seq]
        self.seen.pop(seq, None)
        return at - stamp[0]


class LoadBot(SeatBot):
    """A seat of the load test: plays like any bot, times its actions and checks everything it receives."""

    def __init__(self, stats: Stats, clock: Clock, checker: LeakChecker, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stats = stats
        self.clock = clock
        self.checker = checker

    def observe(self, msg: ServerMsg) -> None:
        stats = self.stats
        if stats.recording:
            stats.messages += 1
        self.clock.heard = now = time.perf_counter()
        for where in self.checker.check(msg):
            stats.leak(f"seat {self.seat} of {self.table}: {where}")
        if isinstance(msg, Events):
            fanned = self.clock.received(msg.seq, self.seat, now)
            if fanned is not None and stats.recording:
                stats.event_latency.append(fanned)

    def sending(self, seq: int, at: float) -> None:
        self.clock.sending(seq + 1, self.seat, at)

    def acted(self, seq: int, sent: float, outcome: Accepted | Rejected) -> None:
        stats = self.stats
        if isinstance(outcome, Accepted):
            if stats.recording:
                stats.actions += 1
                stats.latency.append(time.perf_counter() - sent)
        elif outcome.code in HARMLESS:
            stats.rejections[outcome.code] += 1
        else:
            stats.errors[outcome.code] += 1


@dataclass
class Plan:
    url: str
    tables: int
    seats: int
    game: str
    strategy: str
    seed: int
    game_timeout: float


class TableSlot:
    """One table's worth of connections, playing game after game until stopped."""

    def __init__(self, plan: Plan, stats: Stats, index: int) -> None:
        self.plan = plan
        self.stats = stats
        self.index = index
        self.rng = random.Random(plan.seed * 100_003 + index)
        self.clients: list[Client] = []
        self.used = 0  # tables each connection has created or followed (the server limits it)
        self.games = 0
        self.clock = Clock(plan.seats)
        self.game: asyncio.Task[None] | None = None
        self.stalled = False
        self.connected = False

    def client(self, i: int) -> Client:
        """The connection of seat ``i`` (not opened yet)."""
        return Client(self.plan.url, client=f"load-{self.index}-{i}", request_timeout=60)

    async def connect(self) -> None:
        self.clients = [self.client(i) for i in range(self.plan.seats)]
        await asyncio.gather(*(c.connect() for c in self.clients))
        self.stats.connections += len(self.clients)
        self.connected = True
        self.used = 0

    async def close(self) -> None:
        for client in self.clients:
            self.stats.reconnects += client.reconnects
            await client.close()
        if self.connected:
            self.stats.connections -= len(self.clients)
        self.connected = False
        self.clients = []

    def _game(self) -> str:
        if self.plan.game != "mix":
            return self.plan.game
        return GAMES[(self.index + self.games) % len(GAMES)]

    def bot(self, checker: LeakChecker, client: Client, table: str, seat: int, strategy: Strategy) -> LoadBot:
        return LoadBot(self.stats, self.clock, checker, client, table, seat, strategy, self.rng)

    async def seat_table(self) -> tuple[str, list[LoadBot]]:
        """A new table, every seat taken by one of this slot's connections with its bot; not started yet."""
        limit = self.clients[0].welcome.limits.max_tables_per_connection if self.clients[0].welcome else 32
        if self.used + 2 > limit:  # the table creator both creates and follows: recycle the connections
            await self.close()
            await self.connect()
        game = self._game()
        strategy: list[Strategy] = [get_strategy(game, self.plan.strategy) for _ in self.clients]
        creator = self.clients[0]
        table = await creator.create(game, self.plan.seats, private=True)  # nobody else is to sit down
        self.used += 2
        self.clock = Clock(self.plan.seats)
        bots = []
        for i, client in enumerate(self.clients):
            held = await client.join(table, f"bot{i}", i)
            bots.append(self.bot(LeakChecker(game, held.seat, {}), client, table, held.seat, strategy[i]))
        return table, bots

    async def play_game(self) -> None:
        table, bots = await self.seat_table()
        await self.clients[0].start(table)
        await self.play(table, bots)

    async def play(self, table: str, bots: list[LoadBot]) -> None:
        """Play the started ``table`` to its end."""
        await asyncio.gather(*(bot.play() for bot in bots))
        for client in self.clients:
            client.forget(table)
        self.games += 1
        if self.stats.recording:
            self.stats.games += 1

    async def run(self, stop: asyncio.Event) -> None:
        """Game after game; an error is counted by its code and the table starts over on new connections."""
        while not stop.is_set():
            try:
                if not self.connected:
                    await self.connect()
                self.game = asyncio.create_task(self.play_game())
                await self.game
            except (ServerError, ConnectionLost, TimeoutError, OSError, asyncio.CancelledError) as exc:
                if isinstance(exc, asyncio.CancelledError) and not self.stalled:
                    raise
                code = exc.code if isinstance(exc, ServerError) else "stalled" if self.stalled else type(exc).__name__
                self.stats.errors[code] += 1
                self.stalled = False
                await self.close()
                await asyncio.sleep(0.5)

    def watch(self, limit: float) -> None:
        """Cancel the game when none of its seats has received anything for ``limit`` seconds."""
        if self.game is not None and not self.game.done() and time.perf_counter() - self.clock.heard > limit:
            self.stalled = True
            self.game.cancel()


def _percentiles(samples: list[float]) -> dict[str, float]:
    p50, p95, p99 = percentiles_ms(samples, 50, 95, 99)
    return {"p50": round(p50, 2), "p95": round(p95, 2), "p99": round(p99, 2)}


# -- the processes under test --------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def _rss_mb(pid: int) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


class Watched:
    """The server processes (hauntd, its embedded Valkey) and this one: memory and CPU time."""

    def __init__(self, server_pid: int | None) -> None:
        self.pids: dict[str, int] = {"client": os.getpid()}
        if server_pid is not None:
            self.pids["server"] = server_pid
            for child in _children(server_pid):
                self.pids["valkey"] = child
        self.peak_rss: dict[str, float] = {}
        self._cpu0: dict[str, float] = {}
        self._t0 = 0.0

    def sample(self) -> None:
        for name, pid in self.pids.items():
            if name != "client":
                self.peak_rss[name] = max(self.peak_rss.get(name, 0.0), _rss_mb(pid))

    def start(self) -> None:
        self._cpu0 = {name: _cpu_s(pid) for name, pid in self.pids.items()}
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds each process used since ``start``."""
        return {name: _cpu_s(pid) - self._cpu0[name] for name, pid in self.pids.items()}


# -- the run -------------------------------------------------------------------------------------------------
async def watchdog(slots: Sequence[TableSlot], limit: float) -> None:
    while True:
        await asyncio.sleep(1.0)
        for slot in slots:
            slot.watch(limit)


async def _progress(stats: Stats, started: float, duration: float, shown: Progress | None, watched: Watched) -> None:
    """Each second: the processes' memory (so ``server_rss_mb`` is a peak), and when ``shown`` a progress line."""
    last_actions, last_t = 0, time.perf_counter()
    while True:
        await asyncio.sleep(1.0)
        watched.sample()
        if shown is None:
            continue
        now = time.perf_counter()
        rate = (stats.actions - last_actions) / (now - last_t)
        last_actions, last_t = stats.actions, now
        recent = _percentiles(stats.latency[-2000:])
        shown.show(
            f"{now - started:5.0f}/{duration:.0f}s  conns {stats.connections}  games {stats.games}  "
            f"actions {stats.actions} ({rate:.0f}/s)  p50 {recent['p50']:.1f}ms p99 {recent['p99']:.1f}ms  "
            f"errors {sum(stats.errors.values())}  leaks {stats.leaks}"
        )


def died(ended: Iterable[object]) -> Counter[str]:
    """The exceptions, by type, among what ``gather(..., return_exceptions=True)`` returned for tasks that
    should have ended only by returning or being cancelled: a runner's or helper's own failure."""
    return Counter(type(result).__name__ for result in ended if isinstance(result, Exception))


async def _load(plan: Plan, duration: float, progress: bool, watched: Watched) -> dict[str, Any]:
    stats = Stats()
    slots = [TableSlot(plan, stats, i) for i in range(plan.tables)]
    connecting = time.perf_counter()
    gate = asyncio.Semaphore(50)

    async def connect(slot: TableSlot) -> None:
        async with gate:
            await slot.connect()

    await asyncio.gather(*(connect(slot) for slot in slots))
    connect_s = time.perf_counter() - connecting
    relax_gc()  # thousands of connections: the collector's passes would cost more than the bots
    stop = asyncio.Event()
    runners = [asyncio.create_task(slot.run(stop)) for slot in slots]
    runners.append(asyncio.create_task(watchdog(slots, plan.game_timeout)))
    line = Progress(every=1.0)  # (shown by ``_progress``, which samples memory each second anyway)
    shown = line if progress or line.live else None  # --progress, or a terminal
    started = time.perf_counter()
    stats.recording = True
    watched.start()
    ticker = asyncio.create_task(_progress(stats, started, duration, shown, watched))
    await asyncio.sleep(duration)
    stats.recording = False
    elapsed = time.perf_counter() - started
    cpu = watched.cpu_seconds()
    watched.sample()
    if shown is not None:
        shown.end()
    peak_connections = stats.connections
    stop.set()
    for task in [*runners, ticker]:
        task.cancel()
    stats.errors.update(died(await asyncio.gather(*runners, ticker, return_exceptions=True)))
    await asyncio.gather(*(slot.close() for slot in slots), return_exceptions=True)
    return {
        "tables": plan.tables,
        "seats": plan.seats,
        "connections": peak_connections,
        "game": plan.game,
        "strategy": plan.strategy,
        "duration_s": round(elapsed, 2),
        "connect_s": round(connect_s, 2),
        "games_completed": stats.games,
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1),
        "messages_per_action": round(stats.messages / max(1, stats.actions), 2),
        "latency_ms": _percentiles(stats.latency),
        "event_latency_ms": _percentiles(stats.event_latency),
        "errors": dict(stats.errors),
        "reconnects": stats.reconnects,
        "rejections": dict(stats.rejections),
        "leaks": stats.leaks,
        "leak_examples": stats.leak_examples,
        "cpu_percent": {name: round(100 * used / elapsed, 1) for name, used in cpu.items()},
        "cpu_ms_per_action": {name: round(1000 * used / max(1, stats.actions), 3) for name, used in cpu.items()},
    }


def loadtest(
    plan: Plan, duration: float, *, spawn: bool, baseline: str | None, baseline_seconds: float, progress: bool
) -> dict[str, Any]:
    limit = raise_open_files()
    needed = plan.tables * plan.seats + 100  # a socket per seat here (the server raises its own limit)
    if limit < needed:
        raise SystemExit(f"hauntd loadtest: {needed} open files needed, the limit is {limit}")
    report: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        server: ServerProcess | None = None
        if spawn:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hauntd-load-")))
            # bots play flat out, faster than the per-connection rate limit meant for people allows
            args = ["--log-format", "json", "--data-dir", str(tmp / "data"), "--rate", "1e6", "--burst", "1000000"]
            server = ServerProcess(args, tmp / "server.log", tied=True)  # (gone with us, even on SIGTERM)
            server.start()
            stack.callback(server.kill, signal.SIGTERM)
            plan.url = server.url
        watched = Watched(server.process.pid if server is not None and server.process is not None else None)
        report.update(asyncio.run(_load(plan, duration, progress, watched)))
        if server is not None:
            report["server_rss_mb"] = round(sum(watched.peak_rss.values()), 1)
            report["server_rss_parts_mb"] = {k: round(v, 1) for k, v in watched.peak_rss.items()}
    if baseline == "echo":
        with echo_server() as (url, pid):
            echo = Watched(pid)
            window: dict[str, Any] = {}  # the timed window only: not the handshakes and closes around it

            def ended() -> None:
                window.update(cpu=echo.cpu_seconds(), seconds=echo.elapsed())

            count = asyncio.run(echo_rate(url, plan.tables, baseline_seconds, on_start=echo.start, on_end=ended))
            cpu = window["cpu"]
            rate = count / window["seconds"]
        report["echo_roundtrips_per_s"] = round(rate, 1)
        report["echo_cpu_ms_per_roundtrip"] = {k: round(1000 * used / max(1, count), 3) for k, used in cpu.items()}
        report["ratio"] = round(report["actions_per_s"] / rate, 3) if rate else 0.0
    return report


def add_table_arguments(parser: argparse.ArgumentParser, *, game: str, game_timeout: float) -> None:
    """The options of the tables and their bots (``hauntd chaos`` has them too); ``plan_from_args`` reads them."""
    parser.add_argument("--tables", type=int, default=10, help="tables playing at once (default: %(default)s)")
    parser.add_argument("--seats", type=int, default=4, help="seats per table (default: %(default)s)")
    parser.add_argument(
        "--game", default=game, choices=[*sorted(games()), "mix"], help="game played (default: %(default)s)"
    )
    parser.add_argument(
        "--strategy",
        default="random",
        choices=strategy_names(),
        help="bot strategy (default: %(default)s, the cheapest)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices (default: %(default)s)")
    parser.add_argument(
        "--game-timeout",
        type=float,
        default=game_timeout,
        help="a game whose seats receive nothing for this long counts as stalled (default: %(default)s)",
    )


def plan_from_args(args: argparse.Namespace, url: str) -> Plan:
    return Plan(
        url=url,
        tables=args.tables,
        seats=args.seats,
        game=args.game,
        strategy=args.strategy,
        seed=args.seed,
        game_timeout=args.game_timeout,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765", help="server to load (default: %(default)s)")
    parser.add_argument("--spawn", action="store_true", help="start a hauntd serve with an embedded store instead")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured (default: %(default)s)")
    add_table_arguments(parser, game="mansion", game_timeout=60.0)
    parser.add_argument("--baseline", choices=["echo"], default=None, help="also measure a bare websockets echo")
    parser.add_argument(
        "--baseline-seconds", type=float, default=None, help="seconds of the echo baseline (default: duration, ≤10)"
    )
    parser.add_argument("--progress", action="store_true", help="a progress line per second on stderr")
    parser.add_argument("--json", action="store_true", help="print only the JSON report (the default output)")


def run(args: argparse.Namespace) -> int:
    baseline_seconds = args.baseline_seconds if args.baseline_seconds is not None else min(args.duration, 10.0)
    report = loadtest(
        plan_from_args(args, args.url),
        args.duration,
        spawn=args.spawn,
        baseline=args.baseline,
        baseline_seconds=baseline_seconds,
        progress=args.progress,
    )
    print(json.dumps(report))
    return 0
