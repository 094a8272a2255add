"""Waiting in a test for what happens in the background, instead of sleeping a fixed time a loaded machine can miss."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(check: Callable[[], object], seconds: float) -> bool:
    """Whether ``check()`` holds within ``seconds`` (looked at every 50 ms)."""
    for _ in range(int(seconds * 20)):
        if check():
            return True
        await asyncio.sleep(0.05)
    return bool(check())
