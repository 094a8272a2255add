"""``hauntd serve --workers 2``: one port, two worker processes under a supervisor, one embedded Valkey."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
import redis

from clients.sdk import Client
from server.cli import build_parser
from server.launch import ROOT, ServerProcess
from server.store import NO_PREFIX
from tests.server.drive import stored_seq
from tests.server.players import Player, assert_gapless, close, play
from tests.server.test_cli import closed_port
from tests.server.test_errors import actions_total
from tests.server.test_http import get
from tests.waiting import until_blocking


def start_supervisor(tmp_path: Path, group: bool = False, env: dict[str, str] | None = None) -> ServerProcess:
    """``hauntd serve --workers 2 --port 0`` with its own embedded Valkey, listening once both workers do."""
    tmp_path.mkdir(exist_ok=True)
    args = ["--workers", "2", "--log-format", "json", "--data-dir", str(tmp_path / "data")]
    server = ServerProcess(args, tmp_path / "server.log", group=group, env=env)
    server.start()
    return server


@pytest.fixture
def supervisor(tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_supervisor(tmp_path)
    yield server
    server.kill(signal.SIGTERM)


def events(server: ServerProcess, name: str) -> list[dict[str, object]]:
    return [line for line in server.log_lines() if line.get("event") == name]


def wait_for(server: ServerProcess, name: str, count: int, timeout: float = 20) -> list[dict[str, object]]:
    """The log's ``name`` lines, once there are ``count`` (the supervisor looks at its workers five times a
    second, and a restarted worker takes a second or so to start)."""
    until_blocking(lambda: len(events(server, name)) >= count, timeout)
    found = events(server, name)
    assert len(found) == count, found
    return found


def store(server: ServerProcess) -> redis.Redis:
    """The supervisor's embedded Valkey."""
    data_dir = Path(str(events(server, "embedded_valkey_started")[0]["data_dir"]))
    return redis.Redis.from_url((data_dir / "valkey.url").read_text().strip())


async def spread(url: str, per_worker: int = 2, workers: int = 2, seconds: float = 30) -> list[Client]:
    """``per_worker`` connected clients on each of ``workers`` processes (told apart by the server id of their
    welcome), alternating between them; the kernel decides where each connection lands (on the worker that
    accepts first), so connect until so.  A connection too many is closed, and the next waits a moment: on a
    loaded machine a worker may not get the CPU for a while (80 connections in a row, half a second, once all
    went to the other)."""
    by_server: dict[str, list[Client]] = {}
    deadline = time.monotonic() + seconds
    for i in itertools.count():
        if len(by_server) == workers and all(len(held) == per_worker for held in by_server.values()):
            break
        assert time.monotonic() < deadline, by_server
        client = Client(url, client=f"player{i}")
        await client.connect()
        assert client.welcome is not None
        held = by_server.setdefault(client.welcome.server, [])
        if len(held) < per_worker:
            held.append(client)
        else:
            await client.close()
            await asyncio.sleep(0.05)
    return [client for pair in zip(*by_server.values(), strict=True) for client in pair]


async def seat(clients: list[Client]) -> tuple[str, list[Player]]:
    """A started mansion table created through the first client, one seat per client."""
    table = await clients[0].create("mansion", len(clients))
    players = []
    for i, client in enumerate(clients):
        held = await client.join(table, f"P{i}")
        players.append(Player(client, table, held.seat, random.Random(i)))
    await clients[0].start(table)
    return table, players


def scraped_actions(server: ServerProcess) -> tuple[float, set[str]]:
    """``hauntd_actions_total`` and the ``pid`` labels (the workers' numbers) of the ``hauntd_tables`` series in
    one ``/metrics`` scrape."""
    status, body = get(f"{server.http}/metrics")
    assert status == 200
    text = body.decode()
    return actions_total(text), set(re.findall(r'^hauntd_tables\{pid="(\d+)"\}', text, re.M))


def metrics_dir(pid: int) -> str:
    """Where the worker ``pid`` keeps its metrics (its supervisor's directory, from its environment)."""
    environ = dict(item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item)
    return environ["PROMETHEUS_MULTIPROC_DIR"]


