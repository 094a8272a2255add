"""What ``hauntd loadtest`` counts and how it reports it: the bots' figures (``Stats``), a process's running
totals for the progress line (``Tick``, ``Line``), one process's measured window (``Window``), the windows of
``--processes`` load processes merged into one, and the JSON report."""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clients.progress import Progress
from server.latency import percentiles_ms

if TYPE_CHECKING:
    from clients.loadtest import Plan

LEAK_EXAMPLES = 10  # leaks described in the report


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
    down: int = 0  # connections dropped and not back (a dead server looks like this: no error, no action)
    reconnects: int = 0  # connections the SDK re-opened (and resumed) after a drop
    recording: bool = False  # counting only inside the measured window

    def leak(self, where: str) -> None:
        self.leaks += 1
        if len(self.leak_examples) < LEAK_EXAMPLES:
            self.leak_examples.append(where)

    def add(self, other: Stats) -> None:
        """Count in what another process measured (``--processes``): raw samples, so percentiles stay exact."""
        self.actions += other.actions
        self.games += other.games
        self.messages += other.messages
        self.latency += other.latency
        self.event_latency += other.event_latency
        self.errors.update(other.errors)
        self.rejections.update(other.rejections)
        self.leaks += other.leaks
        self.leak_examples = (self.leak_examples + other.leak_examples)[:LEAK_EXAMPLES]
        self.connections += other.connections
        self.down += other.down
        self.reconnects += other.reconnects

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Stats:
        """The inverse of ``vars(stats)`` through JSON."""
        return cls(**{**data, "errors": Counter(data["errors"]), "rejections": Counter(data["rejections"])})


@dataclass
class Tick:
    """A process's running totals, for the progress line (a load process sends its parent one each second)."""

    actions: int = 0
    games: int = 0
    connections: int = 0
    down: int = 0
    errors: int = 0
    leaks: int = 0
    recent: list[float] = field(default_factory=list)  # the latest latency samples

    @classmethod
    def of(cls, stats: Stats) -> Tick:
        errors = sum(stats.errors.values())
        recent = stats.latency[-2000:]
        return cls(stats.actions, stats.games, stats.connections, stats.down, errors, stats.leaks, recent)

    @classmethod
    def total(cls, ticks: Iterable[Tick]) -> Tick:
        total = cls()
        for tick in ticks:
            total.actions += tick.actions
            total.games += tick.games
            total.connections += tick.connections
            total.down += tick.down
            total.errors += tick.errors
            total.leaks += tick.leaks
            total.recent += tick.recent
        return total


class Line:
    """The progress line (nothing when ``shown`` is None): a ``Tick`` and the rate of actions since the last."""

    def __init__(self, shown: Progress | None, duration: float) -> None:
        self.shown = shown
        self.duration = duration
        self.last = (0, 0.0)  # (actions, seconds into the window) at the last line

    def __call__(self, tick: Tick, elapsed: float) -> None:
        if self.shown is None:
            return
        rate = (tick.actions - self.last[0]) / max(1e-9, elapsed - self.last[1])
        self.last = (tick.actions, elapsed)
        recent = percentiles(tick.recent)
        self.shown.show(
            f"{elapsed:5.0f}/{self.duration:.0f}s  conns {tick.connections}  games {tick.games}  "
            f"actions {tick.actions} ({rate:.0f}/s)  p50 {recent['p50']:.1f}ms p99 {recent['p99']:.1f}ms  "
            f"errors {tick.errors}  leaks {tick.leaks}" + (f"  down {tick.down}" if tick.down else "")
        )

    def ticked(self, stats: Stats, elapsed: float) -> None:
        """The line of this process's own ``stats``."""
        self(Tick.of(stats), elapsed)

    def connecting(self, opened: int, total: int, elapsed: float) -> None:
        """The line while the seats connect (thousands of them take seconds)."""
        if self.shown is not None:
            self.shown.show(f"{elapsed:5.0f}s   connecting: {opened} of {total} connections open")

    def end(self) -> None:
        """End the line for good (a load process's late counters show nothing more)."""
        if self.shown is not None:
            self.shown.end()
        self.shown = None

    @classmethod
    def made(cls, progress: bool, duration: float) -> Line:
        """Shown with ``--progress``, or on a terminal."""
        line = Progress(every=1.0)
        return cls(line if progress or line.live else None, duration)


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95 and p99 of ``samples`` (seconds) in milliseconds."""
    p50, p95, p99 = percentiles_ms(samples, 50, 95, 99)
    return {"p50": round(p50, 2), "p95": round(p95, 2), "p99": round(p99, 2)}


@dataclass
class Window:
    """What one process's measured window counted, and over what."""

    stats: Stats
    elapsed: float
    connect_s: float
    connections: int  # connected at the window's end
    cpu: dict[str, float]  # CPU seconds used in the window, by process
    interrupted: int | None = None  # the signal that ended the window early, if one did

    def to_json(self) -> dict[str, Any]:
        return {**vars(self), "stats": vars(self.stats)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Window:
        return cls(**{**data, "stats": Stats.from_json(data["stats"])})


def merge(parts: list[Window], cpu: dict[str, float], interrupted: int | None = None) -> Window:
    """The load processes' windows as one: counts summed, samples pooled, the parent's ``cpu`` (its own as
    ``client``, the server's) with the processes' CPU added to ``client``; ``interrupted``: the parent's signal."""
    stats = Stats()
    for part in parts:
        stats.add(part.stats)
    cpu = {**cpu, "client": cpu["client"] + sum(part.cpu["client"] for part in parts)}
    elapsed = max(part.elapsed for part in parts)  # all started on the same go, for the same duration
    connect_s = max(part.connect_s for part in parts)
    return Window(stats, elapsed, connect_s, sum(part.connections for part in parts), cpu, interrupted)


def report(plan: Plan, window: Window) -> dict[str, Any]:
    """The JSON report of ``plan``'s measured ``window`` (``--spawn`` and ``--baseline`` add their figures)."""
    stats, elapsed, cpu = window.stats, window.elapsed, window.cpu
    interrupted = {} if window.interrupted is None else {"interrupted": signal.Signals(window.interrupted).name}
    return {
        "tables": plan.tables,
        "seats": plan.seats,
        "connections": window.connections,
        "game": plan.game,
        "strategy": plan.strategy,
        "duration_s": round(elapsed, 2),
        "connect_s": round(window.connect_s, 2),
        "games_completed": stats.games,
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1),
        "messages_per_action": round(stats.messages / max(1, stats.actions), 2),
        "latency_ms": percentiles(stats.latency),
        "event_latency_ms": percentiles(stats.event_latency),
        "errors": dict(stats.errors),
        "reconnects": stats.reconnects,
        "rejections": dict(stats.rejections),
        "leaks": stats.leaks,
        "leak_examples": stats.leak_examples,
        "cpu_percent": {name: round(100 * used / elapsed, 1) for name, used in cpu.items()},
        "cpu_ms_per_action": {name: round(1000 * used / max(1, stats.actions), 3) for name, used in cpu.items()},
        **interrupted,
    }
