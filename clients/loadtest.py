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
import dataclasses
import json
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients import loadstats
from clients.bots.base import Strategy, get_strategy, strategy_names
from clients.bots.runner import HARMLESS, SeatBot
from clients.echo import echo_rate, echo_server
from clients.interrupt import Interrupted, Stop
from clients.leaks import LeakChecker
from clients.loadprocs import RESULT_GRACE, Died, LoadProcess, become_child, ready_then_wait_for_go, tell
from clients.loadstats import Line, Stats, Tick, Window
from clients.sdk import Client, ConnectionLost, ServerError
from clients.watched import Watched
from engine.registry import games
from protocol.messages import Accepted, Events, Rejected, ServerMsg
from server.app import raise_open_files, relax_gc
from server.cli import at_least_one, check_seats, positive, said, ws_url
from server.launch import ServerProcess

GAMES = ("mansion", "spook", "ghost-at-home")
CONNECT_TIMEOUT = 60.0  # seconds the connect phase may take (``--connect-timeout``): 1,000 tables take some 7 s here
START_GRACE = 30.0  # seconds a load process of ``--processes`` may take to start, on top of its connect phase
STILL_AT_END = 5.0
"""A table whose seats have heard nothing for this long (or ``--game-timeout``, if shorter) when the window ends
is counted ``stalled``: the watchdog, waiting ``--game-timeout`` (60 s), never looks at a stall younger than that,
so a 10 s run with a table stuck from its third second reported no error."""


class ConnectFailed(Exception):
    """The connect phase failed: a seat could not connect, or not every seat had within ``--connect-timeout``."""


class Clock:
    """One table's fan-out timer: for update ``seq``, when each seat that decided at ``seq - 1`` sent its action,
    whose action committed as ``seq`` (its ``accepted``: of simultaneous decisions, not always the first sent),
    and when each seat received the update."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.sent: dict[int, dict[int, float]] = {}  # seq → {seat: when it sent its action}
        self.seen: dict[int, dict[int, float]] = {}  # seq → {seat: when it received the update}
        self.made: dict[int, int] = {}  # seq → the seat whose action it is
        self.heard = time.perf_counter()  # when any seat last received anything (the stall watchdog reads it)

    def sending(self, seq: int, seat: int, at: float) -> None:
        self.sent.setdefault(seq, {}).setdefault(seat, at)

    def received(self, seq: int, seat: int, at: float) -> float | None:
        """The fan-out time once ``seq``'s seat is known and every other seat has it; None before (or if nobody
        sent it)."""
        if seq not in self.sent:
            return None
        self.seen.setdefault(seq, {}).setdefault(seat, at)
        return self._fanned(seq)

    def accepted(self, seq: int, seat: int) -> float | None:
        """``seat``'s action committed as ``seq``: the fan-out time, if every other seat has it already."""
        if seat not in self.sent.get(seq, ()):
            return None
        self.made[seq] = seat
        return self._fanned(seq)

    def _fanned(self, seq: int) -> float | None:
        seat, seen = self.made.get(seq), self.seen.get(seq, {})
        if seat is None or len(seen) - (seat in seen) < self.seats - 1:
            return None
        at = self.sent.pop(seq)[seat]
        del self.made[seq], self.seen[seq]
        return max(when for other, when in seen.items() if other != seat) - at


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
            self._record_fan_out(self.clock.received(msg.seq, self.seat, now))

    def _record_fan_out(self, fanned: float | None) -> None:
        if fanned is not None and self.stats.recording:
            self.stats.event_latency.append(fanned)

    def sending(self, seq: int, at: float) -> None:
        self.clock.sending(seq + 1, self.seat, at)

    def acted(self, seq: int, sent: float, outcome: Accepted | Rejected) -> None:
        stats = self.stats
        if isinstance(outcome, Accepted):
            self._record_fan_out(self.clock.accepted(outcome.seq, self.seat))
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
    connect_timeout: float = CONNECT_TIMEOUT
    first: int = 0  # the number of the first table (a load process of ``--processes`` plays a share of them)