def worker_pid(server: ServerProcess, server_id: str) -> int:
    """The pid of the worker whose welcome names ``server_id``."""
    index = next(line["worker"] for line in events(server, "listening") if line.get("server") == server_id)
    return int(str([line for line in events(server, "worker_started") if line["worker"] == index][-1]["pid"]))


def assert_finished_whole(players: list[Player], sync_redis: redis.Redis, table: str) -> None:
    final = stored_seq(sync_redis, table)
    assert all(p.result is not None and p.result == players[0].result for p in players)
    assert sync_redis.xlen(NO_PREFIX.log(table)) == final
    for p in players:
        assert_gapless(p, final)


async def test_two_workers_share_the_port_the_game_and_the_metrics(supervisor: ServerProcess) -> None:
    """Seats on both workers play one table to its end; every scrape, whichever worker answers it, counts the
    actions of both."""
    table, players = await seat(await spread(supervisor.url))
    try:
        await play(players)
    finally:
        await close(players)
    assert_finished_whole(players, store(supervisor), table)
    for _ in range(8):
        actions, labels = scraped_actions(supervisor)
        assert actions == sum(p.acted for p in players) > 0
        assert labels == {"0", "1"}
    assert len({line["worker"] for line in events(supervisor, "listening") if "worker" in line}) == 2


async def test_a_killed_worker_is_started_again_and_its_clients_resume(supervisor: ServerProcess) -> None:
    clients = await spread(supervisor.url)
    table, players = await seat(clients)
    assert clients[0].welcome is not None
    victim = worker_pid(supervisor, clients[0].welcome.server)
    shared = metrics_dir(victim)
    try:
        await play(players, stop_at=12)
        files = sorted(os.listdir(shared))
        os.kill(victim, signal.SIGKILL)
        await play(players)
    finally:
        await close(players)
    assert_finished_whole(players, store(supervisor), table)
    assert clients[0].reconnects >= 1
    exited = wait_for(supervisor, "worker_exited", 1)
    assert [(line["pid"], line["code"]) for line in exited] == [(victim, -signal.SIGKILL)]
    wait_for(supervisor, "worker_started", 3)  # two at the start, one in the killed one's place
    wait_for(supervisor, "listening", 4)  # the supervisor's line, and each worker's: the new one has its metrics
    actions, labels = scraped_actions(supervisor)
    assert actions == sum(p.acted for p in players)  # the dead worker's count too
    assert labels == {"0", "1"}
    # the new worker carries on the dead one's counters in its files: none more at each restart
    assert sorted(os.listdir(shared)) == files


def gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["sigterm", "ctrl-c", "hangup"])
def test_a_stop_ends_every_worker_then_the_valkey_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    """SIGTERM to the supervisor, or SIGINT (SIGHUP) to its process group as a Ctrl-C at (the closing of) a
    terminal sends it: the Valkey took that SIGINT too, and the workers, stopping, found the store gone; a SIGHUP
    ended the supervisor on the spot."""
    supervisor = start_supervisor(tmp_path, group=True)
    assert supervisor.process is not None
    process = supervisor.process
    workers = {int(str(line["pid"])) for line in events(supervisor, "worker_started")}
    children = {int(pid) for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()}
    assert len(workers) == 2 and workers < children and len(children) == 3  # the workers and the Valkey
    if sig == signal.SIGTERM:
        process.send_signal(sig)
    else:
        os.killpg(process.pid, sig)
    assert process.wait(30) == 0
    assert all(gone(pid) for pid in children)
    assert len(events(supervisor, "stopping")) == 2  # each worker finished as a single server does
    assert [line for line in supervisor.log_lines() if line.get("level") != "info"] == []


