"""The strategy interface and the registry of strategies by game and name."""

from __future__ import annotations

import importlib
import random
from typing import Any, Protocol

import msgspec

from engine.registry import games


class Decision(msgspec.Struct, frozen=True):
    """What a seat knows when it must decide: all of it exactly as received over the protocol (JSON builtins).
    (A struct: built for every action a bot takes, ten times faster than a frozen dataclass.)"""

    seat: int
    view: dict[str, Any]
    prompt: dict[str, Any]
    legal: list[dict[str, Any]]


class Strategy(Protocol):
    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        """One of ``decision.legal``."""
        ...


class RandomStrategy:
    """Uniform over the legal actions: the baseline every other strategy must beat."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return decision.legal[rng.randrange(len(decision.legal))]


# game -> module holding that game's strategies as a ``STRATEGIES`` dict of name -> class.
_GAME_MODULES = {
    "mansion": "clients.bots.mansion",
    "spook": "clients.bots.spook",
    "ghost-at-home": "clients.bots.ghost_at_home",
}


def strategies(game: str) -> dict[str, type[Strategy]]:
    """Every strategy available for ``game``: ``random`` always, plus the game's own."""
    found: dict[str, type[Strategy]] = {"random": RandomStrategy}
    module_name = _GAME_MODULES.get(game)
    if module_name is not None:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
        else:
            found.update(module.STRATEGIES)
    return found


def strategy_names() -> list[str]:
    """Every strategy some game has, sorted: the choices of a ``--strategy`` option."""
    return sorted({name for game in games() for name in strategies(game)})


def get_strategy(game: str, name: str) -> Strategy:
    """A fresh strategy instance; ``KeyError`` for an unknown name."""
    return strategies(game)[name]()
