"""A real ``hauntd serve`` (its embedded Valkey) for the conformance tests, shared by a module's tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from server.launch import ServerProcess


@pytest.fixture(scope="module")
def hauntd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("hauntd")
    server = ServerProcess(["--log-format", "json", "--data-dir", str(tmp / "data")], tmp / "server.log")
    server.start()
    yield server
    server.kill(signal.SIGTERM)
