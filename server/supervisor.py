"""``hauntd serve --workers N``: one listening socket, N ``hauntd serve`` worker processes accepting on it.

The supervisor binds the port itself, so ``--port 0`` gets one real port (logged once, in the supervisor's
``listening`` line) and a port already taken fails here, before any worker starts.  Each worker inherits that
socket (``pass_fds``) and serves on it; the kernel hands each new connection to one worker waiting in
``accept``.  (Rather than ``SO_REUSEPORT``: connections waiting in the queue of a worker that dies are not lost,
the queue being the supervisor's, and a second hauntd started on the same port by mistake fails instead of
silently taking half the connections.)

A worker is ``hauntd serve`` with the supervisor's own options, ``--workers 1``, the store's URL (the
supervisor's embedded Valkey, when it started one) and the hidden ``--as-worker`` option (``server/worker.py``); it
writes to a pipe once it listens, then a heartbeat a second.  One that exits is logged (``worker_exited``) and
started again after a pause that doubles, up to 10 s, while it keeps dying young.  One whose heartbeat stops for
``--worker-timeout`` seconds (stopped, or its event loop blocked) is logged (``worker_hung``) and SIGKILLed, so
started again: its clients, which would have waited for their pings to time out (some 40 s) before going to
another worker, reconnect at once.  SIGTERM, SIGINT or SIGHUP: every worker gets SIGTERM and finishes
as a single server does; the exit status is 0 when they all end cleanly.  The workers keep their metrics in a
directory of the supervisor's (prometheus-client's multiprocess mode, ``server/metrics.py``), so any worker's
``/metrics`` counts them all; a dead worker's gauges are dropped from it (``mark_process_dead``).  The directory is
removed when the supervisor ends; one left by a supervisor that was SIGKILLed (nothing of it ran to remove it) is
removed by the next supervisor to start (its name carries its supervisor's pid: ``metrics_directory``).
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import structlog
from prometheus_client import multiprocess

from server.app import stop_signals
from server.embedded import die_with_parent, running
from server.metrics import MULTIPROCESS_DIR
from server.worker import Worker

log = structlog.get_logger("hauntd.supervisor")

FIRST_PAUSE = 0.5  # seconds before a worker that exited is started again
LONGEST_PAUSE = 10.0
YOUNG = 10.0  # a worker that dies within this many seconds of its start doubles the next pause
STOP_TIMEOUT = 30.0  # seconds a worker gets to finish after SIGTERM, then SIGKILL
TICK = 0.2
METRICS_PREFIX = "hauntd-metrics-"  # then the supervisor's pid, a dash, and tempfile's random part


def listen(host: str, port: int) -> socket.socket:
    """The socket every worker accepts on; a failure names the address, as a single server's does."""
    found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if len({entry[4] for entry in found}) > 1:  # a single server listens on each; one shared socket cannot
        named = ", ".join(str(entry[4][0]) for entry in found)
        raise OSError(f"with --workers, --host must name one address: {host!r} names {named}")
    family, kind, proto, _, address = found[0]
    sock = None
    try:
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio does: a restart need not wait
        sock.bind(address)
        sock.listen()
    except OSError as exc:
        if sock is not None:
            sock.close()
        reason = (exc.strerror or str(exc)).lower()
        raise OSError(exc.errno, f"error while attempting to bind on address {(host, port)!r}: {reason}") from None
    return sock


@dataclass
class Slot:
    """One worker's place: the process now in it, and when to start the next one."""

    index: int
    process: subprocess.Popen[bytes] | None = None
    ready_fd: int | None = None  # the read end of its pipe (it says it listens, then its heartbeat), until it exits
    listening: bool = False
    started: float = 0.0
    beat: float = 0.0  # when it last wrote to its pipe
    young_deaths: int = 0
    due: float = 0.0


