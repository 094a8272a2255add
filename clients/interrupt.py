"""Ctrl-C (SIGINT) and SIGTERM during ``hauntd loadtest``: the measured window ends early and its report says so;
before the window began, the run ends saying that nothing was measured.  Either way the connections are closed
and what the run started is stopped, as at a normal end.  (A Ctrl-C used to end the run in a ``KeyboardInterrupt``
traceback, no figures, and the spawned server waiting 10 s on connections nobody closed.)"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable
from typing import Any, TypeVar

SIGNALS = (signal.SIGINT, signal.SIGTERM)
T = TypeVar("T")


class Interrupted(Exception):
    """A signal came before the measured window began: nothing was measured."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name} before the measured window: nothing measured")
        self.signum = signum


class Stop:
    """While entered (in a running loop), SIGINT and SIGTERM set ``event`` instead of ending the process;
    ``signum`` is the first that came.  On leaving, the handlers from before are back."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.signum: int | None = None
        self._before: dict[int, Any] = {}

    def __enter__(self) -> Stop:
        loop = asyncio.get_running_loop()
        for signum in SIGNALS:
            self._before[signum] = signal.getsignal(signum)
            loop.add_signal_handler(signum, self._got, signum)
        return self

    def __exit__(self, *exc: object) -> None:
        loop = asyncio.get_running_loop()
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
            signal.signal(signum, self._before[signum])

    def _got(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self.event.set()

    async def unless(self, step: Awaitable[T]) -> T:
        """``step``'s result, unless a signal comes first: then ``step`` is cancelled and ``Interrupted`` raised."""
        task = asyncio.ensure_future(step)
        waiter = asyncio.ensure_future(self.event.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self.signum is not None and (task.cancelled() or task.exception() is None):
            raise Interrupted(self.signum)
        return task.result()

    async def sleep(self, seconds: float) -> None:
        """``seconds``, or less should a signal come."""
        try:
            async with asyncio.timeout(seconds):
                await self.event.wait()
        except TimeoutError:
            pass
