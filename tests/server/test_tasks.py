"""Stopping the server's background tasks (``server/tasks.py``)."""

from __future__ import annotations

import asyncio

import pytest

from server.tasks import cancel


async def test_a_task_that_swallows_its_cancellation_is_cancelled_again() -> None:
    """A cancellation swallowed (landing as an ``asyncio.timeout`` fires, or inside the store's client) left the
    watchdog's loop running, and a worker stopping after a pause waited for it for ever."""
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0.02)
    await asyncio.wait_for(cancel(task), 5)
    assert task.cancelled() and swallowed == 1


async def test_tasks_ended_or_failed_and_none_are_let_go(caplog: pytest.LogCaptureFixture) -> None:
    async def fails() -> None:
        raise RuntimeError("stopping anyway")

    failed, done = asyncio.create_task(fails()), asyncio.create_task(asyncio.sleep(0))
    await asyncio.sleep(0.01)
    await cancel(failed, None, done)
    assert failed.done() and done.done()
    del failed
    assert "never retrieved" not in caplog.text
