"""``hauntd chaos``: tables of bots play whole games on several ``hauntd serve`` processes sharing one store
while server processes are killed (SIGKILL) and restarted, client connections are cut and the store itself is
killed and restarted once; then every table's log is audited.

The store is an embedded Valkey run by this command as its own process, with append-only persistence, so it can
be killed and started again on the same port (with ``--redis-url`` the store is someone else's and is never
restarted).  The tables are the load tester's (``clients/loadtest.py``): each seat its own SDK connection, given
every server's URL, so a connection whose server died reconnects to another one (or to the same one restarted)
and resumes its seat.  New games start until ``--duration`` is over; the games then running get ``--grace``
seconds to finish.

What must hold, or the command exits with status 1:

* every game started is completed (each seat received its ``game_over``);
* ``lost_actions``: every action a client was told is ``accepted`` as ``seq`` is the table's logged update
  ``seq``, under the same command (the log is read after the store's restart);
* ``duplicate_actions``: no command key is logged twice in a table's log;
* ``sequence_gaps``: no seat received an update out of order (a skipped ``seq``) or twice, and no table's log
  skips a ``seq``;
* ``replay_failures``: every completed game replays from its log to its stored final state, dealt from the
  seed it committed to (``hauntd verify``);
* ``leaks``: no seat received a value hidden from it (``clients/leaks.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from clients.bots.base import Strategy
from clients.leaks import LeakChecker
from clients.loadstats import Stats
from clients.loadtest import LoadBot, Plan, TableSlot, add_table_arguments, died, plan_from_args, watchdog
from clients.progress import Progress
from clients.sdk import Client, ConnectionLost, ServerError
from protocol.messages import Accepted, Events, Rejected, ServerMsg, Snapshot
from server.app import raise_open_files, relax_gc
from server.cli import at_least_one, check_seats, non_negative, positive, redis_url
from server.embedded import EmbeddedValkey
from server.launch import ServerProcess
from server.store import Store
from server.verify import judge, logged

# A request that met the chaos (its server died, its store restarted): the table is given up before its start.
_SETUP_FAILURES = (ServerError, ConnectionLost, TimeoutError, OSError)


@dataclass
class Ledger:
    """What the clients were told, to be checked against the store at the end."""

    accepted: dict[str, list[tuple[int, str, int]]] = field(default_factory=dict)  # table → (seat, cmd, seq)
    started: set[str] = field(default_factory=set)
    completed: set[str] = field(default_factory=set)
    seat_gaps: int = 0  # updates a seat's bot was handed out of order (the SDK's own order)
    jumps: int = 0  # updates that reached an SDK with a seq skipped (from connections closed so far)
    repeats: int = 0  # updates that reached an SDK twice (from connections closed so far)
    kills: int = 0
    redis_restarts: int = 0
    dropped: int = 0


class ChaosBot(LoadBot):
    """A load-test seat that also notes each accepted action and checks the order of the updates it is handed."""

    def __init__(self, ledger: Ledger, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ledger = ledger
        self.seen: int | None = None  # the last seq handed to this seat

    def observe(self, msg: ServerMsg) -> None:
        super().observe(msg)
        if isinstance(msg, Events):
            if self.seen is not None and msg.seq != self.seen + 1:
                self.ledger.seat_gaps += 1
            self.seen = msg.seq
        elif isinstance(msg, Snapshot):
            self.seen = max(self.seen or 0, msg.seq)

    def acted(self, seq: int, sent: float, outcome: Accepted | Rejected) -> None:
        super().acted(seq, sent, outcome)
        if isinstance(outcome, Accepted):
            self.ledger.accepted.setdefault(self.table, []).append((self.seat, outcome.cmd, outcome.seq))


class ChaosSlot(TableSlot):
    """One table's connections, spread over every server: game after game until told to stop."""

    def __init__(self, plan: Plan, stats: Stats, index: int, urls: list[str], ledger: Ledger) -> None:
        super().__init__(plan, stats, index)
        self.urls = urls
        self.ledger = ledger
        self.stop = asyncio.Event()

    def client(self, i: int) -> Client:
        first = (self.index + i) % len(self.urls)  # a table's seats sit on different servers
        urls = self.urls[first:] + self.urls[:first]
        return Client(urls, client=f"chaos-{self.index}-{i}", request_timeout=60)

    async def close(self) -> None:
        for client in self.clients:
            self.ledger.jumps += client.gaps
            self.ledger.repeats += client.repeats
        await super().close()

    def bot(self, checker: LeakChecker, client: Client, table: str, seat: int, strategy: Strategy) -> LoadBot:
        return ChaosBot(self.ledger, self.stats, self.clock, checker, client, table, seat, strategy, self.rng)

    async def play_game(self) -> None:
        try:
            table, bots = await self.seat_table()
        except _SETUP_FAILURES as exc:  # before the start: give the table up and set up another
            self._count(exc)
            if not self.connected:  # it failed renewing the connections: new ones next time
                await self.close()
            for client in self.clients:
                client.seats.clear()
                client.last_seq.clear()
            await asyncio.sleep(0.1)
            return
        if self.stop.is_set():  # the run is ending: no new game
            return
        await self._start(table)
        self.ledger.started.add(table)
        await self.play(table, bots)
        self.ledger.completed.add(table)

    async def _start(self, table: str) -> None:
        """Start ``table``, asking again when the answer was lost (``already_started`` then means it did)."""
        delay = 0.05
        while True:
            try:
                await self.clients[0].start(table)
                return
            except ServerError as exc:
                if exc.code == "already_started":
                    return
                self._count(exc)
            except (ConnectionLost, TimeoutError) as exc:
                self._count(exc)
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)

    def _count(self, exc: BaseException) -> None:
        self.stats.errors[exc.code if isinstance(exc, ServerError) else type(exc).__name__] += 1

    async def run(self, stop: asyncio.Event) -> None:
        self.stop = stop
        await super().run(stop)


