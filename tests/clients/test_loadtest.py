"""``hauntd loadtest``: a short run against its own server prints every figure, with games completed and
neither errors nor leaks; the echo baseline measures a positive rate."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from clients import echo, loadstats, loadtest
from clients.loadtest import Clock, Plan
from clients.watched import Watched
from server.cli import main
from server.launch import ROOT, ServerProcess
from tests.processes import alive, descendants

FIELDS = {
    "tables",
    "connections",
    "games_completed",
    "actions",
    "actions_per_s",
    "latency_ms",
    "event_latency_ms",
    "errors",
    "leaks",
    "server_rss_mb",
    "echo_roundtrips_per_s",
    "ratio",
}


def test_a_short_load_test_reports_everything() -> None:
    command = [sys.executable, "-m", "server.cli", "loadtest", "--spawn", "--tables", "3", "--duration", "5"]
    command += ["--game", "mix", "--json", "--baseline", "echo", "--baseline-seconds", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=90, check=True, cwd=ROOT)
    report = json.loads(done.stdout)
    assert set(report) >= FIELDS, FIELDS - set(report)
    assert report["tables"] == 3 and report["connections"] == 12
    assert report["errors"] == {} and report["leaks"] == 0
    assert report["games_completed"] >= 1 and report["actions"] > 100
    for key in ("latency_ms", "event_latency_ms"):
        p50, p95, p99 = (report[key][q] for q in ("p50", "p95", "p99"))
        assert 0 < p50 <= p95 <= p99
    assert report["server_rss_mb"] > 10
    assert report["echo_roundtrips_per_s"] > 0
    assert report["ratio"] == round(report["actions_per_s"] / report["echo_roundtrips_per_s"], 3)


def test_fan_out_is_timed_from_the_accepted_action_to_every_other_seat() -> None:
    clock = Clock(seats=3)
    clock.sending(5, seat=1, at=10.0)
    clock.sending(5, seat=2, at=10.5)  # a second decider at the same seq: its action commits as 5, seat 1's is stale
    assert clock.received(5, seat=1, at=11.0) is None
    assert clock.received(5, seat=0, at=11.5) is None
    assert clock.received(5, seat=2, at=11.2) is None  # its own copy: not yet known to be the maker's
    assert clock.accepted(5, seat=2) == 1.0  # to seat 0, the last other seat, from seat 2's send
    assert clock.received(4, seat=0, at=12.0) is None  # nobody timed update 4 (a lobby change, say)
    clock.sending(6, seat=0, at=20.0)
    assert clock.accepted(6, seat=0) is None  # answered before the others have it
    assert clock.received(6, seat=1, at=20.25) is None
    assert clock.received(6, seat=2, at=20.5) == 0.5
    assert clock.sent == clock.seen == clock.made == {}


def test_the_echo_baseline_rate_is_over_its_timed_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """``echo_roundtrips_per_s`` is the round trips over the seconds they were counted in, not over the time it
    took to open (one after the other: a second for a thousand tables) and close every connection too."""
    real_connect, real_rate = echo.connect, loadtest.echo_rate
    counted: list[int] = []

    async def slow_connect(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.05)  # a slower handshake, as with many connections on a busy machine
        return await real_connect(*args, **kwargs)

    async def spy(*args: Any, **kwargs: Any) -> int:
        count: int = await real_rate(*args, **kwargs)
        counted.append(count)
        return count

    async def no_load(*args: Any) -> dict[str, Any]:
        return {"actions_per_s": 1000.0}

    monkeypatch.setattr(echo, "connect", slow_connect)
    monkeypatch.setattr(loadtest, "echo_rate", spy)
    monkeypatch.setattr(loadtest, "_load", no_load)
    plan = loadtest.Plan(url="", tables=20, seats=4, game="mansion", strategy="random", seed=1, game_timeout=60)
    report = loadtest.loadtest(plan, 1.0, spawn=False, baseline="echo", baseline_seconds=0.5, progress=False)
    (count,) = counted
    assert report["echo_roundtrips_per_s"] == pytest.approx(count / 0.5, rel=0.05)
    assert report["ratio"] == round(1000.0 / report["echo_roundtrips_per_s"], 3)


@pytest.mark.parametrize("command", ["loadtest", "chaos"])
def test_an_unknown_strategy_is_refused_before_anything_runs(command: str) -> None:
    """A misspelt ``--strategy`` used to be taken: every table's runner died on it unseen, and the run reported
    zero games, no error, exit status 0 (for ``hauntd chaos``: a pass, having tested nothing)."""
    args = [sys.executable, "-m", "server.cli", command, "--tables", "1", "--duration", "1", "--strategy", "gredy"]
    args += ["--spawn"] if command == "loadtest" else ["--grace", "1", "--quiet"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=90, check=False, cwd=ROOT)
    assert done.returncode == 2 and "invalid choice: 'gredy'" in done.stderr, (done.returncode, done.stdout)


async def test_a_table_whose_bots_fail_is_reported(server: ServerProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception other than the expected network and server ones (a bot's own bug, say) ended its table's
    runner, and nothing counted it: the report showed no error, only fewer games."""

    class Broken:
        def choose(self, decision: Any, rng: Any) -> Any:
            raise RuntimeError("a bug in the strategy")

    monkeypatch.setattr(loadtest, "get_strategy", lambda game, name: Broken())
    plan = loadtest.Plan(server.url, tables=1, seats=2, game="spook", strategy="random", seed=1, game_timeout=60)
    report = await loadtest._load(plan, 1.0, False, Watched(None))
    # (the bots' ``decide`` wraps it, naming the seat and the prompt, as ``StrategyFailed``)
    assert report["errors"] == {"StrategyFailed": 1} and report["games_completed"] == 0


