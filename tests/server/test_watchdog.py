"""What an operator sees of a process, its store and its schedule: ``/healthz`` (liveness), ``/readyz``
(readiness), the watchdog's figures in ``/metrics`` and its lines, each by breaking the thing on purpose."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import redis.asyncio as aioredis

from clients.sdk import Client
from server.embedded import EmbeddedValkey
from server.launch import ServerProcess
from server.metrics import Metrics
from server.store import Keys, Store
from server.watchdog import Watchdog
from tests.server.conftest import ServerFactory
from tests.server.test_http import get
from tests.server.test_workers import events, start_supervisor
from tests.waiting import until_blocking


def sample(text: str, name: str) -> float | None:
    """The value of the series ``name`` (with its labels as written) in a scrape, if there."""
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else None


def scrape(server: ServerProcess) -> str:
    return get(f"{server.http}/metrics")[1].decode()


def test_a_store_that_stops_answering_fails_readiness_not_liveness(start_server: ServerFactory, tmp_path: Path) -> None:
    """``/healthz`` answered 503 whenever the store did: a liveness probe on it restarted a server in a loop for
    its store's sake, which a restart does not mend.  Now ``/healthz`` says the process runs, ``/readyz`` that it
    can serve, and ``hauntd_store_up`` and a line at each change say when the store stopped and came back."""
    valkey = EmbeddedValkey(tmp_path / "store")
    valkey.start()
    assert valkey.process is not None
    try:
        server = start_server(redis_url=valkey.url)
        assert get(f"{server.http}/healthz") == (200, b"ok\n") and get(f"{server.http}/readyz") == (200, b"ok\n")
        assert until_blocking(lambda: sample(scrape(server), "hauntd_store_up") == 1.0)
        os.kill(valkey.process.pid, signal.SIGSTOP)  # as `redis-cli DEBUG SLEEP`, or a store swapping
        assert until_blocking(lambda: get(f"{server.http}/readyz") == (503, b"store down\n"))
        assert get(f"{server.http}/healthz") == (200, b"ok\n")
        metrics = scrape(server)
        assert sample(metrics, "hauntd_store_up") == 0.0 and "hauntd_lobby_tables NaN" in metrics, metrics
        assert until_blocking(lambda: [line for line in server.log_lines() if line["event"] == "store_unresponsive"])
        os.kill(valkey.process.pid, signal.SIGCONT)
        assert until_blocking(lambda: get(f"{server.http}/readyz") == (200, b"ok\n"))
        back = until_blocking(lambda: [line for line in server.log_lines() if line["event"] == "store_responsive"])
        assert isinstance(back, list) and float(back[0]["seconds"]) >= 1, back  # type: ignore[arg-type]
    finally:
        os.kill(valkey.process.pid, signal.SIGCONT)
        valkey.stop()


def test_a_stopped_worker_shows_in_any_scrape_and_its_blocked_loop_in_its_log(tmp_path: Path) -> None:
    """A worker SIGSTOPped (or wedged) left its clients waiting while ``/healthz`` and ``/metrics``, answered
    by the other worker, showed nothing wrong.  Its heartbeat now falls behind in every scrape, and once it runs
    again it logs how long its loop was held up."""
    supervisor = start_supervisor(tmp_path)
    try:
        beats = 'hauntd_heartbeat_timestamp_seconds{pid="%d"}'
        assert until_blocking(lambda: all(sample(scrape(supervisor), beats % i) for i in (0, 1)))
        pid = int(str([line for line in events(supervisor, "worker_started") if line["worker"] == 1][-1]["pid"]))
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(3)
            metrics, now = scrape(supervisor), time.time()
            assert get(f"{supervisor.http}/healthz")[0] == 200  # (answered by worker 0)
            assert now - (sample(metrics, beats % 1) or 0) > 2.5 > now - (sample(metrics, beats % 0) or 0), metrics
        finally:
            os.kill(pid, signal.SIGCONT)
        blocked = until_blocking(lambda: [e for e in events(supervisor, "event_loop_blocked") if e.get("worker") == 1])
        assert blocked and float(str(blocked[0]["seconds"])) >= 1.5, blocked  # (3 s, less the tick it was waiting for)
    finally:
        supervisor.kill(signal.SIGTERM)


def decided_late(*servers: ServerProcess) -> list[float]:
    """How many deadlines each server decided more than a second late."""
    return [
        (sample(m, "hauntd_deadline_lateness_seconds_count") or 0)
        - (sample(m, 'hauntd_deadline_lateness_seconds_bucket{le="1.0"}') or 0)
        for m in map(scrape, servers)
    ]


async def test_deadlines_decided_late_and_notices_between_processes_are_measured(
    start_server: ServerFactory,
) -> None:
    """How late a deadline fires, and how long another process's update takes to reach this one, had no
    figure: a schedule falling behind, or pub/sub lagging, showed only as players' complaints."""
    a, b = start_server(), start_server()
    first, second = Client(a.url), Client(b.url)
    async with first, second:
        table = await first.create("mansion", 2, turn_seconds=0.3)
        await first.join(table, "Ada")
        await second.join(table, "Bo")  # committed by b, its notice delivered by a to first
        await first.start(table)
        servers = [a.process, b.process]
        for process in servers:  # every deadline falling due meanwhile is decided late, once they run again
            assert process is not None
            process.send_signal(signal.SIGSTOP)
        await asyncio.sleep(1.5)
        for process in servers:
            assert process is not None
            process.send_signal(signal.SIGCONT)
        assert until_blocking(lambda: sum(decided_late(a, b)) >= 1)  # (once they run again: not at once when loaded)
    assert (sample(scrape(a), "hauntd_notice_lag_seconds_count") or 0) >= 1
    assert (sample(scrape(a), "hauntd_store_commit_seconds_count") or 0) >= 1