class TableSlot:
    """One table's worth of connections, playing game after game until stopped."""

    def __init__(self, plan: Plan, stats: Stats, index: int) -> None:
        self.plan = plan
        self.stats = stats
        self.index = index
        self.rng = random.Random(plan.seed * 100_003 + index)
        self.clients: list[Client] = []
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

    async def close(self) -> None:
        """Close its connections, all at once (a server that stopped answering keeps each 10 s)."""
        self.stats.reconnects += sum(client.reconnects for client in self.clients)
        await asyncio.gather(*(client.close() for client in self.clients))
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
        game = self._game()
        strategy: list[Strategy] = [get_strategy(game, self.plan.strategy) for _ in self.clients]
        creator = self.clients[0]
        self.clock = Clock(self.plan.seats)  # (the last game's, silent a while, let the watchdog end this one)
        table = await creator.create(game, self.plan.seats, private=True)  # nobody else is to sit down
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

    def silent(self, limit: float) -> bool:
        """Whether its game is under way and none of its seats has received anything for ``limit`` seconds."""
        return self.game is not None and not self.game.done() and time.perf_counter() - self.clock.heard > limit

    def watch(self, limit: float) -> None:
        """Cancel the game when it has been ``silent`` for ``limit`` seconds."""
        if self.game is not None and self.silent(limit):
            self.stalled = True
            self.game.cancel()


# -- the run -------------------------------------------------------------------------------------------------
async def watchdog(slots: Sequence[TableSlot], limit: float) -> None:
    while True:
        await asyncio.sleep(1.0)
        for slot in slots:
            slot.watch(limit)


async def _each_second(watched: Watched, then: Callable[[float], None]) -> None:
    """Each second: the processes' memory (so ``server_rss_mb`` is a peak), then ``then(seconds so far)`` (the
    progress line, or a load process's counters to its parent)."""
    started = time.perf_counter()
    while True:
        await asyncio.sleep(1.0)
        watched.sample()
        then(time.perf_counter() - started)


def died(ended: Iterable[object]) -> Counter[str]:
    """The exceptions, by type, among what ``gather(..., return_exceptions=True)`` returned for tasks that
    should have ended only by returning or being cancelled: a runner's or helper's own failure."""
    return Counter(type(result).__name__ for result in ended if isinstance(result, Exception))


async def _at_once() -> None:
    """A single load process starts playing as soon as its seats are connected."""


def _down(slots: Sequence[TableSlot]) -> int:
    """The connections that dropped and are not back (their clients are trying again)."""
    return sum(client.down for slot in slots for client in slot.clients)


async def _connect(plan: Plan, slots: Sequence[TableSlot], connecting: Callable[[int, int, float], None]) -> None:
    """Open every seat's connection, 50 tables at a time, calling ``connecting(open, all, seconds so far)`` each
    second; ``ConnectFailed`` at the first that fails, or once ``plan.connect_timeout`` has passed (a server that
    stops answering mid-way, a network that drops packets), saying how many were open by then."""
    gate = asyncio.Semaphore(50)
    total = plan.tables * plan.seats

    def opened() -> int:
        return sum(client.connected for slot in slots for client in slot.clients)

    async def connect(slot: TableSlot) -> None:
        async with gate:
            await slot.connect()

    async def each_second() -> None:
        started = time.perf_counter()
        while True:
            await asyncio.sleep(1.0)
            connecting(opened(), total, time.perf_counter() - started)

    ticker = asyncio.create_task(each_second())
    try:
        async with asyncio.timeout(plan.connect_timeout):
            await _all(*(connect(slot) for slot in slots))
    except (ServerError, ConnectionLost, OSError) as exc:  # (``TimeoutError`` included)
        late = isinstance(exc, TimeoutError) and not str(exc)  # (the phase's own timeout, not a connection's)
        why = f"not all open after {plan.connect_timeout:g} s (--connect-timeout)" if late else said(exc)
        raise ConnectFailed(f"{opened()} of {total} connections to {plan.url} open, then: {why}") from None
    finally:
        ticker.cancel()