def test_a_stop_while_the_workers_start_is_a_clean_stop(tmp_path: Path, valkey_url: str) -> None:
    """A worker still importing has no SIGTERM handler yet, so the supervisor's SIGTERM ends it (code -15): it
    had nothing to finish, and the operator's stop is no failure (it was exit status 1 and two warnings)."""
    log_path = tmp_path / "server.log"
    command = [sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--port", "0", "--log-format", "json"]
    with log_path.open("wb") as log:
        process = subprocess.Popen([*command, "--redis-url", valkey_url], cwd=ROOT, stdout=log, stderr=log)
    try:
        server = ServerProcess([], log_path)  # (only to read the log)
        wait_for(server, "worker_started", 2)
        process.send_signal(signal.SIGTERM)  # (a worker takes a good half second to import hauntd)
        assert process.wait(30) == 0, log_path.read_text()
    finally:
        process.kill()
    assert events(server, "listening") == []  # stopped while starting, as meant
    assert [line for line in server.log_lines() if line.get("level") != "info"] == []


def test_a_killed_supervisors_metrics_directory_is_removed_by_the_next(tmp_path: Path) -> None:
    """Nothing of a SIGKILLed supervisor runs to remove its workers' metrics directory; the next supervisor to
    start removes it, and leaves alone the directory of one still running."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    running = temp / f"hauntd-metrics-{os.getpid()}-x"
    running.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    first = start_supervisor(tmp_path / "first", env=env)
    try:
        assert first.process is not None
        left = [path for path in temp.iterdir() if path.name.startswith(f"hauntd-metrics-{first.process.pid}-")]
        assert len(left) == 1 and os.listdir(left[0])  # the workers' files
    finally:
        first.kill(signal.SIGKILL)
    second = start_supervisor(tmp_path / "second", env=env)
    try:
        assert not left[0].exists()
        assert [line["path"] for line in events(second, "metrics_directory_removed")] == [str(left[0])]
        assert running.exists()
    finally:
        second.kill(signal.SIGTERM)
    assert list(temp.iterdir()) == [running]  # and the second's own went at its stop


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", "serve", "--workers", "2", "--log-format", "json", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_taken_port_fails_once_before_any_worker_starts(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = serve("--port", str(port), "--redis-url", f"redis://127.0.0.1:{closed_port()}/0")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"hauntd serve: [Errno 98] error while attempting to bind on address ('127.0.0.1', {port}): "
        "address already in use"
    ]


def test_a_host_of_several_addresses_is_refused_rather_than_half_served() -> None:
    """A single server listens on each address ``--host`` names ("" is every IPv4 and IPv6 interface); the
    workers' one shared socket could take only the first, so the supervisor says so instead."""
    named = {entry[4][0] for entry in socket.getaddrinfo(None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)}
    if len(named) < 2:
        pytest.skip("this machine's wildcard host names one address")
    done = serve("--host", "", "--port", "0", "--redis-url", f"redis://127.0.0.1:{closed_port()}/0")
    assert done.returncode == 1
    assert re.fullmatch(r"hauntd serve: with --workers, --host must name one address: '' names .+, .+\n", done.stderr)


def test_a_worker_that_cannot_start_stops_the_rest() -> None:
    done = serve("--port", "0", "--redis-url", f"redis://127.0.0.1:{closed_port()}/0", "--store-wait", "0")
    assert done.returncode == 1
    assert re.search(r"^hauntd serve: worker \d exited with code 1 before it listened$", done.stderr, re.M)
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("count", ["0", "-1", "two"])
def test_workers_must_be_a_whole_number_of_one_or_more(count: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve", "--workers", count])
    assert exit_.value.code == 2
    assert f"argument --workers: not a whole number of 1 or more: '{count}'" in capsys.readouterr().err


def test_the_store_url_is_on_no_workers_command_line(tmp_path: Path, valkey_url: str) -> None:
    """The supervisor started each worker with ``--redis-url URL``: a password given in ``REDIS_URL`` (kept out of
    the command line for that very reason) was then on every worker's, which ``ps`` shows to every user."""
    password = urlparse(valkey_url).password  # (the embedded store's own)
    assert password
    args = ["--workers", "2", "--port", "0", "--log-format", "json"]
    server = ServerProcess(args, tmp_path / "server.log", env={"REDIS_URL": valkey_url})
    server.start()
    try:
        pids = [int(str(line["pid"])) for line in events(server, "worker_started")]
        command_lines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in pids]
        assert len(command_lines) == 2 and not [line for line in command_lines if password.encode() in line]
        assert {line.get("store") for line in events(server, "listening") if "worker" in line} == {
            valkey_url.replace(password, "***")
        }
    finally:
        server.kill(signal.SIGTERM)
