"""The processes a load test watches (the server, its embedded Valkey, the load process itself): their memory and
the CPU time they use, read from ``/proc``."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


def _children(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def _rss_mb(pid: int) -> float:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


class Watched:
    """The server processes (hauntd, its embedded Valkey) and this one: memory and CPU time."""

    def __init__(self, server_pid: int | None) -> None:
        self.pids: dict[str, int] = {"client": os.getpid()}
        if server_pid is not None:
            self.pids["server"] = server_pid
            for child in _children(server_pid):
                self.pids["valkey"] = child
        self.peak_rss: dict[str, float] = {}
        self._cpu0: dict[str, float] = {}
        self._t0 = 0.0

    def sample(self) -> None:
        for name, pid in self.pids.items():
            if name != "client":
                self.peak_rss[name] = max(self.peak_rss.get(name, 0.0), _rss_mb(pid))

    def start(self) -> None:
        self._cpu0 = {name: _cpu_s(pid) for name, pid in self.pids.items()}
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds each process used since ``start``."""
        return {name: _cpu_s(pid) - self._cpu0[name] for name, pid in self.pids.items()}