async def _measure(
    plan: Plan,
    duration: float,
    watched: Watched,
    begin: Callable[[], Awaitable[None]],
    each_second: Callable[[Stats, float], None],
    connecting: Callable[[int, int, float], None] = lambda opened, total, elapsed: None,
) -> Window:
    """One process's load: connect every seat of ``plan``'s tables (``connecting``: see ``_connect``), await
    ``begin``, then play ``duration`` seconds (less if SIGINT or SIGTERM comes: ``Interrupted`` before), calling
    ``each_second(stats, seconds so far)``."""
    stats = Stats()
    slots = [TableSlot(plan, stats, i) for i in range(plan.first, plan.first + plan.tables)]
    with Stop() as signalled:
        began = time.perf_counter()
        try:
            await signalled.unless(_connect(plan, slots, connecting))
            connect_s = time.perf_counter() - began
            relax_gc()  # thousands of connections: the collector's passes would cost more than the bots
            await signalled.unless(begin())
        except Interrupted:
            await asyncio.gather(*(slot.close() for slot in slots), return_exceptions=True)
            raise
        return await _play(slots, stats, duration, connect_s, watched, each_second, signalled)


async def _play(
    slots: Sequence[TableSlot],
    stats: Stats,
    duration: float,
    connect_s: float,
    watched: Watched,
    each_second: Callable[[Stats, float], None],
    signalled: Stop,
) -> Window:
    """``_measure``'s window (its seats connected in ``connect_s``): the tables play ``duration`` seconds, or until
    ``signalled``."""
    plan = slots[0].plan
    stop = asyncio.Event()
    runners = [asyncio.create_task(slot.run(stop)) for slot in slots]
    runners.append(asyncio.create_task(watchdog(slots, plan.game_timeout)))
    started = time.perf_counter()
    stats.recording = True
    watched.start()

    def tick(elapsed: float) -> None:
        stats.down = _down(slots)
        each_second(stats, elapsed)

    ticker = asyncio.create_task(_each_second(watched, tick))
    await signalled.sleep(duration)
    stats.recording = False
    elapsed = time.perf_counter() - started
    cpu = watched.cpu_seconds()
    watched.sample()
    stats.down = _down(slots)
    connections = stats.connections - stats.down
    if stats.down:  # a server that died or went out of reach: nothing else would count it as an error
        stats.errors["connection_down"] += stats.down
    if still := sum(slot.silent(min(plan.game_timeout, STILL_AT_END)) for slot in slots):
        stats.errors["stalled"] += still
    stop.set()
    for task in [*runners, ticker]:
        task.cancel()
    stats.errors.update(died(await asyncio.gather(*runners, ticker, return_exceptions=True)))
    await asyncio.gather(*(slot.close() for slot in slots), return_exceptions=True)
    return Window(stats, elapsed, connect_s, connections, cpu, signalled.signum)


async def _load(plan: Plan, duration: float, progress: bool, watched: Watched) -> dict[str, Any]:
    """Every table in this process (``--processes 1``), which shows its own progress line."""
    line = Line.made(progress, duration)
    try:
        window = await _measure(plan, duration, watched, _at_once, line.ticked, line.connecting)
    finally:
        line.end()
    return loadstats.report(plan, window)


def _child(plan: Plan, duration: float) -> int:
    """A load process of a ``--processes`` run: ``_measure`` under its parent's barrier, reporting to it."""
    become_child()

    def tick(stats: Stats, elapsed: float) -> None:
        tell("tick", vars(Tick.of(stats)))

    try:
        window = asyncio.run(_measure(plan, duration, Watched(None), ready_then_wait_for_go, tick))
    except ConnectFailed as exc:  # (its parent names this process, then this line's)
        raise SystemExit(f"hauntd loadtest: {exc}") from None
    except Interrupted as exc:  # (its parent, which ended it, says so)
        return 128 + exc.signum
    tell("result", window.to_json())
    return 0


def _shares(plan: Plan, processes: int) -> list[Plan]:
    """``plan``'s tables as ``processes`` runs of consecutive tables, as even as can be."""
    size, extra = divmod(plan.tables, processes)
    shares, first = [], plan.first
    for i in range(processes):
        tables = size + (i < extra)
        shares.append(dataclasses.replace(plan, first=first, tables=tables))
        first += tables
    return shares


