"""Prometheus metrics of one server process, served at ``/metrics`` in the text format.

In a worker of ``hauntd serve --workers N`` (``PROMETHEUS_MULTIPROC_DIR`` set by its supervisor, which
prometheus-client reads at import) every worker writes its values to files in that directory, and ``render``
adds up all the workers' (prometheus-client's multiprocess mode): a scrape lands on any one worker and still
counts them all.  ``hauntd_tables`` is then one series per worker (its ``pid`` label is the worker's number, see
``name_files``), and the ``process_*`` figures, which could only describe the one worker scraped, are left out."""

from __future__ import annotations

import os

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"

# No ``_created`` series (each counter's and histogram's creation time): the workers' multiprocess mode has none, so
# one process and ``--workers N`` serve the same series, and no ``hauntd_tables_created_created`` reads as a count.
disable_created_metrics()  # type: ignore[no-untyped-call]


def name_files(worker: int) -> None:
    """In worker ``worker`` of ``serve --workers N``, before any metric exists: its values' files are named for
    its number, not its pid, so a worker started in a dead one's place carries on its counters in the same files.
    (Named by pid, a dead worker's counter and histogram files stay, to keep the totals: two more files at each
    restart, all read by every scrape.)"""
    values.ValueClass = values.MultiProcessValue(process_identifier=lambda: worker)  # type: ignore[no-untyped-call]


class Metrics:
    """One registry per server (tests run several in one interpreter)."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.connections = Gauge(
            "hauntd_connections", "Open WebSocket connections", registry=self.registry, multiprocess_mode="livesum"
        )
        self.connection_kinds = Gauge(
            "hauntd_connections_by_kind",
            "Open WebSocket connections by kind, counted every second: player (following a table as a seat), "
            "spectator (following tables, as no seat), other (following none: the lobby, between games)",
            ["kind"],
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.tables = Gauge(
            "hauntd_tables",
            "Tables this process follows (a hub each, kept some 30 s after its last follower leaves)",
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        self.tables_created = Counter("hauntd_tables_created", "Tables created", registry=self.registry)
        self.actions = Counter("hauntd_actions", "Actions committed (time-outs included)", registry=self.registry)
        self.rejections = Counter(
            "hauntd_rejections", "Commands and frames refused, by error code", ["code"], registry=self.registry
        )
        self.action_latency = Histogram(
            "hauntd_action_latency_seconds",
            "From an act frame's arrival to its commit (or rejection)",
            # up to 10 s: with the store paused, actions wait seconds, which a last bucket of 1 s hid in +Inf
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
            registry=self.registry,
        )
        self.closed = Counter(
            "hauntd_connections_closed",
            "WebSocket connections closed: logged (it held a seat, created a table, was refused something or was "
            "cut off: a connection_closed line) or quiet (counted in a quiet_connections_closed line a minute)",
            ["kind"],
            registry=self.registry,
        )
        self.dropped = Counter("hauntd_slow_consumers", "Connections dropped for not reading", registry=self.registry)
        self.refused = Counter(
            "hauntd_refused_connections",
            "Connections refused or closed by the guard: per_ip (over the per-address cap), origin (a browser "
            "Origin not allowed), idle",
            ["reason"],
            registry=self.registry,
        )
        self.failures = Counter(
            "hauntd_failures",
            "Failures logged, by log event and kind: store_down (the store unreachable, restarting or loading: "
            "warnings, clients retry), store_refused (the store refuses writes: full under noeviction, or a "
            "replica: warnings, fix the store) or error (anything else: an error line with its traceback)",
            ["event", "kind"],
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "hauntd_event_loop_lag_seconds",
            "How late the event loop ran a timer, sampled every second (``server/watchdog.py``): a blocked loop "
            "serves nothing, every connection of the process waits",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
            registry=self.registry,
        )
        self.heartbeat = Gauge(
            "hauntd_heartbeat_timestamp_seconds",
            "Unix time of the process's last watchdog tick, every second: one far behind time() is a process stopped "
            "or blocked (with --workers N, a scrape answered by any worker shows every worker's)",
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        self.memory = Gauge(
            "hauntd_resident_memory_bytes",
            "The process's resident memory, read every second (with --workers N, one series per worker)",
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        self.store_up = Gauge(
            "hauntd_store_up",
            "1 while the store answers the watchdog's PING within a second, else 0",
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        self.store_ping = Histogram(
            "hauntd_store_ping_seconds",
            "The watchdog's PING to the store, every second, through the pool commands use (waits included)",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )
        self.store_commit = Histogram(
            "hauntd_store_commit_seconds",
            "One round trip of commits to the store (one pipeline of every commit made meanwhile)",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
            registry=self.registry,
        )
        self.deadline_lateness = Histogram(
            "hauntd_deadline_lateness_seconds",
            "From a deadline (a turn's time limit, an away seat's grace, a server-run bot's move) to its decision",
            buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
            registry=self.registry,
        )
        self.notice_lag = Histogram(
            "hauntd_notice_lag_seconds",
            "From a commit by another process to its notice's delivery here (pub/sub; clocks of the hosts apart)",
            buckets=(0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
            registry=self.registry,
        )
        self.catchups = Counter(
            "hauntd_resync_catchups",
            "Tables the 2-s resync found behind the store: a notice from another process lost or late",
            registry=self.registry,
        )
        # read from the store at each scrape (``Watchdog.survey``), the same whichever process answers; NaN when
        # the store did not answer
        self.lobby = Gauge(
            "hauntd_lobby_tables",
            "Public tables listed in the lobby (not started, a seat free, not abandoned)",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.playing = Gauge(
            "hauntd_playing_tables",
            "Public tables in play (started, not over), as the lobby's games in progress; a table expired in play "
            "counts until a lobby read drops it",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.scheduled = Gauge(
            "hauntd_scheduled_tables",
            "Tables in the schedule of deadlines (playing with a time limit, server-run bots or a nudge)",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.overdue = Gauge(
            "hauntd_deadlines_overdue",
            "Tables whose deadline in the schedule passed over a second ago and that no process has claimed",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        self.overdue_age = Gauge(
            "hauntd_deadlines_overdue_seconds",
            "How long ago the oldest such deadline passed (0: none)",
            registry=self.registry,
            multiprocess_mode="mostrecent",
        )
        shared = os.environ.get(MULTIPROCESS_DIR)
        if shared:
            self.exposed = CollectorRegistry()
            MultiProcessCollector(self.exposed, shared)  # type: ignore[no-untyped-call]
        else:
            ProcessCollector(registry=self.registry)  # process_resident_memory_bytes and friends
            self.exposed = self.registry

    def failed(self, event: str, kind: str) -> None:
        """Count one failure (``Store.on_failure``)."""
        self.failures.labels(event, kind).inc()

    def render(self) -> bytes:
        return generate_latest(self.exposed)