class Cluster:
    """The store and the server processes under test, and the harm done to them."""

    def __init__(self, work: Path, processes: int, redis_url: str | None) -> None:
        self.work = work
        self.valkey = EmbeddedValkey(work / "valkey") if redis_url is None else None
        self.redis_url = redis_url
        self.servers: list[ServerProcess] = []
        self.processes = processes

    @property
    def url(self) -> str:
        return self.valkey.url if self.valkey is not None else str(self.redis_url)

    async def start(self) -> None:
        if self.valkey is not None:
            await self.valkey.start_async()
        # bots play flat out, faster than the per-connection rate limit meant for people allows
        args = ["--log-format", "json", "--redis-url", self.url, "--rate", "1e6", "--burst", "1000000"]
        self.servers = [ServerProcess(args, self.work / f"server{i}.log", tied=True) for i in range(self.processes)]
        await asyncio.gather(*(server.start_async() for server in self.servers))

    def stop(self) -> None:
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.kill(signal.SIGTERM)
        if self.valkey is not None:
            self.valkey.stop()

    async def kill_server(self, rng: random.Random, clients: list[Client]) -> None:
        """SIGKILL a server drawn in proportion to the clients connected to it (a kill always cuts some), then
        start it again on its port after a moment."""
        held = Counter(client.url for client in clients if client.connected)
        weights = [held[server.url] + 0.01 for server in self.servers]
        server = rng.choices(self.servers, weights)[0]
        server.kill()
        await asyncio.sleep(rng.uniform(0.2, 1.5))
        await server.start_async()

    async def restart_store(self, rng: random.Random) -> bool:
        """SIGKILL the store and start it again on its port (it reloads its append-only file)."""
        if self.valkey is None:
            return False
        self.valkey.kill()
        await asyncio.sleep(rng.uniform(0.5, 1.5))
        await self.valkey.start_async(timeout=120)
        return True

    def server_errors(self) -> dict[str, int]:
        """Error lines in the servers' logs, by event (expected while the store is down, not otherwise)."""
        found: Counter[str] = Counter()
        for server in self.servers:
            for line in server.log_lines():
                if line.get("level") in ("error", "critical"):
                    found[str(line.get("event"))] += 1
        return dict(found)