def _child_argv(share: Plan, duration: float) -> list[str]:
    """The command line of the load process that plays ``share``."""
    argv = [sys.executable, "-m", "server.cli", "loadtest", "--url", share.url, "--duration", repr(duration)]
    argv += ["--tables", str(share.tables), "--seats", str(share.seats), "--game", share.game]
    argv += ["--strategy", share.strategy, "--seed", str(share.seed), "--game-timeout", repr(share.game_timeout)]
    argv += ["--connect-timeout", repr(share.connect_timeout)]
    return [*argv, "--child", str(share.first)]


async def _all(*steps: Awaitable[Any]) -> list[Any]:
    """``gather``, except that the first failure cancels the others (and nothing is left unawaited)."""
    tasks = [asyncio.ensure_future(step) for step in steps]
    try:
        return await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _spread(plan: Plan, duration: float, processes: int, progress: bool, watched: Watched) -> dict[str, Any]:
    """The tables split over ``processes`` load processes that start together once all are connected and
    measure the same ``duration``; one report of their merged figures (``clients/loadprocs.py``)."""
    children = [
        LoadProcess(
            _child_argv(share, duration),
            f"load process {i + 1} of {processes} (tables {share.first}–{share.first + share.tables - 1})",
        )
        for i, share in enumerate(_shares(plan, processes))
    ]
    line = Line.made(progress, duration)
    lines = 0  # one per second the children reported

    def ticked() -> None:
        """Once every child has sent its counters of the next second: a line of their totals."""
        nonlocal lines
        if min(child.ticks for child in children) > lines:
            lines += 1
            line(Tick.total(Tick(**child.tick) for child in children), time.perf_counter() - started)

    async def window() -> dict[str, float]:
        """The window, the server's memory sampled each second: this process's and the server's CPU over it.  A
        signal ends it early, and the load processes' (they are in a process group of their own) with SIGINT."""
        sampler = asyncio.create_task(_each_second(watched, lambda elapsed: None))
        try:
            await signalled.sleep(duration)
        finally:
            sampler.cancel()
        if signalled.signum is not None:
            for child in children:
                child.interrupt()
        cpu = watched.cpu_seconds()
        watched.sample()
        line.end()
        return cpu

    with Stop() as signalled:
        try:
            for child in children:
                await child.start()
            # the barrier (a load process stopped while it connects would hold it for good)
            ready = (child.receive("ready", plan.connect_timeout + START_GRACE) for child in children)
            await signalled.unless(_all(*ready))
            watched.start()
            started = time.perf_counter()
            for child in children:
                child.ticked = ticked
                child.go()
            within = duration + RESULT_GRACE
            cpu, *results = await _all(window(), *(child.receive("result", within) for child in children))
        finally:
            line.end()  # (a load process that died ends the run: its line on a terminal is not to follow ours)
            await asyncio.gather(*(child.end() for child in children))
    merged = loadstats.merge([Window.from_json(result) for result in results], cpu, signalled.signum)
    return {**loadstats.report(plan, merged), "processes": processes}


