"""The load processes of ``hauntd loadtest --processes N``, and how they talk to the parent.

One process of bots tops out near one core's worth of actions (~5,000/s), so ``--processes N`` splits the
tables over N children.  Each child is ``python -m server.cli loadtest … --child FIRST``: a load test of its own
share of the tables (numbered from FIRST, so every table keeps its seed), running the very code of a
single-process run.  Subprocesses rather than ``multiprocessing``: nothing to pickle or re-import, no resource
tracker or fork server beside them, and ``ps`` shows what each one is.

The protocol is a JSON object a line on the child's stdout (its stderr is the parent's): ``{"ready": …}`` once
its seats are connected, ``{"tick": …}`` each second of the measured window (the progress line's counters),
``{"result": …}`` with its raw figures after it.  The parent writes ``go`` to every child's stdin once all are
ready — the barrier — so they all measure the same ``--duration`` window, then merges their raw samples.

A child that exits before its result (killed, the server out of reach), or has sent none ``RESULT_GRACE``
seconds after the window, ends the run: the parent says which one, ends the others and exits 1.  Children run
in a process group of their own, so a Ctrl-C at the terminal reaches the parent only (which passes it on once
they measure, ending their windows early, and ends them before), and are sent SIGTERM by the kernel when the
parent dies (``die_with_parent``), so none outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Callable
from typing import Any

from server.embedded import die_with_parent
from server.launch import ROOT

LINE_LIMIT = 1 << 30  # a result holds every latency sample: one long line
RESULT_GRACE = 60.0  # seconds a load process gets after the window to close its connections and report


class Died(Exception):
    """A load process ended before it sent what the run waited for."""


class LoadProcess:
    """One child load test and its pipes, as the parent sees it."""

    def __init__(self, argv: list[str], name: str) -> None:
        self.argv = argv
        self.name = name
        self.tick: dict[str, Any] = {}  # the latest counters it sent
        self.ticks = 0  # how many it sent
        self.ticked: Callable[[], None] = lambda: None  # called on each
        self.reported = False  # whether it sent its result
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            limit=LINE_LIMIT,
            preexec_fn=die_with_parent,
            # (ignoring SIGINT once started was too late: one still importing printed a KeyboardInterrupt traceback)
            process_group=0,
        )

    async def receive(self, kind: str, within: float | None = None) -> Any:
        """The next message of ``kind`` (``tick`` messages on the way are kept in ``tick``); ``Died`` if the
        child ends first, or sends none ``within`` seconds (a child that hangs would hang the run)."""
        try:
            async with asyncio.timeout(within):
                return await self._receive(kind)
        except TimeoutError:
            raise Died(f"{self.name} sent no {kind} within {within:.0f} s of the start (it hangs?)") from None

    async def _receive(self, kind: str) -> Any:
        assert self.process is not None and self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                status = await self.process.wait()
                how = f"was killed by {signal.Signals(-status).name}" if status < 0 else f"exited with status {status}"
                raise Died(f"{self.name} {how} before its {kind} (its errors, if any, are above)")
            message = json.loads(line)
            if "tick" in message:
                self.tick = message["tick"]
                self.ticks += 1
                self.ticked()
            if kind in message:
                self.reported = kind == "result"
                return message[kind]

    def interrupt(self) -> None:
        """End its measured window early, as a Ctrl-C would (it still sends its result)."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)

    def go(self) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(b"go\n")

    async def end(self) -> None:
        """Stop it unless it sent its result (SIGTERM, and SIGCONT should it be stopped; SIGKILL if it still runs
        5 s later), reap it and read its pipes to their end.  (Returning as soon as it had exited could leave its
        pipes open when the loop closed; the collector then closed them, too late, printing "Event loop is closed"
        after the run's last line.)"""
        if self.process is None:
            return
        if self.process.returncode is None and not self.reported:  # (one that reported exits by itself: signalling
            with contextlib.suppress(ProcessLookupError):  # it would reap it behind asyncio's back)
                self.process.send_signal(signal.SIGCONT)  # (a stopped one acts on the SIGTERM only once continued)
                # last: each signal is sent after a poll, which would reap one the SIGTERM had just ended, behind
                # asyncio's back ("Unknown child process pid …" on stderr, its status 255)
                self.process.terminate()
        try:
            await asyncio.wait_for(self.process.communicate(), 5)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.communicate()


def tell(kind: str, value: Any) -> None:
    """A child's message to its parent."""
    print(json.dumps({kind: value}), file=sys.__stdout__, flush=True)


def become_child() -> None:
    """Stdout is the parent's pipe, so anything else printed goes to stderr; the parent's SIGTERM (it ends the
    run) ends it quietly, but for its window (``clients/interrupt.py``)."""
    sys.stdout = sys.stderr
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


async def ready_then_wait_for_go() -> None:
    """Tell the parent this process's seats are connected, and return when it says ``go``."""
    tell("ready", True)
    if (await asyncio.to_thread(sys.stdin.readline)).strip() != "go":
        raise SystemExit("hauntd loadtest: the parent process went away before the start")
