"""Games registered by name: every package under ``engine/`` that exports ``GAME`` is a rule set."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from engine.contract import Game


@cache
def games() -> dict[str, Game[Any, Any, Any]]:
    """Name → game, discovered once from the packages of ``engine``."""
    import engine

    found: dict[str, Game[Any, Any, Any]] = {}
    for info in pkgutil.iter_modules(engine.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"engine.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.name] = game
    return dict(sorted(found.items()))


def get_game(name: str) -> Game[Any, Any, Any]:
    """The game registered as ``name``; ``KeyError`` when there is none."""
    return games()[name]
