"""Prometheus metrics of one server process, served at ``/metrics`` in the text format.

In a worker of ``hauntd serve --workers N`` (``PROMETHEUS_MULTIPROC_DIR`` set by its supervisor, which
prometheus-client reads at import) every worker writes its values to files in that directory, and ``render``
adds up all the workers' (prometheus-client's multiprocess mode): a scrape lands on any one worker and still
counts them all.  ``hauntd_tables`` is then one series per worker (its ``pid`` label is the worker's number, see
``name_files``), and the ``process_*`` figures, which could only describe the one worker scraped, are left out."""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest, values
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"


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
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
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