async def test_memory_is_sampled_every_second_without_a_progress_line(server: ServerProcess) -> None:
    """``server_rss_mb`` is a peak: sampled each second of the run, not only when a progress line is printed
    (with ``--json`` off a terminal it was one sample, taken at the end)."""

    class Counting(Watched):
        samples = 0

        def sample(self) -> None:
            self.samples += 1
            super().sample()

    watched = Counting(None)
    plan = loadtest.Plan(server.url, tables=1, seats=2, game="spook", strategy="random", seed=1, game_timeout=60)
    await loadtest._load(plan, 2.5, False, watched)
    assert watched.samples >= 3  # two during the run, one at its end


def test_percentiles_interpolate_between_the_nearest_samples() -> None:
    """p50 of 1…100 ms is 50.5 ms (it was the 51st sample: one rank high), p99 is 99.01 ms; none of nothing."""
    assert loadstats.percentiles([ms / 1000 for ms in range(1, 101)]) == {"p50": 50.5, "p95": 95.05, "p99": 99.01}
    assert loadstats.percentiles([0.001, 0.003]) == {"p50": 2.0, "p95": 2.9, "p99": 2.98}
    assert loadstats.percentiles([]) == {"p50": 0.0, "p95": 0.0, "p99": 0.0}


def test_a_server_that_dies_mid_run_is_an_error_not_a_slow_run(start_server: Any) -> None:
    """Killed under the load, the server leaves every seat reconnecting in vain: the report counts them as
    ``connection_down`` errors and the progress line says so (it used to read as a clean, idle run)."""
    server = start_server("--rate", "1e6", "--burst", "1000000")
    command = [sys.executable, "-m", "server.cli", "loadtest", "--url", server.url, "--tables", "2", "--duration"]
    command += ["6", "--game", "spook", "--progress", "--json"]
    load = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert load.stderr is not None
    first = load.stderr.readline()  # the first progress line: the window has begun, every seat playing
    assert "conns 8" in first and "down" not in first, first
    assert server.process is not None
    server.process.kill()
    out, err = load.communicate(timeout=60)
    report = json.loads(out)
    assert report["errors"].get("connection_down") == 8, report["errors"]
    assert "down 8" in err, err


