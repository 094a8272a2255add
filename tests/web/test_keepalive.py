"""The page keeps an idle connection open: it pings at a third of ``welcome.limits.idle_seconds``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.launch import ServerProcess


@pytest.mark.parametrize("server_args", [["--idle-timeout", "1.5"]])
async def test_an_idle_lobby_stays_connected(page: Any, server: ServerProcess) -> None:
    await page.wait_for_selector("#conn-status[data-state=online]")
    await asyncio.sleep(5)  # more than three idle limits
    assert await page.get_attribute("#conn-status", "data-state") == "online"
    assert "idle_closed" not in server.log_path.read_text()
