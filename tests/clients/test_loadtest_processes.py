"""``hauntd loadtest --processes N``: the tables split over N load processes measuring one window, one report of
their merged figures; a load process that dies or cannot connect fails the run at once, leaving no process."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from clients import loadstats, loadtest
from clients.loadprocs import LoadProcess
from clients.loadstats import Stats, Window
from clients.loadtest import Plan
from clients.watched import Watched
from server.cli import build_parser, main
from server.launch import ROOT, ServerProcess
from tests.processes import assert_all_end, descendants
from tests.server.test_cli import closed_port

# the keys of a one-process --spawn report without --baseline (as before --processes)
ONE_PROCESS_KEYS = {
    "tables", "seats", "connections", "game", "strategy", "duration_s", "connect_s", "games_completed", "actions",
    "actions_per_s", "messages_per_action", "latency_ms", "event_latency_ms", "errors", "reconnects", "rejections",
    "leaks", "leak_examples", "cpu_percent", "cpu_ms_per_action", "server_rss_mb", "server_rss_parts_mb",
}  # fmt: skip


def test_two_processes_report_the_sums_of_what_each_counted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    counted: list[Stats] = []
    real_add = Stats.add

    def spy(self: Stats, other: Stats) -> None:
        counted.append(other)
        real_add(self, other)

    monkeypatch.setattr(Stats, "add", spy)
    load = functools.partial(loadtest.loadtest, spawn=True, baseline=None, baseline_seconds=1.0, progress=True)
    plan = Plan("", tables=4, seats=4, game="spook", strategy="random", seed=1, game_timeout=60)
    report = load(plan, 3.0, processes=2)
    assert report["processes"] == 2 and report["tables"] == 4
    assert len(counted) == 2 and all(part.actions > 0 for part in counted)  # both loaded the server
    assert report["connections"] == 16
    assert report["actions"] == sum(part.actions for part in counted)
    assert report["games_completed"] == sum(part.games for part in counted) > 0
    assert report["errors"] == {} and report["leaks"] == 0
    assert report["latency_ms"] == loadstats.percentiles(counted[0].latency + counted[1].latency)
    assert report["cpu_ms_per_action"]["client"] > 0 and report["cpu_ms_per_action"]["server"] > 0
    assert report["server_rss_mb"] > 10
    assert "conns 16 " in capsys.readouterr().err  # the progress line shows both processes' totals
    # a load process that had sent its result was signalled as it exited, reaped behind asyncio's back:
    # "Unknown child process pid …, will report returncode 255"
    assert not [record.getMessage() for record in caplog.records if record.name == "asyncio"]

    one = load(dataclasses.replace(plan, tables=1), 1.0)
    assert set(one) == ONE_PROCESS_KEYS and set(report) == ONE_PROCESS_KEYS | {"processes"}


def test_percentiles_are_of_every_process_samples_pooled() -> None:
    """Not an average of each process's percentiles: p99 of 1 ms ×100 and of 2 ms ×98 + 50 ms ×2 is neither's
    p99 (1 ms, 50 ms) nor their mean (25.5 ms), but 2.48 ms; and the figures survive the pipe (JSON)."""
    steady = Window(Stats(actions=100, latency=[0.001] * 100, errors=Counter(stale=1)), 3.01, 0.5, 8, {"client": 1.0})
    slow = Stats(actions=100, latency=[0.002] * 98 + [0.050] * 2, errors=Counter(stale=2, internal=1))
    slow.leaks, slow.leak_examples = 12, [f"leak {i}" for i in range(12)]
    spiky = Window(slow, 3.02, 0.7, 8, {"client": 2.0})
    assert loadstats.percentiles(steady.stats.latency)["p99"] == 1.0
    assert loadstats.percentiles(spiky.stats.latency)["p99"] == 50.0
    parts = [Window.from_json(json.loads(json.dumps(part.to_json()))) for part in (steady, spiky)]
    merged = loadstats.merge(parts, {"client": 0.5, "server": 4.0})
    plan = Plan("", tables=4, seats=4, game="spook", strategy="random", seed=1, game_timeout=60)
    report = loadstats.report(plan, merged)
    assert report["latency_ms"]["p99"] == 2.48
    assert report["actions"] == 200 and report["connections"] == 16 and report["duration_s"] == 3.02
    assert report["errors"] == {"stale": 3, "internal": 1} and report["leaks"] == 12
    assert len(report["leak_examples"]) == loadstats.LEAK_EXAMPLES
    assert merged.cpu == {"client": 3.5, "server": 4.0}  # the parent's and both processes'


def test_tables_keep_their_numbers_in_the_process_that_plays_them() -> None:
    """Each table's seed and name come from its number: 5 tables over 2 processes are tables 0–2 and 3–4, and a
    load process's command line gives it back its share exactly."""
    plan = Plan("ws://x", tables=5, seats=3, game="mix", strategy="greedy", seed=7, game_timeout=12.5)
    shares = loadtest._shares(plan, 2)
    assert [(share.first, share.tables) for share in shares] == [(0, 3), (3, 2)]
    for share in shares:
        argv = loadtest._child_argv(share, 2.5)
        assert argv[:4] == [sys.executable, "-m", "server.cli", "loadtest"]
        args = build_parser().parse_args(argv[3:])
        assert dataclasses.replace(loadtest.plan_from_args(args, args.url), first=args.child) == share
        assert args.duration == 2.5


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--processes", "0"], "not a whole number of 1 or more: '0'"),
        (["--tables", "2", "--processes", "3"], "more than --tables 2"),
    ],
)
def test_processes_beyond_one_per_table_or_below_one_are_a_usage_error(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["loadtest", "--url", f"ws://127.0.0.1:{closed_port()}", "--duration", "1", *argv])
    assert exit_.value.code == 2 and says in capsys.readouterr().err


