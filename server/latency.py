"""``hauntd bench latency``: one action at a time over real sockets, timed to ``accepted`` and to fan-out."""

from __future__ import annotations

import asyncio
import random
import signal
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from clients.sdk import Client
from protocol.messages import Accepted, Events, GameOver, Snapshot
from server.launch import ServerProcess


class _Seat:
    """One seat's connection, stamping when each update arrives."""

    def __init__(self, client: Client, table: str) -> None:
        self.client = client
        self.table = table
        self.arrived: dict[int, float] = {}
        self.legal: tuple[int, list[Any]] = (-1, [])
        self.over = False
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            msg = await self.client.recv()
            now = time.perf_counter()
            if isinstance(msg, Events):
                self.arrived[msg.seq] = now
            if isinstance(msg, Snapshot) or (isinstance(msg, Events) and msg.prompts is not None):
                self.legal = (msg.seq, msg.legal)
            elif isinstance(msg, GameOver):
                self.over = True
            self.changed.set()

    async def wait(self, predicate: Any) -> None:
        while not predicate():
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 30)


def percentiles_ms(samples: Sequence[float], *ranks: int) -> list[float]:
    """The ``ranks``-th percentiles (1–99) of ``samples`` (seconds) in milliseconds: ``statistics.quantiles``,
    inclusive (interpolated between the two nearest samples); 0 without samples."""
    if len(samples) < 2:
        return [1000 * samples[0] if samples else 0.0 for _ in ranks]
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return [1000 * cuts[rank - 1] for rank in ranks]


def _percentiles(samples: list[float]) -> dict[str, float]:
    p50, p99 = percentiles_ms(samples, 50, 99)
    return {"p50_ms": round(p50, 3), "p99_ms": round(p99, 3), "max_ms": round(1000 * max(samples), 3)}


async def _play(url: str, n_actions: int, seats: int, seed: int) -> dict[str, Any]:
    chooser = random.Random(seed)
    acked: list[float] = []
    fanned: list[float] = []
    games = 0
    while len(acked) < n_actions:
        clients = [Client(url, client=f"bench{i}") for i in range(seats)]
        try:
            await _game(clients, n_actions, seats, chooser, acked, fanned)
            games += 1
        finally:  # (also when interrupted: a server stopping waits 10 s for the close of a connection left open)
            await asyncio.gather(*(client.close() for client in clients))
    return {
        "seats": seats,
        "games": games,
        "actions": len(acked),
        "accepted": _percentiles(acked),
        "update_at_other_seats": _percentiles(fanned),
    }


async def _game(
    clients: list[Client], n_actions: int, seats: int, chooser: random.Random, acked: list[float], fanned: list[float]
) -> None:
    """One game of ``_play`` on ``clients`` (not connected yet), until it ends or ``acked`` has ``n_actions``."""
    for client in clients:
        await client.connect()
    table = await clients[0].create("mansion", seats)
    for i, client in enumerate(clients):
        await client.join(table, f"bench{i}")
    players = [_Seat(c, table) for c in clients]
    try:  # (from the start on: a Ctrl-C there left the readers to fail on the closed clients, a traceback each)
        seq = await clients[0].start(table)
        while len(acked) < n_actions and not players[0].over:
            for p in players:  # everyone has this update's prompts (a seat owing nothing gets them too)
                await p.wait(lambda p=p, seq=seq: p.legal[0] >= seq or p.over)
            ready = [p for p in players if p.legal[0] == seq and p.legal[1]]
            if not ready:
                break  # the game is over
            actor = ready[0]
            sent = time.perf_counter()
            outcome = await actor.client.act(table, chooser.choice(actor.legal[1]), seq=seq)
            assert isinstance(outcome, Accepted), outcome
            acked.append(time.perf_counter() - sent)
            seq = outcome.seq
            for p in players:
                await p.wait(lambda p=p, seq=seq: seq in p.arrived)
                if p is not actor:
                    fanned.append(p.arrived[seq] - sent)
    finally:
        for p in players:
            p.task.cancel()


def bench_latency(url: str | None, n_actions: int, seats: int, seed: int) -> dict[str, Any]:
    if url is not None:
        return {"url": url, **asyncio.run(_play(url, n_actions, seats, seed))}
    with tempfile.TemporaryDirectory(prefix="hauntd-bench-") as tmp:
        server = ServerProcess(
            ["--log-format", "json", "--data-dir", str(Path(tmp) / "data")],
            Path(tmp) / "server.log",
            tied=True,  # (gone with us, however we end)
        )
        try:  # (a Ctrl-C while it starts stops it too: it went on starting, in the directory removed meanwhile)
            server.start()
            return {"url": "embedded", **asyncio.run(_play(server.url, n_actions, seats, seed))}
        finally:
            server.kill(signal.SIGTERM)
