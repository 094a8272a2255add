"""The surface a bot author meets: a decision from an SDK update, a strategy of their own, the game's catalog."""

from __future__ import annotations

import argparse
import random
from typing import Any

import msgspec
import pytest

from clients.bots.base import Decision, catalog, load_strategy, strategy_option
from engine.registry import games
from protocol.messages import Events, PromptInfo, Snapshot
from server.bench import bench_bots
from server.http import catalogs


class FirstLegal:
    """A strategy of "someone else's": always the first legal action."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return decision.legal[0]


ME = f"{__name__}:FirstLegal"


def test_a_decision_is_built_from_the_update_that_asks_it() -> None:
    """Each bot author had to find its own prompt among ``prompts`` and turn it into the dict ``Decision`` holds."""
    update = Events(
        table="t",
        seq=4,
        prompts=[PromptInfo(seat=0, kind="dial"), PromptInfo(seat=1, kind="turn")],
        legal=[{"type": "end_turn"}],
        view={"seat": 1},
    )
    assert Decision.of(1, update) == Decision(1, {"seat": 1}, {"seat": 1, "kind": "turn"}, [{"type": "end_turn"}])
    assert Decision.of(2, update) is None  # nothing asked of seat 2
    assert Decision.of(1, Events(table="t", seq=5)) is None  # no news
    snapshot = Snapshot(table="t", game="mansion", seq=3, status="playing", seats=[], seat=1)
    assert Decision.of(1, snapshot) is None


def test_a_strategy_of_ones_own_is_named_module_colon_class() -> None:
    """``--strategy`` took built-in names only: a strategy written outside ``clients/bots`` could not be measured."""
    assert isinstance(load_strategy("mansion", ME), FirstLegal)
    assert strategy_option(ME) == ME and strategy_option("greedy") == "greedy"
    figures = bench_bots("ghost-at-home", 2, 2, ME, 1)
    assert figures["strategy"] == ME and 0 <= float(str(figures[f"{ME}_win_rate"])) <= 1


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("gredy", "invalid choice: 'gredy' (choose from greedy, random, or module:Class)"),
        ("no_such_module:X", "cannot load strategy 'no_such_module:X': No module named 'no_such_module'"),
        (f"{__name__}:Nope", f"cannot load strategy '{__name__}:Nope'"),
    ],
)
def test_a_bad_strategy_option_says_what_to_give(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="^" + says.replace("(", r"\(").replace(")", r"\)")):
        strategy_option(text)


@pytest.mark.parametrize("game", sorted(games()))
def test_the_catalog_is_what_the_server_serves(game: str) -> None:
    """A strategy in ``hauntd bench bots`` has no server to fetch ``/games/NAME.json`` from."""
    assert catalog(game) == msgspec.json.decode(catalogs()[f"/games/{game}.json"].body)
