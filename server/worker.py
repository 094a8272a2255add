"""A worker of ``hauntd serve --workers N`` (``server/supervisor.py``): which one it is, the listening socket it
inherited and the pipe on which it tells the supervisor it listens.  The supervisor passes them to the worker's
``hauntd serve`` command line as one hidden option, ``--as-worker INDEX,LISTEN_FD,READY_FD``.  The same pipe then
carries the worker's heartbeat, a byte a second from its event loop (``server/watchdog.py``): a worker stopped or
wedged falls silent, and the supervisor kills it (``--worker-timeout``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
from dataclasses import dataclass


@dataclass(frozen=True)
class Worker:
    index: int
    listen_fd: int
    ready_fd: int

    @classmethod
    def parse(cls, text: str) -> Worker:
        """The hidden option's value, for argparse."""
        try:
            index, listen_fd, ready_fd = (int(part) for part in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not INDEX,LISTEN_FD,READY_FD: {text!r}") from None
        return cls(index, listen_fd, ready_fd)

    def option(self) -> list[str]:
        return ["--as-worker", f"{self.index},{self.listen_fd},{self.ready_fd}"]

    def socket(self) -> socket.socket:
        """The supervisor's listening socket (the same one in every worker: the kernel hands each connection to
        one of the workers that wait on it)."""
        return socket.socket(fileno=self.listen_fd)

    def ready(self) -> None:
        """Tell the supervisor this worker listens (it may have stopped waiting: then nobody reads)."""
        self._say(b"1")

    def beat(self) -> None:
        """Tell the supervisor this worker's event loop runs."""
        self._say(b".")

    def _say(self, what: bytes) -> None:
        """Never waits: a pipe left full by a supervisor that no longer reads (it is stopping) drops the byte."""
        with contextlib.suppress(OSError):
            os.set_blocking(self.ready_fd, False)
            os.write(self.ready_fd, what)