@dataclass
class Harm:
    """How often each kind of harm is done."""

    kill_every: float
    drop_every: float
    redis_restart: bool


async def _harm(cluster: Cluster, slots: list[ChaosSlot], ledger: Ledger, harm: Harm, until: float, seed: int) -> None:
    """Kill and restart servers every ``kill_every`` seconds (jittered) and the store once near the middle, one
    at a time, until ``until`` (a ``time.monotonic``)."""
    rng = random.Random(seed)
    begin = time.monotonic()
    span = until - begin
    plan: list[tuple[float, str]] = []
    at = harm.kill_every * rng.uniform(0.5, 1.0)
    while at < span:
        plan.append((at, "kill"))
        at += harm.kill_every * rng.uniform(0.7, 1.3)
    if harm.redis_restart:
        plan.append((span * rng.uniform(0.35, 0.65), "redis"))
    for at, what in sorted(plan):
        await asyncio.sleep(max(0.0, begin + at - time.monotonic()))
        if what == "kill":
            await cluster.kill_server(rng, [client for slot in slots for client in slot.clients])
            ledger.kills += 1
        elif await cluster.restart_store(rng):
            ledger.redis_restarts += 1


async def _drop(slots: list[ChaosSlot], ledger: Ledger, every: float, seed: int) -> None:
    """Cut a random client connection every ``every`` seconds on average."""
    rng = random.Random(seed + 1)
    while True:
        await asyncio.sleep(rng.expovariate(1 / every))
        clients = [c for slot in slots for c in slot.clients]
        if clients and rng.choice(clients).drop():
            ledger.dropped += 1


def _progress(
    stats: Stats, ledger: Ledger, slots: list[ChaosSlot], started: float, duration: float
) -> Callable[[float], str]:
    """What the progress line says: the games, the actions and their rate, the harm done, errors, leaks."""
    last = 0

    def describe(seconds: float) -> str:
        nonlocal last
        rate, last = (stats.actions - last) / seconds, stats.actions
        reconnects = stats.reconnects + sum(c.reconnects for slot in slots for c in slot.clients)
        return (
            f"{time.monotonic() - started:5.0f}/{duration:.0f}s  games {len(ledger.completed)}/{len(ledger.started)}"
            f"  actions {stats.actions} ({rate:.0f}/s)  kills {ledger.kills}  redis {ledger.redis_restarts}"
            f"  drops {ledger.dropped}  reconnects {reconnects}  errors {sum(stats.errors.values())}"
            f"  leaks {stats.leaks}"
        )

    return describe


async def audit(url: str, ledger: Ledger) -> dict[str, Any]:
    """Read every table's log once: accepted actions missing from it, command keys logged twice, skipped seqs; and
    replay every completed game from it (``server/verify.py``)."""
    client = aioredis.from_url(url)
    store = Store(client)
    lost = duplicates = gaps = updates = 0
    unfair: dict[str, list[str]] = {}
    try:
        for table in sorted(ledger.started | set(ledger.accepted)):
            stored = await logged(store, table)
            if table in ledger.completed and table in ledger.started:
                replayed = judge(table, stored)
                if not replayed.ok:
                    unfair[table] = replayed.problems
            seq, batches = (stored[0].seq, stored[1]) if stored is not None else (0, [])
            gaps += seq - len(batches)  # seqs 1…seq missing from the log (entry ids only grow)
            updates += len(batches)
            by_seq = {b.seq: b for b in batches}
            commands = Counter(b.cmd for b in batches if b.cmd is not None)
            duplicates += sum(n - 1 for n in commands.values())
            for seat, cmd, at in ledger.accepted.get(table, []):
                entry = by_seq.get(at)
                if entry is None or entry.cmd != f"c:{seat}:{cmd}" or entry.seat != seat:
                    lost += 1
    finally:
        await client.aclose()
    return {
        "lost_actions": lost,
        "duplicate_actions": duplicates,
        "log_gaps": gaps,
        "logged_updates": updates,
        "replay_failures": len(unfair),
        "replay_examples": dict(list(unfair.items())[:3]),
    }


