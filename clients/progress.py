"""The progress line of the long runs (``loadtest``, ``chaos``, ``fuzz``) on stderr, their JSON report staying
alone on stdout: rewritten in place each second on a terminal, else printed as a line of its own every
``QUIET_EVERY`` seconds, so a log file or a CI page keeps a few lines rather than one per second."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable

QUIET_EVERY = 10.0


class Progress:
    """A progress line: ``show`` one, or ``run`` to show ``describe(every)`` every ``every`` seconds until
    cancelled (a line each second on a terminal, else one each ``QUIET_EVERY``); ``end`` ends a line left open."""

    def __init__(self, *, every: float | None = None) -> None:
        self.live = sys.stderr.isatty()
        self.every = every if every is not None else 1.0 if self.live else QUIET_EVERY
        self.open = False  # a line shown on the terminal, not ended yet

    async def run(self, describe: Callable[[float], str]) -> None:
        while True:
            await asyncio.sleep(self.every)
            self.show(describe(self.every))

    def show(self, line: str) -> None:
        print(f"\r\x1b[K{line}" if self.live else line, end="" if self.live else "\n", file=sys.stderr, flush=True)
        self.open = self.live

    def end(self) -> None:
        """End the line left open, if any (so what is printed next starts a line of its own); again: nothing."""
        if self.open:
            print(file=sys.stderr, flush=True)
        self.open = False