def _load(url: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``hauntd loadtest`` against ``url`` for 2 tables, and how long it took."""
    command = [sys.executable, "-m", "server.cli", "loadtest", "--url", url, "--tables", "2", "--duration", "1"]
    started = time.monotonic()
    done = subprocess.run([*command, *extra], capture_output=True, text=True, timeout=60, cwd=ROOT)
    return done, time.monotonic() - started


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_server_that_stops_answering_while_seats_connect_fails_the_run(start_server: Any, processes: str) -> None:
    """A stopped server (SIGSTOP: the kernel still accepts, nothing answers) left the connect phase without a
    limit of its own; now ``--connect-timeout`` ends it with a line saying how far it got, and exit status 1."""
    server = start_server()
    assert server.process is not None
    server.process.send_signal(signal.SIGSTOP)
    try:
        done, took = _load(server.url, "--connect-timeout", "1.5", "--processes", processes)
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    share = 8 // int(processes)
    says = f"hauntd loadtest: 0 of {share} connections to {server.url} open, then: not all open after 1.5 s"
    assert done.stderr.splitlines()[0].startswith(says), done.stderr
    assert took < 8, took  # (not the 10 s a connection's own handshake gets)


async def test_a_server_that_stops_after_the_handshake_fails_the_run_at_the_connect_timeout() -> None:
    """Stopped between the handshake and the welcome, the server answers no close either: the cancelled connects
    each waited 10 s for one (websockets' close timeout) before the run could say it failed."""

    async def deaf(ws: ServerConnection) -> None:
        ws.transport.pause_reading()  # the hello, and then the close, never read
        await ws.wait_closed()

    async with serve(deaf, "127.0.0.1", 0, close_timeout=0.1) as mute:
        url = f"ws://127.0.0.1:{mute.sockets[0].getsockname()[1]}"
        done, took = await asyncio.to_thread(_load, url, "--connect-timeout", "1")
    assert done.returncode == 1, done.stderr
    says = f"hauntd loadtest: 0 of 8 connections to {url} open, then: not all open after 1 s (--connect-timeout)"
    assert done.stderr == says + "\n"
    assert took < 5, took


def test_a_leak_fails_the_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A run whose bots saw another seat's hidden values exited 0 like a clean one: a script gating a deploy on
    it passed a server that leaks."""
    leaked = {"leaks": 2, "leak_examples": ["seat 1 of T: a Haunt value"], "errors": {}, "duration_s": 1.0}
    monkeypatch.setattr(loadtest, "loadtest", lambda *args, **kwargs: leaked)
    assert main(["loadtest", "--url", "ws://127.0.0.1:1", "--duration", "1"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == leaked
    assert err == "hauntd loadtest: 2 leaks of hidden information (leak_examples)\n"


def test_errors_fail_the_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A run whose seats met errors (a server stalled or dead mid-run, a rate limit meant for people) exited 0
    like a clean one: its figures are not those of a server playing cleanly, and a script gating on it passed."""
    failed = {"leaks": 0, "errors": {"stalled": 2, "rate_limited": 7}, "duration_s": 1.0}
    monkeypatch.setattr(loadtest, "loadtest", lambda *args, **kwargs: failed)
    assert main(["loadtest", "--url", "ws://127.0.0.1:1", "--duration", "1"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == failed
    assert err == "hauntd loadtest: errors: 7 rate_limited, 2 stalled\n"


async def test_the_progress_line_counts_the_connections_while_the_seats_connect(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Thousands of seats take seconds to connect, and the line said nothing until the window began: a run that
    looked hung, or a server slow to welcome, showed the same blank."""

    async def deaf(ws: ServerConnection) -> None:
        ws.transport.pause_reading()  # the hello never read: no seat ever connects
        await ws.wait_closed()

    async with serve(deaf, "127.0.0.1", 0, close_timeout=0.1) as mute:
        url = f"ws://127.0.0.1:{mute.sockets[0].getsockname()[1]}"
        plan = Plan(url, tables=2, seats=2, game="spook", strategy="random", seed=1, game_timeout=60)
        plan.connect_timeout = 2.5
        with pytest.raises(loadtest.ConnectFailed, match="0 of 4 connections"):
            await loadtest._load(plan, 5, True, Watched(None))
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["    1s   connecting: 0 of 4 connections open", "    2s   connecting: 0 of 4 connections open"]


@pytest.mark.parametrize(("game_timeout", "duration"), [("1", "4"), ("60", "8")])
def test_a_spawned_server_stopped_mid_run_is_reported_stalled_and_ended(game_timeout: str, duration: str) -> None:
    """SIGSTOP on the server of ``--spawn`` mid-run: the run waited 10 s per seat of a table to close its
    connections one after another, then ended in a ``TimeoutExpired`` traceback, no report, and the server left
    stopped (SIGTERM waits on a stopped process).  With the watchdog's ``--game-timeout`` (60 s by default) longer
    than the stall, the run reported no error at all and ended 0: the tables silent at the end count now."""
    command = [sys.executable, "-m", "server.cli", "loadtest", "--spawn", "--tables", "2", "--duration", duration]
    command += ["--game-timeout", game_timeout, "--progress"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert run.stderr is not None
        run.stderr.readline()  # the first progress line: the window has begun
        server = next(pid for pid, cmdline in descendants(run.pid).items() if " serve " in cmdline)
        os.kill(server, signal.SIGSTOP)
        out, err = run.communicate(timeout=40)
    finally:
        run.kill()
    assert run.returncode == 1 and "Traceback" not in err, err
    assert json.loads(out)["errors"] == {"stalled": 2}
    assert err.endswith("hauntd loadtest: errors: 2 stalled\n"), err
    assert not alive(server)
