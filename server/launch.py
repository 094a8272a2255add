"""Start ``hauntd serve`` as a subprocess and wait until it listens: used by the tests, the benchmarks and the
load, fuzz and chaos runs that start their own servers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from server.embedded import die_with_parent

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ServerProcess:
    """One ``hauntd serve`` subprocess; its JSON log lines go to ``log_path``."""

    args: list[str]
    log_path: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    tied: bool = False  # SIGTERM it when the thread that starts it ends (see ``die_with_parent``)
    cwd: Path = ROOT  # (the checkout: ``-m server.cli`` runs this checkout's server unless ``env`` says otherwise)
    env: dict[str, str] | None = None
    group: bool = False  # in a process group of its own, as a command started at a terminal (to Ctrl-C it)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> None:
        """Start (or restart, on the same port once it has one) and wait for its ``listening`` line."""
        offset, deadline = self._spawn(), time.monotonic() + timeout
        while not self._listening(offset, deadline):
            time.sleep(0.05)

    async def start_async(self, timeout: float = 20.0) -> None:
        """``start`` without blocking the event loop (clients of this process keep running meanwhile)."""
        offset, deadline = self._spawn(), time.monotonic() + timeout
        while not self._listening(offset, deadline):
            await asyncio.sleep(0.05)

    def _spawn(self) -> int:
        """Start the process; returns where its lines begin in the log."""
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        args = [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port), *self.args]
        with self.log_path.open("ab") as log:
            tie = die_with_parent if self.tied else None
            self.process = subprocess.Popen(
                args,
                cwd=self.cwd,
                env=self.env,
                stdout=log,
                stderr=log,
                preexec_fn=tie,
                process_group=0 if self.group else None,
            )
        return offset

    def _listening(self, offset: int, deadline: float) -> bool:
        """Whether the ``listening`` line is in the log yet; raises once the process exited or time is up."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"hauntd serve exited:\n{self._log_from(offset)}")
        with self.log_path.open("rb") as log:
            log.seek(offset)
            for line in log.read().splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    # (with ``--workers N``, the supervisor's line once all listen, not a worker's: no ``worker``)
                    if entry.get("event") == "listening" and "worker" not in entry:
                        self.port = entry["ports"][0]
                        return True
        if time.monotonic() > deadline:
            self.kill()
            raise RuntimeError(f"hauntd serve did not start:\n{self._log_from(offset)}")
        return False

    def _log_from(self, offset: int) -> str:
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (and SIGCONT: a stopped server acts on nothing else) and reap it; SIGKILL if it has not
        exited 15 s later (it raised ``TimeoutExpired``, leaving it running)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.send_signal(signal.SIGCONT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def log_lines(self) -> list[dict[str, object]]:
        lines = []
        for line in self.log_path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines
