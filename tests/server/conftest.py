"""Real Redis-compatible stores and real ``hauntd serve`` processes for the server tests.

``store_url`` is the embedded Valkey (started here), and also the server named by ``HAUNTD_TEST_REDIS_URL``
when that is set (CI points it at Debian's ``redis-server``): every test using it runs against both.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from server.embedded import EmbeddedValkey
from server.launch import ServerProcess

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
