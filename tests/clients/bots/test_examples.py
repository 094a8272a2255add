"""The example bot the README gives bot authors plays whole games, as ``hauntd bot`` and in ``hauntd bench bots``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from clients.bots.runner import run_bot
from clients.sdk import Client
from server.bench import bench_bots
from server.launch import ROOT
from tests.server.conftest import ServerProcess

HOMEBODY = "clients.bots.examples.homebody:Homebody"


async def test_homebody_plays_a_whole_game_against_server_run_bots(server: ServerProcess) -> None:
    async with Client(server.url) as owner:
        table = await owner.create("ghost-at-home", 3, bots=2, bot_strategy="random")
    summary = await asyncio.wait_for(
        run_bot(server.url, table, seat=None, name="homebody", strategy_name=HOMEBODY, game="ghost-at-home", seed=1),
        60,
    )
    assert summary["seat"] == 2 and summary["strategy"] == HOMEBODY
    assert summary["rejected"] == {} and summary["actions"] > 3 and len(summary["scores"]) == 3


def test_homebody_beats_random_bots() -> None:
    figures = bench_bots("ghost-at-home", 4, 40, HOMEBODY, 1)
    assert float(str(figures[f"{HOMEBODY}_win_rate"])) > 0.5  # random expectation: 0.25


async def test_the_readme_s_bot_command_plays_the_example(server: ServerProcess) -> None:
    """``hauntd bot --strategy clients.bots.examples.homebody:Homebody``, as the README gives it, was refused
    (``bad_field`` at ``$.name``): its default name, the whole ``module:Class`` and "-bot", is over 32 characters."""
    async with Client(server.url) as owner:
        table = await owner.create("ghost-at-home", 2, bots=1, bot_strategy="random")
        command = [sys.executable, "-m", "server.cli", "bot", "--url", server.url, "--table", table]
        process = await asyncio.create_subprocess_exec(
            *command, "--strategy", HOMEBODY, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        assert json.loads(out)["strategy"] == HOMEBODY
        snapshot = await owner.watch(table)
    assert snapshot.seats is not None and snapshot.seats[1].name == "Homebody-bot"
