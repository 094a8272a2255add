"""What the documents say holds: the files they name exist (``PROTOCOL.md`` sent bot authors to
``engine/NAME/view.py``, which two of the three games do not have), the README's metrics, make targets and
``--strategy`` commands are the real ones, and its SDK example plays a game."""

import ast
import asyncio
import re
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