def test_a_load_process_that_cannot_connect_fails_the_run() -> None:
    command = [sys.executable, "-m", "server.cli", "loadtest", "--url", f"ws://127.0.0.1:{closed_port()}"]
    command += ["--tables", "2", "--processes", "2", "--duration", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("hauntd loadtest: load process ") and "before its ready" in last, done.stderr


def test_a_load_process_killed_mid_run_fails_the_run_and_leaves_no_process() -> None:
    command = [sys.executable, "-m", "server.cli", "loadtest", "--spawn", "--tables", "4", "--processes", "2"]
    command += ["--game", "spook", "--duration", "60", "--progress", "--json"]
    parent = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    guard = threading.Timer(90, parent.kill)  # (a hung run fails the test rather than hanging it)
    guard.start()
    try:
        assert parent.stderr is not None
        line = parent.stderr.readline()  # the first progress line: both load processes are playing
        assert "conns 16 " in line, line + parent.stderr.read()
        processes = descendants(parent.pid)
        assert len(processes) == 4, processes  # two load processes, the server and its Valkey
        os.kill(next(pid for pid, cmdline in processes.items() if cmdline.endswith("--child 2 ")), signal.SIGKILL)
        _, err = parent.communicate(timeout=60)
    finally:
        guard.cancel()
        parent.kill()
    assert parent.returncode == 1
    assert err.splitlines()[-1].startswith("hauntd loadtest: load process 2 of 2 (tables 2–3) was killed by SIGKILL")
    assert_all_end(processes)


def test_a_ctrl_c_while_the_load_processes_start_says_so_in_one_line_and_leaves_no_process(
    server: ServerProcess,
) -> None:
    """Ctrl-C at a terminal (SIGINT to the foreground process group) while the load processes still import:
    it reaches the parent only, which ends them and says nothing was measured (it printed a KeyboardInterrupt
    traceback; each load process did too, when the parent, stopped a moment here, could not end them first)."""
    command = [sys.executable, "-m", "server.cli", "loadtest", "--url", server.url, "--tables", "2"]
    command += ["--processes", "2", "--duration", "1"]
    parent = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # (the terminal's process group)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # (pytest may run where it is ignored)
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            processes = descendants(parent.pid)
            if len(processes) == 2 and all("--child" in cmdline for cmdline in processes.values()):
                break  # both run Python (not only forked), which then imports hauntd for a good half second
            time.sleep(0.01)
        assert len(processes) == 2, processes
        time.sleep(0.1)  # (Python's own SIGINT handler is in place after some 20 ms)
        parent.send_signal(signal.SIGSTOP)
        os.killpg(parent.pid, signal.SIGINT)
        time.sleep(1)  # (a load process that took it has printed its traceback by now)
        parent.send_signal(signal.SIGCONT)
        _, err = parent.communicate(timeout=30)
    finally:
        parent.kill()
    assert parent.returncode == 130, err
    assert err == "hauntd loadtest: interrupted by SIGINT before the measured window: nothing measured\n", err
    assert_all_end(processes)


@pytest.mark.parametrize(("signum", "processes"), [(signal.SIGINT, "1"), (signal.SIGTERM, "2")])
def test_a_signal_mid_run_ends_it_with_a_report_of_what_was_measured_and_no_process(
    signum: signal.Signals, processes: str
) -> None:
    """Ctrl-C (or SIGTERM) in the window ended the run in a ``KeyboardInterrupt`` traceback (or silently) and no
    figures; now the window ends there, its report says so, and the server and load processes are gone."""
    command = [sys.executable, "-m", "server.cli", "loadtest", "--spawn", "--tables", "2", "--processes", processes]
    command += ["--game", "spook", "--duration", "60", "--progress", "--baseline", "echo"]
    parent = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert parent.stderr is not None
        parent.stderr.readline()  # the first progress line: a second of the window has passed
        processes_started = descendants(parent.pid)
        time.sleep(1)
        started = time.monotonic()
        parent.send_signal(signum)
        out, err = parent.communicate(timeout=30)
    finally:
        parent.kill()
    assert time.monotonic() - started < 10
    assert parent.returncode == 128 + signum, err
    report = json.loads(out)
    assert report["interrupted"] == signum.name and "echo_roundtrips_per_s" not in report  # (no baseline after)
    assert 1.5 < report["duration_s"] < 10 and report["errors"] == {} and report["connections"] == 8
    assert report["actions"] > 0
    assert report["actions_per_s"] * report["duration_s"] == pytest.approx(report["actions"], rel=0.01)
    says = f"hauntd loadtest: interrupted by {signum.name}: the report covers the {report['duration_s']:g} s measured"
    assert err.splitlines()[-1] == f"{says} of 60", err
    assert_all_end(processes_started)


TICKED_ONCE = (
    "import sys, time; print('{\"ready\": true}', flush=True); sys.stdin.readline(); "
    'print(\'{"tick": {"actions": 1, "connections": 2}}\', flush=True); time.sleep(2)'
)  # (the sleep: the other one's tick comes in too, and with it the line, before this one exits)


async def test_a_load_process_that_dies_mid_run_leaves_no_progress_line_open_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its error came right after the progress line, on the same line: "… leaks 0hauntd loadtest: load process 2
    of 2 (tables 5–9) was killed by SIGKILL …"."""
    monkeypatch.setattr(loadtest, "_child_argv", lambda share, duration: [sys.executable, "-c", TICKED_ONCE])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    plan = Plan("", tables=2, seats=2, game="spook", strategy="random", seed=1, game_timeout=60)
    with pytest.raises(loadtest.Died, match="exited with status 0 before its result"):
        await asyncio.wait_for(loadtest._spread(plan, 30, 2, False, Watched(None)), 20)
    err = capsys.readouterr().err
    assert "conns 4 " in err and err.endswith("\n"), err


STOPPED_CHILD = "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)"
HUNG_CHILD = "import sys, time; print('{\"ready\": true}', flush=True); sys.stdin.readline(); time.sleep(600)"


async def test_a_load_process_that_hangs_fails_the_run_after_the_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """One that is ready, takes the go, then sends nothing (stopped, deadlocked) hung the parent for good."""
    monkeypatch.setattr(loadtest, "_child_argv", lambda share, duration: [sys.executable, "-c", HUNG_CHILD])
    monkeypatch.setattr(loadtest, "RESULT_GRACE", 0.5)
    plan = Plan("", tables=2, seats=2, game="spook", strategy="random", seed=1, game_timeout=60)
    says = r"^load process [12] of 2 \(tables .+\) sent no result within 1 s of the start"  # (0.5 s window + 0.5 s)
    with pytest.raises(loadtest.Died, match=says):
        await asyncio.wait_for(loadtest._spread(plan, 0.5, 2, False, Watched(None)), 30)
    assert not [cmdline for cmdline in descendants(os.getpid()).values() if "time.sleep(600)" in cmdline]


async def test_a_load_process_stopped_while_it_connects_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """One that never says it is ready (SIGSTOP while it connects) held the barrier for good: now it has its
    ``--connect-timeout`` and a grace to start in."""
    monkeypatch.setattr(loadtest, "_child_argv", lambda share, duration: [sys.executable, "-c", STOPPED_CHILD])
    monkeypatch.setattr(loadtest, "START_GRACE", 0.5)
    plan = Plan("", tables=2, seats=2, game="spook", strategy="random", seed=1, game_timeout=60, connect_timeout=1)
    says = r"^load process [12] of 2 \(tables .+\) sent no ready within 2 s of the start \(it hangs\?\)$"
    with pytest.raises(loadtest.Died, match=says):  # (and at once: a stopped process acts on no SIGTERM)
        await asyncio.wait_for(loadtest._spread(plan, 0.5, 2, False, Watched(None)), 4)
    assert not [cmdline for cmdline in descendants(os.getpid()).values() if STOPPED_CHILD in cmdline]


async def test_a_load_process_is_ended_with_its_pipes_read_to_their_end() -> None:
    """A load process that has exited is not done with until its pipes are: ``end`` returned at once, leaving them
    open when the loop closed, and the collector closed them later with "Event loop is closed" on stderr."""
    child = LoadProcess(["sh", "-c", "sleep 1 & exit 1"], "a load process")  # (the sleep holds its stdout a moment)
    await child.start()
    assert child.process is not None and child.process.stdout is not None
    while child.process.returncode is None:
        await asyncio.sleep(0.01)
    await child.end()
    assert child.process.stdout.at_eof()
