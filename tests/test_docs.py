"""What the documents say holds: the files they name exist (``PROTOCOL.md`` sent bot authors to
``engine/NAME/view.py``, which two of the three games do not have), the README's metrics, make targets and
``--strategy`` commands are the real ones, and its SDK example plays a game."""

import ast
import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import build_parser
from server.launch import ServerProcess
from tests.server.conftest import server, start_server, store_url, valkey_url

__all__ = ["server", "start_server", "store_url", "valkey_url"]  # the fixtures the example's server comes from

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("doc", ["README.md", "protocol/PROTOCOL.md"])
def test_every_source_file_a_document_names_exists(doc: str) -> None:
    named = set(re.findall(r"`((?:engine|protocol|server|clients|tests)/[\w/]+\.\w+)`", (ROOT / doc).read_text()))
    assert named and sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_readme_names_every_metric_served_and_no_other() -> None:
    """An operator reading the README found ``/metrics`` (Prometheus) and not one metric's name, so nothing to
    alert on without scraping first; the names it now lists must stay those the server serves."""
    from server.metrics import Metrics

    served = {
        metric.name + ("_total" if metric.type == "counter" else "")
        for metric in Metrics().registry.collect()
        if metric.name.startswith("hauntd_")
    }
    named = set(re.findall(r"`(hauntd_\w+)(?:\{[\w,]+\})?`", (ROOT / "README.md").read_text()))
    assert served and named == served


@pytest.mark.parametrize("game", ["mansion", "spook", "ghost-at-home"])
def test_each_game_s_view_fields_are_all_listed_in_the_protocol(game: str) -> None:
    """A bot reads the view by its field names: mansion's list left out ``commitment``."""
    import msgspec

    from engine.registry import get_game
    from engine.rng import seed_from_int

    section = (ROOT / "protocol/PROTOCOL.md").read_text().split(f"\n### {game} — ", 1)[1].split("\n### ", 1)[0]
    listed = set(re.findall(r"`(\w+)`", section.split("\nView: ", 1)[1].split("\n\n", 1)[0]))
    engine = get_game(game)
    state = engine.setup(2, seed_from_int(1), engine.default_options(), "docs")
    fields = set(msgspec.to_builtins(engine.view(state, 0)))
    assert sorted(fields - listed) == []


async def test_the_readme_s_sdk_example_plays_a_whole_game(server: ServerProcess) -> None:
    """The SDK example, run as written, waited for ever: it joined one seat of four and nobody started."""
    example = (ROOT / "README.md").read_text().split("\n```python\n", 1)[1].split("\n```", 1)[0]
    code = compile(
        example.replace("ws://127.0.0.1:8765", server.url), "README.md", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    )
    await asyncio.wait_for(eval(code, {}), 30)


async def test_the_readme_s_bot_commands_run_as_written(server: ServerProcess, tmp_path: Path) -> None:
    """Every command of "Writing a bot", run by the installed ``hauntd`` command (whose ``sys.path`` starts at its
    own folder) beside a ``mybot.py``, with the test server's URL, a table of its for ``ID`` and fewer games: a
    ``module:Class`` in the current directory was not found, nothing measured a bot against ``greedy``, and a bot
    could not play without a table some other program had made."""
    from clients.sdk import Client

    block = (ROOT / "README.md").read_text().split("\n### Writing a bot\n", 1)[1].split("\n```sh\n", 1)[1]
    (tmp_path / "mybot.py").write_text("from clients.bots.examples.homebody import Homebody as MyBot\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "hauntd").write_text("import sys\nfrom server.cli import main\nsys.exit(main())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    async with Client(server.url) as owner:
        table = await owner.create("ghost-at-home", 2, bots=1)
    commands = [shlex.split(line, comments=True) for line in block.split("\n```", 1)[0].splitlines()]
    assert [argv[:2] for argv in commands] == [["hauntd", "bench"]] * 2 + [["hauntd", "bot"]] * 3
    for argv in commands:
        argv = [server.url if word == "ws://127.0.0.1:8765" else table if word == "ID" else word for word in argv]
        argv += ["--games", "10"] if argv[1] == "bench" else [] if "--url" in argv else ["--url", server.url]
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, str(tmp_path / "bin" / "hauntd"), *argv[1:]],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, (argv, done.stderr)
        assert json.loads(done.stdout)["strategy"] in argv
    assert not (tmp_path / "seat.json").exists()  # the --state file goes once the game is over


def test_the_readme_names_the_commands_that_take_a_strategy_of_your_own() -> None:
    """It said a ``module:Class`` went "wherever a ``--strategy`` is taken", and ``loadtest`` and ``chaos``
    refuse one (their bots play the built-in strategies only)."""
    from tests.server.test_cli import options

    said = (ROOT / "README.md").read_text().split("Give it as `module:Class`", 1)[1].split(":\n", 1)[0]
    taking = {
        command
        for command, action in options(build_parser())
        if "--strategy" in action.option_strings and action.choices is None
    }
    assert taking and set(re.findall(r"`(hauntd [a-z ]+)`", said)) == taking


def test_the_readme_names_every_make_target_and_no_other() -> None:
    """``make lint`` (lint and types, in seconds) was nowhere in the README, which offered only ``make test``: the
    whole suite, minutes of both cores, to check a change."""
    phony = re.search(r"^\.PHONY: (.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert phony and set(re.findall(r"(?:^|`)make (\w+)", (ROOT / "README.md").read_text(), re.M)) == set(
        phony[1].split()
    )