async def _chaos(
    cluster: Cluster, plan: Plan, duration: float, grace: float, harm: Harm, progress: bool
) -> dict[str, Any]:
    stats = Stats(recording=True)
    ledger = Ledger()
    await cluster.start()
    urls = [server.url for server in cluster.servers]
    slots = [ChaosSlot(plan, stats, i, urls, ledger) for i in range(plan.tables)]
    try:
        return await _play(cluster, plan, duration, grace, harm, progress, stats, ledger, slots)
    except asyncio.CancelledError:  # Ctrl-C, SIGTERM: connections closed, the servers stop at once (not in 10 s)
        await asyncio.gather(*(slot.close() for slot in slots), return_exceptions=True)
        raise


async def _play(
    cluster: Cluster,
    plan: Plan,
    duration: float,
    grace: float,
    harm: Harm,
    progress: bool,
    stats: Stats,
    ledger: Ledger,
    slots: list[ChaosSlot],
) -> dict[str, Any]:
    """``_chaos`` on its ``slots``: play, harm, drain, audit; the report."""
    gate = asyncio.Semaphore(50)

    async def connect(slot: ChaosSlot) -> None:
        async with gate:
            await slot.connect()

    await asyncio.gather(*(connect(slot) for slot in slots))
    relax_gc()
    started = time.monotonic()
    stop = asyncio.Event()
    runners = [asyncio.create_task(slot.run(stop)) for slot in slots]
    helpers = [
        asyncio.create_task(_drop(slots, ledger, harm.drop_every, plan.seed)),
        asyncio.create_task(watchdog(slots, plan.game_timeout)),
    ]
    shown = Progress()
    if progress:
        helpers.append(asyncio.create_task(shown.run(_progress(stats, ledger, slots, started, duration))))
    harming = asyncio.create_task(_harm(cluster, slots, ledger, harm, started + duration - 2.0, plan.seed))
    await asyncio.sleep(duration)
    stop.set()  # no new games: the running ones get ``grace`` seconds to finish
    _, late = await asyncio.wait(runners, timeout=grace)
    drained = time.monotonic() - started - duration
    harm_error = None
    try:
        await harming  # a harm under way (a restart) completes; none begins this late
    except Exception as exc:  # a server or the store did not come back: the run cannot vouch for anything
        harm_error = f"{type(exc).__name__}: {exc}"[:2000]
    for task in [*late, *helpers]:
        task.cancel()
    crashed = died(await asyncio.gather(*runners, *helpers, return_exceptions=True))
    if progress:
        shown.end()
    await asyncio.gather(*(slot.close() for slot in slots), return_exceptions=True)
    checked = await audit(cluster.url, ledger)
    report: dict[str, Any] = {
        "tables": plan.tables,
        "processes": len(cluster.servers),
        "game": plan.game,
        "duration_s": round(duration, 1),
        "drain_s": round(drained, 1),
        "games_started": len(ledger.started),
        "games_completed": len(ledger.completed & ledger.started),
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / (duration + drained), 1),
        "kills": ledger.kills,
        "redis_restarts": ledger.redis_restarts,
        "dropped_connections": ledger.dropped,
        "reconnects": stats.reconnects,
        "logged_updates": checked["logged_updates"],
        "lost_actions": checked["lost_actions"],
        "duplicate_actions": checked["duplicate_actions"],
        "games_replayed": len(ledger.completed & ledger.started),
        "replay_failures": checked["replay_failures"],
        "replay_examples": checked["replay_examples"],
        "sequence_gaps": ledger.seat_gaps + ledger.jumps + ledger.repeats + checked["log_gaps"],
        "gaps_by_kind": {
            "seat": ledger.seat_gaps,
            "jump": ledger.jumps,
            "repeat": ledger.repeats,
            "log": checked["log_gaps"],
        },
        "leaks": stats.leaks,
        "leak_examples": stats.leak_examples,
        "errors_by_code": dict(stats.errors),
        "server_errors": cluster.server_errors(),
        "harness_errors": dict(crashed),
    }
    if harm_error is not None:
        report["harm_error"] = harm_error
    if cluster.valkey is None:
        report["note"] = "--redis-url: that store is not this command's to restart, so it was not"
    return report


