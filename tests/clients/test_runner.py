"""``hauntd bot``: bots join a table over the SDK as ordinary players and play it to the end, one of them as the
command a person would run."""

from __future__ import annotations

import asyncio
import json
import random
import re
import secrets
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clients.bots import seatfile
from clients.bots.base import Decision, IllegalChoice
from clients.bots.ghost_at_home import GreedyGhostAtHome
from clients.bots.runner import SeatBot, run_bot
from clients.sdk import Client
from server.launch import ROOT
from tests.server.conftest import ServerProcess

HAUNTD = [sys.executable, "-m", "server.cli"]


class LooksUpAMissingKey:
    """A strategy with a bug of its own: it reads a view field the game does not have."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return decision.legal[len(decision.view["collections"]) % len(decision.legal)]


FLIES = "tests.clients.bots.test_base:Flies"  # returns {"type": "fly"}

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


async def test_a_bot_slowed_down_by_the_rate_limit_plays_on(start_server: Callable[..., ServerProcess]) -> None:
    """Alone against server-run bots, a bot decides as fast as the game prompts it and meets the server's rate
    limit (``hauntd serve``'s default 50/s, burst 100, is met in a long game).  A ``rate_limited`` action was
    dropped by the server, so no newer update comes to decide on: the bot used to wait for one forever."""
    server = start_server("--rate", "40", "--burst", "4")  # the hello, the join's watch (M30), the join, the start
    async with Client(server.url) as owner:
        table = await owner.create("mansion", 2, bots=1, bot_strategy="random")
    summary = await asyncio.wait_for(
        run_bot(server.url, table, seat=None, name="me", strategy_name="random", game="auto", seed=2), 30
    )
    assert summary["rejected"].get("rate_limited", 0) > 0  # it did meet the limit
    assert len(summary["scores"]) == 2 and summary["actions"] > 10


async def test_a_bot_whose_strategy_chooses_an_illegal_action_stops_and_says_so(server: ServerProcess) -> None:
    """The server refused the action (``bad_field``), no newer update came, and the bot waited for one for ever."""
    async with Client(server.url) as owner:
        table = await owner.create("mansion", 2, bots=1, bot_strategy="random")
    mine = run_bot(server.url, table, seat=None, name="me", strategy_name=FLIES, game="auto", seed=1)
    with pytest.raises(IllegalChoice, match=r"not one of decision\.legal"):
        await asyncio.wait_for(mine, 30)


async def test_a_strategy_s_own_key_error_is_not_reported_as_an_unknown_strategy(server: ServerProcess) -> None:
    """``hauntd bot`` said "no strategy 'collections' for this game" for a KeyError raised by the strategy's own
    code (here a Call of the Spirits strategy seated at a Spook table): the traceback that names the bug is due."""
    async with Client(server.url) as owner:
        table = await owner.create("spook", 2, bots=1, bot_strategy="random")
    strategy = f"{__name__}:LooksUpAMissingKey"
    command = [*HAUNTD, "bot", "--url", server.url, "--table", table, "--strategy", strategy, "--name", "me"]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and "no strategy" not in done.stderr
    assert "KeyError: 'collections'" in done.stderr and "in choose" in done.stderr  # its own traceback
    # then which seat and prompt (they were left to guess): seat 1, the first decision of the game (S8)
    last = done.stderr.rstrip().rsplit("\n", 1)[-1]
    assert last == "hauntd bot: LooksUpAMissingKey.choose raised KeyError('collections') to seat 1's 'draw' prompt"


async def test_the_bot_command_creates_a_table_of_its_own_with_server_run_bots(server: ServerProcess) -> None:
    """``hauntd bot`` needed a ``--table``, and nothing on the command line made one: a bot author alone had to write
    a program of their own to create a table with server-run bots before the bot could play."""
    command = [*HAUNTD, "bot", "--url", server.url, "--game", "ghost-at-home", "--seats", "3", "--strategy", "greedy"]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert done.stderr == f"hauntd bot: created table {summary['table']}, 2 server-run greedy bots\n"
    assert summary["seat"] == 2 and len(summary["scores"]) == 3
    said = (ROOT / "README.md").read_text().split("prints its summary as JSON (", 1)[1].split(")", 1)[0]
    assert set(summary) == set(re.findall(r"`(\w+)`", said)) - {"stale"}  # the fields the README lists
    async with Client(server.url) as spectator:
        snapshot = await spectator.watch(summary["table"])
    assert snapshot.private and snapshot.seats is not None
    assert [seat.bot for seat in snapshot.seats] == [True, True, False]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "give --table, or --game to create a table of that game"),
        (["--game", "mansion", "--seats", "9"], "argument --seats: mansion seats 2 to 6 players, not 9"),
        (["--table", "T", "--bots-play", "random"], "--seats, --bots-play and --options are for a table the bot"),
        (["--game", "spook", "--options", "[1]"], "argument --options: not a JSON object: '[1]'"),
        (["--game", "spook", "--seat", "0"], "--seat is for --table: a table the bot creates leaves it the last seat"),
        (["--game", "spook", "--options", "{open}"], "argument --options: not JSON: Expecting property name"),
    ],
)
def test_the_bot_command_says_what_a_table_of_its_own_needs(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from server.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["bot", "--url", "ws://127.0.0.1:9", *argv])
    assert exited.value.code == 2 and f"hauntd bot: error: {says}" in capsys.readouterr().err


async def test_a_table_the_bot_command_creates_takes_the_game_s_options(server: ServerProcess) -> None:
    """A cooperative Spook bot sees its teammates' hands only at a table with ``open_hands``, which a table the bot
    command created could not have."""
    options = ["--game", "spook", "--options", '{"open_hands": true}', "--bots-play", "random", "--url", server.url]
    command = [*HAUNTD, "bot", *options, "--strategy", "greedy"]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    async with Client(server.url) as spectator:
        snapshot = await spectator.watch(json.loads(done.stdout)["table"])
    assert snapshot.view is not None and snapshot.view["open_hands"] is True
    assert all(hand is not None for hand in snapshot.view["hands"])  # every hand shown, a spectator's view too
    bad = [*HAUNTD, "bot", "--game", "spook", "--options", '{"open": 1}', "--url", server.url]
    done = await asyncio.to_thread(subprocess.run, bad, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 1 and done.stderr.startswith("hauntd bot: ") and "open" in done.stderr


async def test_a_bot_waits_for_a_server_down_longer_than_a_request_lasts(server: ServerProcess) -> None:
    """``hauntd bot`` ended with "no reply in time" (exit status 1) when the server stayed down past the SDK's
    ``request_timeout`` while the bot's action was in flight: the seat was left for ever to a game that waited."""
    restart: list[asyncio.Task[None]] = []

    class KillsTheServer(GreedyGhostAtHome):
        """Greedy, but its third decision kills the server, which comes back 1 s later."""

        decisions = 0

        def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
            self.decisions += 1
            if self.decisions == 3:
                server.kill()
                restart.append(asyncio.get_running_loop().create_task(back_in(1.0)))
            return super().choose(decision, rng)

    async def back_in(seconds: float) -> None:
        await asyncio.sleep(seconds)
        await server.start_async()

    waits: list[None] = []
    async with Client(server.url, request_timeout=0.3) as client:
        table = await client.create("ghost-at-home", 2, bots=1, bot_strategy="random")
        held = await client.join(table, "me")
        bot = SeatBot(
            client,
            table,
            held.seat,
            KillsTheServer(),
            random.Random(1),
            start=True,
            unreachable=lambda: waits.append(None),
        )
        over = await asyncio.wait_for(bot.play(), 60)
    assert restart and waits  # the server was down past a request's time, and the bot waited for it
    assert over.table == table and len(over.result["scores"]) == 2 and client.reconnects >= 1


async def test_a_bot_killed_mid_game_resumes_its_seat_from_its_state_file(
    server: ServerProcess, tmp_path: Path
) -> None:
    """A ``hauntd bot`` whose process died left its seat to a game that waited for it (an untimed table, for ever):
    started again with the same ``--state``, it takes the seat back and plays on from the current prompt.  The
    file, which holds the seat's token, is its owner's only and gone at the end; the token is never printed."""
    state = tmp_path / "seat.json"
    processes: list[asyncio.subprocess.Process] = []
    restarted: list[asyncio.Task[None]] = []

    async def bot_process() -> None:
        command = [*HAUNTD, "bot", "--url", server.url, "--table", table, "--strategy", "greedy", "--state", str(state)]
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        processes.append(await asyncio.create_subprocess_exec(*command, cwd=ROOT, **pipes))  # type: ignore[arg-type]

    async def again(first: asyncio.subprocess.Process) -> None:
        assert await first.wait() == -signal.SIGKILL
        await bot_process()

    class KillsTheBot(GreedyGhostAtHome):
        """Greedy, but its third decision kills the other seat's bot (mid-game, its own turns taken), which is
        started again once it is dead."""

        decisions = 0

        def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
            self.decisions += 1
            if self.decisions == 3:
                processes[0].kill()
                restarted.append(asyncio.get_running_loop().create_task(again(processes[0])))
            return super().choose(decision, rng)

    async with Client(server.url) as me:
        table = await me.create("ghost-at-home", 2)
        await bot_process()
        while not state.exists():  # written as it sits
            assert processes[0].returncode is None, await processes[0].communicate()
            await asyncio.sleep(0.05)
        assert stat.S_IMODE(state.stat().st_mode) == 0o600
        token = json.loads(state.read_text())["token"]
        held = await me.join(table, "me")
        bot = SeatBot(me, table, held.seat, KillsTheBot(), random.Random(1), start=True)
        over = await asyncio.wait_for(bot.play(), 60)
    assert restarted and len(processes) == 2
    out, err = await asyncio.wait_for(processes[1].communicate(), 60)
    _, first_err = await processes[0].communicate()
    assert processes[1].returncode == 0, err
    summary = json.loads(out)
    assert summary["resumed"] is True and summary["seat"] == 1 - held.seat and summary["actions"] > 0
    assert summary["scores"] == over.result["scores"]
    assert not state.exists()  # the game is over: a bot started again takes a new seat
    assert token not in (first_err + err).decode() and token not in out.decode()


async def test_a_kept_token_whose_join_never_landed_joins_with_it_and_the_end_comes_once_more(
    server: ServerProcess, tmp_path: Path
) -> None:
    """The bot keeps its token before its join goes out: killed in between, started again, it resumes nothing (the
    token holds no seat) and sends the join then, with that token."""
    async with Client(server.url) as owner:
        table = await owner.create("ghost-at-home", 2, bots=1, bot_strategy="random")
    state, token = tmp_path / "seat.json", secrets.token_urlsafe(16)
    seatfile.save(state, seatfile.SavedSeat(table, token))
    summary = await asyncio.wait_for(
        run_bot(server.url, table, seat=None, name="b", strategy_name="greedy", game="auto", seed=1, state=state), 60
    )
    assert summary["resumed"] is False and summary["seat"] == 1 and not state.exists()
    seatfile.save(state, seatfile.SavedSeat(table, token))  # as if killed after the end, before removing the file
    command = [*HAUNTD, "bot", "--url", server.url, "--game", "ghost-at-home", "--state", str(state)]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"hauntd bot: resuming its seat at table {table} (kept in {state})\n"  # not a new table
    again = json.loads(done.stdout)
    assert again["resumed"] is True and again["seat"] == 1  # the kept token is the seat's
    assert again["actions"] == 0 and again["scores"] == summary["scores"] and not state.exists()


def test_a_state_file_of_another_table_or_of_no_seat_is_refused_in_one_line(
    server: ServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from server.cli import main

    state, token = tmp_path / "seat.json", secrets.token_urlsafe(16)
    seatfile.save(state, seatfile.SavedSeat("elsewhere", token))
    assert main(["bot", "--url", server.url, "--table", "here", "--state", str(state)]) == 1
    said = capsys.readouterr().err
    assert said == f"hauntd bot: {state} keeps a seat at table elsewhere, not here: remove it to join\n"
    state.write_text('{"table": "here", "token": 7}')
    assert main(["bot", "--url", server.url, "--table", "here", "--state", str(state)]) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"hauntd bot: {state} holds no seat (") and said.endswith("remove it to take a new one\n")
    assert token not in said and state.exists()  # (an operator's file: left for them to look at)


async def test_bots_play_on_at_a_table_their_store_sets_back(
    start_server: Callable[..., ServerProcess], sync_redis: Any
) -> None:
    """The store comes back from an older copy of the table mid-game: each bot is told (``not_found`` with the
    table's ``seq``) and plays on from there (the SDK forgot the seat and the bot stopped on the error).  (The
    rate limit makes the game last some seconds: unslowed, it was over before the store was set back.)"""
    from tests.server.drive import stored_seq
    from tests.server.test_set_back import copy, put_back
    from tests.waiting import until

    server = start_server("--rate", "20", "--burst", "4")
    async with Client(server.url) as owner:
        table = await owner.create("mansion", 3)
        bots = asyncio.gather(
            *(run_bot(server.url, table, seat=i, name=f"bot{i}", strategy_name="random", game="auto", seed=i)
              for i in range(3))
        )  # fmt: skip
        assert await until(lambda: stored_seq(sync_redis, table) >= 5, 20)
        older, at = copy(sync_redis, table), stored_seq(sync_redis, table)
        assert await until(lambda: stored_seq(sync_redis, table) >= at + 3, 20)
        put_back(sync_redis, table, older)
        summaries = await asyncio.wait_for(bots, 60)
    assert all(len(s["scores"]) == 3 and s["scores"] == summaries[0]["scores"] for s in summaries)
    assert [line["stored"] for line in server.log_lines() if line["event"] == "table_set_back"] == [at]
