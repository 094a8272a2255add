"""Ctrl-C (SIGINT) or SIGTERM in the middle of a run of ``fuzz``, ``bench latency`` or ``chaos``: a line saying
so, the exit status of the signal, and neither the servers it started nor its store left running, at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from clients.sdk import Client
from server import latency
from server.latency import bench_latency
from server.launch import ROOT, ServerProcess
from tests.processes import assert_all_end, descendants


@pytest.mark.parametrize(
    ("command", "signum", "sigint"),
    [
        (["fuzz", "--seconds", "60"], signal.SIGTERM, signal.SIG_DFL),
        (["bench", "latency", "--actions", "1000000"], signal.SIGINT, signal.SIG_DFL),
        (["chaos", "--tables", "2", "--duration", "60"], signal.SIGINT, signal.SIG_DFL),
        (["bench", "latency", "--actions", "1000000"], signal.SIGTERM, signal.SIG_IGN),
    ],
    ids=["fuzz-SIGTERM", "bench-SIGINT", "chaos-SIGINT", "bench-SIGTERM-started-in-the-background"],
)
def test_a_signal_mid_run_stops_it_in_one_line_leaving_no_process(
    command: list[str], signum: signal.Signals, sigint: signal.Handlers, tmp_path: Path
) -> None:
    """SIGTERM killed ``fuzz`` at once, leaving its server running (not tied to it) and its temporary directory;
    a Ctrl-C printed a ``KeyboardInterrupt`` traceback and the servers then waited 10 s on connections nobody
    closed.  A command started in the background by a script (``hauntd bench latency &``: SIGINT ignored, as the
    shell leaves it) did not stop on SIGTERM at all, which it took for a Ctrl-C."""
    run = subprocess.Popen(
        [sys.executable, "-m", "server.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},  # (its temporary directories, to see that none is left)
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # (pytest itself may run where it is ignored)
    )
    try:
        deadline = time.monotonic() + 60
        while not _seated(started := descendants(run.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)  # (a fixed 2 s was at times still the start on a loaded machine: not mid-run)
        assert _seated(started), started
        sent = time.monotonic()
        run.send_signal(signum)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert time.monotonic() - sent < 5
    assert run.returncode == 128 + signum and out == "", err
    lines = err.splitlines()
    if command[0] == "chaos":  # (its logs are kept, and named)
        logs = lines.pop(0)
        assert logs.startswith("hauntd chaos: the logs so far are in "), err
        shutil.rmtree(logs.rsplit(" ", 1)[1])
    assert lines == [f"hauntd {command[0]}: interrupted by {signum.name}, before its report"], err
    assert any(" serve " in cmdline for cmdline in started.values()), started
    assert_all_end(started)
    assert not list(tmp_path.iterdir())


def _seated(processes: dict[int, str]) -> bool:
    """Whether a server among ``processes`` logged a seat taken: the run's clients are playing (its log is where
    its output goes)."""
    for pid, cmdline in processes.items():
        if " serve " in cmdline:
            with contextlib.suppress(OSError):  # (gone, or not yet writing)
                if b'"seat_taken"' in Path(os.readlink(f"/proc/{pid}/fd/1")).read_bytes():
                    return True
    return False


def test_a_ctrl_c_while_the_bench_server_starts_stops_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A Ctrl-C while ``bench latency`` waited for its server to listen left the server running: it went on
    starting in the temporary directory removed meanwhile, made it again and left its store's files there."""
    spawned: list[subprocess.Popen[bytes]] = []

    def interrupted(server: ServerProcess, offset: int, deadline: float) -> bool:
        assert server.process is not None
        spawned.append(server.process)
        raise KeyboardInterrupt

    monkeypatch.setattr(ServerProcess, "_listening", interrupted)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        bench_latency(None, 1, 2, 0)
    (process,) = spawned
    try:
        assert process.poll() is not None  # stopped, and waited for
    finally:
        process.kill()
        process.wait()
    assert not list(tmp_path.iterdir())


async def test_a_ctrl_c_as_the_bench_starts_a_game_cancels_its_seats_readers(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C (asyncio cancels the run) while ``bench latency`` started a game left its seats' readers running:
    each then failed on its closed client, and asyncio printed a traceback for each ("Task exception was never
    retrieved") after the interrupt's one line, on a loaded machine, where a game's start takes long enough."""
    readers: list[asyncio.Task[None]] = []

    class Seat(latency._Seat):
        def __init__(self, client: Client, table: str) -> None:
            super().__init__(client, table)
            readers.append(self.task)

    async def interrupted(client: Client, table: str) -> int:
        raise asyncio.CancelledError

    monkeypatch.setattr(latency, "_Seat", Seat)
    monkeypatch.setattr(Client, "start", interrupted)
    with pytest.raises(asyncio.CancelledError):
        await latency._play(server.url, 10, 2, 0)
    await asyncio.wait(readers, timeout=5)
    assert len(readers) == 2 and all(task.cancelled() for task in readers)