def passed(report: dict[str, Any]) -> bool:
    """Every started game completed; nothing lost, doubled, skipped or leaked; every process killed came back;
    no table runner or helper of this command's own died (it would have tested less than it reports)."""
    return report["games_completed"] == report["games_started"] and not any(
        report.get(key)
        for key in (
            "lost_actions",
            "duplicate_actions",
            "sequence_gaps",
            "replay_failures",
            "leaks",
            "harm_error",
            "harness_errors",
        )
    )


def chaos(
    plan: Plan,
    *,
    processes: int,
    duration: float,
    grace: float,
    harm: Harm,
    redis_url: str | None,
    work_dir: Path | None,
    progress: bool,
) -> tuple[dict[str, Any], Path]:
    """Run it; returns the report and the folder holding the logs (removed on success unless given)."""
    limit = raise_open_files()
    needed = plan.tables * plan.seats * 2 + 200
    if limit < needed:
        raise SystemExit(f"hauntd chaos: {needed} open files needed, the limit is {limit}")
    work = work_dir or Path(tempfile.mkdtemp(prefix="hauntd-chaos-"))
    work.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(work, processes, redis_url)
    try:
        report = asyncio.run(_chaos(cluster, plan, duration, grace, harm, progress))
    except KeyboardInterrupt:  # (Ctrl-C, SIGTERM: ``server/cli.py`` says so, with no report)
        print(f"hauntd chaos: the logs so far are in {work}", file=sys.stderr)
        raise
    finally:
        cluster.stop()
    if work_dir is None and passed(report):
        shutil.rmtree(work, ignore_errors=True)
    return report, work


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_table_arguments(parser, game="mix", game_timeout=30.0)  # --seed also draws the harm
    parser.add_argument(
        "--processes", type=at_least_one, default=2, help="hauntd serve processes (default: %(default)s)"
    )
    parser.add_argument(
        "--duration", type=positive, default=60.0, help="seconds new games start (default: %(default)s)"
    )
    parser.add_argument(
        "--grace", type=non_negative, default=60.0, help="seconds the last games get to finish (default: %(default)s)"
    )
    parser.add_argument(
        "--kill-every", type=positive, default=30.0, help="seconds between server kills (default: %(default)s)"
    )
    parser.add_argument(
        "--drop-every", type=positive, default=1.0, help="seconds between connection cuts (default: %(default)s)"
    )
    parser.add_argument(
        "--redis-url",
        type=redis_url,
        default=None,
        help="use this store instead of an embedded Valkey of the command's own (then it is not restarted)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="keep the store and server logs here (default: a temporary folder, removed if the run passes)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress line on stderr (live on a terminal, else every 10 s)"
    )
    parser.add_argument("--json", action="store_true", help="print only the JSON report (the default output)")


def run(args: argparse.Namespace) -> int:
    check_seats(args._usage_error, args.game, args.seats)
    report, work = chaos(
        plan_from_args(args, url=""),
        processes=args.processes,
        duration=args.duration,
        grace=args.grace,
        harm=Harm(args.kill_every, args.drop_every, redis_restart=args.redis_url is None),
        redis_url=args.redis_url,
        work_dir=args.work_dir,
        progress=not args.quiet,
    )
    print(json.dumps(report))
    if passed(report):
        return 0
    print(f"hauntd chaos: FAILED; the logs are in {work}", file=sys.stderr)
    return 1
