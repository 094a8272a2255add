"""Random legal playouts from a prepared state, through the shared ``engine.playout.random_playout``."""

from __future__ import annotations

from typing import Any

from engine.contract import Game


class Resumed:
    """``game``, except that ``setup`` hands back ``state``, so ``random_playout`` plays on from it."""

    def __init__(self, game: Game[Any, Any, Any], state: Any) -> None:
        self.game = game
        self.state = state

    def setup(self, *args: Any) -> Any:
        return self.state

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)