async def test_the_schedule_falling_behind_shows_in_the_survey(valkey_url: str) -> None:
    """The schedule of deadlines is one sorted set in the store: a scrape now reads how many of its deadlines
    passed unclaimed, and the oldest's age (every process's poll wedged, or none running), the lobby's size (not
    the abandoned tables its indexes still hold: nobody sits, or nobody seated was seen, which it counted until a
    list swept them) and the public games in play."""
    client = aioredis.Redis.from_url(valkey_url)
    keys, metrics = Keys.named("watchdog-test"), Metrics()
    now = time.time()
    try:
        await client.zadd(keys.due, {"late": now - 30, "soon": now + 60})
        old = {"waited": now - 3600, "left": now - 3600}  # (someone sits at both; only one is still there)
        await client.zadd(keys.open, {"open": now, **old, "abandoned": now - 3600, "gone": now - 90_000})
        await client.zadd(keys.waiting, {**old, "gone": now - 90_000})
        await client.zadd(keys.present, {"waited": now - 1, "left": now - 3000, "gone": now - 1})
        await client.zadd(keys.playing, {"a": now, "b": now - 60, "c": now - 120})
        await Watchdog(Store(client, keys), metrics).survey()
        assert metrics.overdue._value.get() == 1 and metrics.scheduled._value.get() == 2
        assert 29 < metrics.overdue_age._value.get() < 40 and metrics.lobby._value.get() == 2
        assert metrics.playing._value.get() == 3
    finally:
        await client.delete(keys.due, keys.open, keys.waiting, keys.present, keys.playing)
        await client.aclose()


async def test_a_worker_silent_past_its_timeout_is_killed_and_its_clients_go_on(tmp_path: Path) -> None:
    """A worker stopped or wedged kept its clients for some 50 s: each request timed out (15 s), until their
    pings did (20 s + 20 s) and they went to another worker; its supervisor, seeing it alive, did nothing."""
    args = ["--workers", "2", "--log-format", "json", "--data-dir", str(tmp_path / "data"), "--worker-timeout", "2"]
    supervisor = ServerProcess(args, tmp_path / "server.log")
    supervisor.start()
    client = Client(supervisor.url)
    try:
        await client.connect()
        assert client.welcome is not None
        was = client.welcome.server
        index = next(line["worker"] for line in events(supervisor, "listening") if line.get("server") == was)
        pid = int(str([line for line in events(supervisor, "worker_started") if line["worker"] == index][-1]["pid"]))
        os.kill(pid, signal.SIGSTOP)
        stopped = time.monotonic()
        while True:
            try:
                await client.list_tables()
                break
            except (TimeoutError, ConnectionError):
                assert time.monotonic() - stopped < 30
        assert time.monotonic() - stopped < 10 and client.welcome.server != was
        [hung] = events(supervisor, "worker_hung")
        assert hung["worker"] == index and hung["pid"] == pid and float(str(hung["seconds"])) >= 2
        assert until_blocking(lambda: len(events(supervisor, "worker_started")) == 3)  # started again in its place
    finally:
        await client.close()
        supervisor.kill(signal.SIGTERM)


async def test_connections_are_counted_by_kind(server: ServerProcess) -> None:
    """``hauntd_connections`` counted every open socket alike: a lobby page left open weighed as a player."""
    player, spectator, idle = Client(server.url), Client(server.url), Client(server.url)
    async with player, spectator, idle:
        table = await player.create("mansion", 2)
        await player.join(table, "Ada")
        await spectator.watch(table)
        kind = 'hauntd_connections_by_kind{kind="%s"}'
        assert until_blocking(
            lambda: [sample(scrape(server), kind % k) for k in ("player", "spectator", "other")] == [1, 1, 1]
        )
