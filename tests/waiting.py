"""Waiting in a test for what happens in the background, instead of sleeping a fixed time a loaded machine can miss."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def until(check: Callable[[], T | Awaitable[T]], seconds: float) -> T:
    """``check()``'s first true result within ``seconds`` (looked at every 50 ms), else its last; ``check`` may be
    a coroutine function."""
    for _ in range(int(seconds * 20)):
        if result := await _result(check):
            return result
        await asyncio.sleep(0.05)
    return await _result(check)


async def _result(check: Callable[[], T | Awaitable[T]]) -> T:
    result = check()
    return await result if inspect.isawaitable(result) else result  # type: ignore[return-value]


def until_blocking(check: Callable[[], T], seconds: float = 10.0) -> T:
    """``until`` for a test with no event loop: it sleeps the thread (100 ms at a time)."""
    deadline = time.monotonic() + seconds
    while not (result := check()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return result
