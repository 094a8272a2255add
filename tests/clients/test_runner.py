"""``hauntd bot``: bots join a table over the SDK as ordinary players and play it to the end, one of them as the
command a person would run."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from clients.bots.runner import run_bot
from clients.sdk import Client
from server.launch import ROOT
from tests.server.conftest import ServerProcess

HAUNTD = [sys.executable, "-m", "server.cli"]


PLAYS = [("mansion", "greedy"), ("ghost-at-home", "greedy"), ("spook", "greedy")]


@pytest.mark.parametrize(("game", "strategy"), PLAYS)
async def test_bots_play_a_whole_game(server: ServerProcess, game: str, strategy: str) -> None:
    async with Client(server.url) as owner:
        table = await owner.create(game, 3)
        summaries = await asyncio.wait_for(
            asyncio.gather(
                *(
                    run_bot(server.url, table, seat=i, name=f"bot{i}", strategy_name=strategy, game="auto", seed=i)
                    for i in range(3)
                )
            ),
            60,
        )
    assert [s["seat"] for s in summaries] == [0, 1, 2]
    for s in summaries:
        assert s["game"] == game and s["table"] == table
        assert len(s["scores"]) == 3 and s["scores"] == summaries[0]["scores"]  # everyone saw the same end
    assert sum(s["actions"] for s in summaries) > 10


async def test_the_bot_command_plays_until_the_end(server: ServerProcess) -> None:
    async with Client(server.url) as owner:
        table = await owner.create("ghost-at-home", 2)
    command = [*HAUNTD, "bot", "--url", server.url, "--table", table, "--strategy", "greedy", "--seed", "3"]
    process = await asyncio.create_subprocess_exec(*command, stdout=subprocess.PIPE, cwd=ROOT)
    mine = await run_bot(server.url, table, seat=None, name="me", strategy_name="random", game="ghost-at-home", seed=1)
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    theirs = json.loads(out)
    assert {theirs["seat"], mine["seat"]} == {0, 1}
    assert theirs["strategy"] == "greedy" and theirs["scores"] == mine["scores"]


async def test_the_bot_command_refuses_another_game(server: ServerProcess) -> None:
    async with Client(server.url) as owner:
        table = await owner.create("spook", 2)
        command = [*HAUNTD, "bot", "--url", server.url, "--table", table, "--game", "mansion"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, cwd=ROOT)
        assert done.returncode == 1 and "plays spook, not mansion" in done.stderr
        listed = {t.table: t for t in await owner.list_tables("spook")}
        assert listed[table].taken == 0  # it gave the seat back
