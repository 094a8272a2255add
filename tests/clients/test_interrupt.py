"""Ctrl-C (SIGINT) or SIGTERM in the middle of a run of ``fuzz``, ``bench latency`` or ``chaos``: a line saying
so, the exit status of the signal, and neither the servers it started nor its store left running, at once."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import pytest

from server.launch import ROOT
from tests.clients.test_loadtest_processes import _alive, _descendants


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
    command: list[str], signum: signal.Signals, sigint: signal.Handlers
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
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),  # (pytest itself may run where it is ignored)
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            started = _descendants(run.pid)
            if any(" serve " in cmdline for cmdline in started.values()):
                break
            time.sleep(0.05)
        time.sleep(2)  # (it listens, and the run's clients are playing)
        started = _descendants(run.pid)
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
    deadline = time.monotonic() + 15
    while any(map(_alive, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [cmdline for pid, cmdline in started.items() if _alive(pid)]