class Supervisor:
    def __init__(
        self,
        command: list[str],
        workers: int,
        sock: socket.socket,
        metrics_dir: str,
        env: dict[str, str],
        timeout: float = 0.0,
    ) -> None:
        self.command = command  # a worker's command line, but for its ``--as-worker`` option
        self.timeout = timeout  # seconds a listening worker may stay silent before it is killed (0: never)
        self.sock = sock
        self.metrics_dir = metrics_dir
        self.env = {**os.environ, **env, MULTIPROCESS_DIR: metrics_dir}
        self.slots = [Slot(i) for i in range(workers)]
        self.stopping = False

    def run(self) -> int:
        """Start the workers, keep them running until SIGTERM, SIGINT or SIGHUP (``stop_signals``), stop them; the
        exit status."""
        for sig in stop_signals():
            signal.signal(sig, self._stop)
        for slot in self.slots:
            self._start(slot)
        while not self.stopping and not all(slot.listening for slot in self.slots):
            for slot, code in self._tick():
                if not slot.listening:
                    self._stop_all()
                    why = f"worker {slot.index} exited with code {code} before it listened"
                    print(f"hauntd serve: {why}", file=sys.stderr)
                    return 1
                self._start(slot)
        if not self.stopping:
            host, port = self.sock.getsockname()[:2]
            log.info("listening", host=host, ports=[port], workers=[s.process.pid for s in self.slots if s.process])
        while not self.stopping:
            self._tick()
            for slot in self.slots:
                if slot.process is None and time.monotonic() >= slot.due and not self.stopping:
                    self._start(slot)
        return 0 if self._stop_all() else 1

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def _start(self, slot: Slot) -> None:
        read_fd, write_fd = os.pipe()
        worker = Worker(slot.index, self.sock.fileno(), write_fd)
        try:
            # its own process group: a Ctrl-C on the terminal reaches the supervisor only, which stops the workers
            slot.process = subprocess.Popen(
                [*self.command, *worker.option()],
                env=self.env,
                pass_fds=(worker.listen_fd, write_fd),
                process_group=0,
                preexec_fn=die_with_parent,
            )
        finally:
            os.close(write_fd)
        slot.ready_fd, slot.listening, slot.started = read_fd, False, time.monotonic()
        slot.beat = slot.started
        log.info("worker_started", worker=slot.index, pid=slot.process.pid)

    def _tick(self) -> list[tuple[Slot, int]]:
        """Wait a moment for workers saying they listen, and their heartbeats; kill those silent too long; the
        workers that exited since, with their codes."""
        waiting = {slot.ready_fd: slot for slot in self.slots if slot.ready_fd is not None}
        now = time.monotonic()
        for fd in select.select(list(waiting), [], [], TICK)[0]:
            slot = waiting[fd]
            said = os.read(fd, 512)
            if not said:  # it exited
                self._close_pipe(slot)
                continue
            slot.beat = now
            slot.listening = slot.listening or b"1" in said
        for slot in self.slots:
            if self.timeout and slot.process is not None and slot.listening and now - slot.beat > self.timeout:
                log.warning("worker_hung", worker=slot.index, pid=slot.process.pid, seconds=round(now - slot.beat, 1))
                slot.process.kill()  # (a stopped process too): buried at its exit, below or at the next tick
                slot.beat = now
        exited = []
        for slot in self.slots:
            code = slot.process.poll() if slot.process is not None else None
            if code is not None:
                exited.append((slot, code))
                self._bury(slot, code)
        return exited

    def _bury(self, slot: Slot, code: int) -> None:
        assert slot.process is not None
        pid, slot.process = slot.process.pid, None
        self._close_pipe(slot)
        # (its files are named for its place, ``metrics.name_files``: the next one in it carries on its counters)
        multiprocess.mark_process_dead(slot.index, self.metrics_dir)  # type: ignore[no-untyped-call]
        young = time.monotonic() - slot.started < YOUNG
        slot.young_deaths = slot.young_deaths + 1 if young else 1
        pause = min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** (slot.young_deaths - 1))
        slot.due = time.monotonic() + pause
        log.warning("worker_exited", worker=slot.index, pid=pid, code=code, restart_in=pause)

    def _close_pipe(self, slot: Slot) -> None:
        if slot.ready_fd is not None:
            os.close(slot.ready_fd)
            slot.ready_fd = None

    def _stop_all(self) -> bool:
        """SIGTERM every worker and wait for it; whether they all ended cleanly (having finished, or ended by that
        SIGTERM before they had anything to finish)."""
        running = [slot for slot in self.slots if slot.process is not None]
        for slot in running:
            assert slot.process is not None
            slot.process.send_signal(signal.SIGTERM)
        clean = True
        for slot in running:
            assert slot.process is not None
            try:
                code = slot.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                slot.process.kill()
                code = slot.process.wait()
            if code not in (0, -signal.SIGTERM):  # (a worker still starting has no handler yet: the signal ends it)
                log.warning("worker_exited", worker=slot.index, pid=slot.process.pid, code=code)
                clean = False
            slot.process = None
            self._close_pipe(slot)
        return clean


def orphans(root: Path) -> list[Path]:
    """The metrics directories in ``root`` that are this user's and whose supervisor is no longer running."""
    found = []
    for path in root.glob(f"{METRICS_PREFIX}*-*"):
        pid = path.name.removeprefix(METRICS_PREFIX).partition("-")[0]
        if pid.isdigit() and path.is_dir() and path.stat().st_uid == os.getuid() and not running(int(pid)):
            found.append(path)
    return found


@contextmanager
def metrics_directory() -> Iterator[str]:
    """A new directory for the workers' metrics, removed at the end, after those left by dead supervisors (a
    SIGKILL, the OOM killer: a few files each, which no one else would ever remove)."""
    root = Path(tempfile.gettempdir())
    for orphan in orphans(root):
        shutil.rmtree(orphan, ignore_errors=True)
        log.info("metrics_directory_removed", path=str(orphan))
    with tempfile.TemporaryDirectory(prefix=f"{METRICS_PREFIX}{os.getpid()}-", dir=root) as path:
        yield path


def supervise(
    command: list[str],
    workers: int,
    host: str,
    port: int,
    env: dict[str, str] | None = None,
    timeout: float = 0.0,
) -> int:
    """Run ``workers`` copies of ``command`` (with ``env`` added to their environment) on one socket bound to
    ``host``:``port``, killing one silent for ``timeout`` seconds (0: never); the exit status."""
    with listen(host, port) as sock, metrics_directory() as metrics_dir:
        return Supervisor(command, workers, sock, metrics_dir, env or {}, timeout).run()
