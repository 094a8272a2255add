"""Real Redis-compatible stores and real ``hauntd serve`` processes for the server tests.

``store_url`` is the embedded Valkey (started here), and also the server named by ``HAUNTD_TEST_REDIS_URL``
when that is set (CI points it at Debian's ``redis-server``): every test using it runs against both.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from server.embedded import EmbeddedValkey

ROOT = Path(__file__).resolve().parents[2]
STORES = ["valkey"] + (["redis"] if os.environ.get("HAUNTD_TEST_REDIS_URL") else [])


@pytest.fixture(scope="session")
def valkey_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    valkey = EmbeddedValkey(tmp_path_factory.mktemp("valkey"))
    valkey.start()
    try:
        yield valkey.url
    finally:
        valkey.stop()


@pytest.fixture(scope="session", params=STORES)
def store_url(request: pytest.FixtureRequest) -> str:
    if request.param == "redis":
        return os.environ["HAUNTD_TEST_REDIS_URL"]
    url: str = request.getfixturevalue("valkey_url")
    return url


@pytest.fixture(scope="session")
def sync_redis(store_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(store_url)
    yield client
    client.close()


@dataclass
class ServerProcess:
    """One ``hauntd serve`` subprocess; its JSON log lines go to ``log_path``."""

    args: list[str]
    log_path: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    starts: int = field(default=0)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> None:
        """Start (or restart, on the same port once it has one) and wait for its ``listening`` line."""
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        args = [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port), *self.args]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(args, cwd=ROOT, stdout=log, stderr=log)
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"hauntd serve exited:\n{self.log_path.read_text()[offset:]}")
            with self.log_path.open("rb") as log:
                log.seek(offset)
                for line in log.read().splitlines():
                    with contextlib.suppress(ValueError):
                        entry = json.loads(line)
                        if entry.get("event") == "listening":
                            self.port = entry["ports"][0]
                            return
            time.sleep(0.05)
        raise RuntimeError(f"hauntd serve did not start:\n{self.log_path.read_text()[offset:]}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(15)
        self.process = None

    def log_lines(self) -> list[dict[str, object]]:
        lines = []
        for line in self.log_path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines


ServerFactory = Callable[..., ServerProcess]


@pytest.fixture
def start_server(store_url: str, tmp_path: Path) -> Iterator[ServerFactory]:
    """``start_server(*extra_args)`` → a running ``hauntd serve`` on ``store_url``; all stopped at the end."""
    started: list[ServerProcess] = []

    def start(*extra: str, redis_url: str | None = store_url) -> ServerProcess:
        args = ["--log-format", "json", *extra]
        if redis_url is not None:
            args += ["--redis-url", redis_url]
        server = ServerProcess(args, tmp_path / f"server{len(started)}.log")
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.kill(signal.SIGTERM)


@pytest.fixture
def server(start_server: ServerFactory) -> ServerProcess:
    return start_server()
