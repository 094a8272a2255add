"""Pure rule engines: no I/O, no clock, no globals. See ``engine.contract`` for the shape every game fulfils."""

from engine.contract import Game, IllegalAction, Prompt, Result
from engine.registry import games, get_game

__all__ = ["Game", "IllegalAction", "Prompt", "Result", "games", "get_game"]