def loadtest(
    plan: Plan,
    duration: float,
    *,
    spawn: bool,
    baseline: str | None,
    baseline_seconds: float,
    progress: bool,
    processes: int = 1,
) -> dict[str, Any]:
    limit = raise_open_files()  # (the load processes inherit it)
    needed = -(-plan.tables // processes) * plan.seats + 100  # a socket per seat in each load process
    if limit < needed:
        raise SystemExit(f"hauntd loadtest: {needed} open files needed per process, the limit is {limit}")
    report: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        server: ServerProcess | None = None
        if spawn:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hauntd-load-")))
            # bots play flat out, faster than the per-connection rate limit meant for people allows
            args = ["--log-format", "json", "--data-dir", str(tmp / "data"), "--rate", "1e6", "--burst", "1000000"]
            server = ServerProcess(args, tmp / "server.log", tied=True)  # (gone with us, even on SIGTERM)
            stack.callback(server.kill, signal.SIGTERM)
            server.start()
            plan.url = server.url
        watched = Watched(server.process.pid if server is not None and server.process is not None else None)
        try:
            if processes == 1:
                report.update(asyncio.run(_load(plan, duration, progress, watched)))
            else:
                report.update(asyncio.run(_spread(plan, duration, processes, progress, watched)))
        except (Died, ConnectFailed) as exc:
            raise SystemExit(f"hauntd loadtest: {exc}") from None  # (``Interrupted`` goes up to ``run``)
        if server is not None:
            report["server_rss_mb"] = round(sum(watched.peak_rss.values()), 1)
            report["server_rss_parts_mb"] = {k: round(v, 1) for k, v in watched.peak_rss.items()}
    # after the load (not after an interrupted one), from this one process whatever ``processes``: ratio's meaning
    if baseline == "echo" and "interrupted" not in report:
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
    parser.add_argument("--tables", type=at_least_one, default=10, help="tables playing at once (default: %(default)s)")
    parser.add_argument(
        "--seats", type=at_least_one, default=4, help="seats per table, within the game's (default: %(default)s)"
    )
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
        type=positive,
        default=game_timeout,
        help="seconds a game's seats may receive nothing before it is ended and counted as stalled (default: "
        "%(default)s; a game silent for 5 s when the window ends counts too)",
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
    parser.add_argument(
        "--url", type=ws_url, default="ws://127.0.0.1:8765", help="server to load (default: %(default)s)"
    )
    parser.add_argument("--spawn", action="store_true", help="start a hauntd serve with an embedded store instead")
    parser.add_argument("--duration", type=positive, default=10.0, help="seconds measured (default: %(default)s)")
    add_table_arguments(parser, game="mansion", game_timeout=60.0)
    parser.add_argument(
        "--processes",
        type=at_least_one,
        default=1,
        help="load processes the tables are split over, to load from more than one core; they start together and "
        "their figures are merged (default: %(default)s; at most --tables)",
    )
    parser.add_argument(
        "--baseline",
        choices=["echo"],
        default=None,
        help="also measure a bare websockets echo, after the load, from one process whatever --processes (so "
        "ratio keeps its meaning)",
    )
    parser.add_argument(
        "--baseline-seconds", type=positive, default=None, help="seconds of the echo baseline (default: duration, ≤10)"
    )
    parser.add_argument(
        "--connect-timeout",
        type=positive,
        default=CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="seconds every seat has to connect before the run fails with exit status 1, naming how many did "
        "(a server that stops answering; default: %(default)g, for 1,000 tables that take some 7 s)",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="a progress line per second on stderr, even when it is not a terminal (on one it is always shown)",
    )
    parser.add_argument("--json", action="store_true", help="print only the JSON report (the default output)")
    # internal: this is one load process of a --processes run, its tables numbered from FIRST
    parser.add_argument("--child", type=int, default=None, metavar="FIRST", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    plan = dataclasses.replace(plan_from_args(args, args.url), connect_timeout=args.connect_timeout)
    if args.child is not None:
        return _child(dataclasses.replace(plan, first=args.child), args.duration)
    check_seats(args._usage_error, args.game, args.seats)
    if args.processes > args.tables:
        args._usage_error(f"argument --processes: {args.processes} is more than --tables {args.tables}")
    baseline_seconds = args.baseline_seconds if args.baseline_seconds is not None else min(args.duration, 10.0)
    try:
        report = loadtest(
            plan,
            args.duration,
            spawn=args.spawn,
            baseline=args.baseline,
            baseline_seconds=baseline_seconds,
            progress=args.progress,
            processes=args.processes,
        )
    except Interrupted as exc:
        print(f"hauntd loadtest: {exc}", file=sys.stderr)
        return 128 + exc.signum
    print(json.dumps(report))
    if "interrupted" in report:
        says = f"the report covers the {report['duration_s']:g} s measured of {args.duration:g}"
        print(f"hauntd loadtest: interrupted by {report['interrupted']}: {says}", file=sys.stderr)
        return 128 + signal.Signals[report["interrupted"]]
    failed = False
    if report["leaks"]:  # hidden information reached a seat that must not see it: the server is not fit to deploy
        print(f"hauntd loadtest: {report['leaks']} leaks of hidden information (leak_examples)", file=sys.stderr)
        failed = True
    if report["errors"]:  # the figures are not those of a server playing cleanly: a script gating on them must fail
        codes = ", ".join(f"{count} {code}" for code, count in sorted(report["errors"].items()))
        print(f"hauntd loadtest: errors: {codes}", file=sys.stderr)
        failed = True
    return 1 if failed else 0
