"""Ending the server's background tasks (the fan-out's listener, the schedule, the guard's sweep, the watchdog) when
it stops."""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel ``tasks`` and wait until each has ended, cancelling again any that runs on.  A cancellation can be
    swallowed (one landing as an ``asyncio.timeout`` expires, or inside the store's client), and the task's loop
    then went on for ever while the stop waited for it: a worker stopped after a pause never exited.  What a task
    raised is let go: it is stopping."""
    pending = {task for task in tasks if task is not None}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.1)
    for ended in tasks:
        if ended is not None and not ended.cancelled():
            ended.exception()  # (retrieved: no "exception was never retrieved" at exit)
