"""*Disney: The Haunted Mansion – Call of the Spirits* (rules: /work/shared/rules/mansion.md, M1–M30)."""

from engine.mansion.game import MansionGame

GAME = MansionGame()

__all__ = ["GAME", "MansionGame"]
