"""Spook (Matthias Prinz): a cooperative ghost hunt for 1–4 seats with a 47-card deck and a die (rules S1–S15)."""

from engine.spook.game import SpookGame

GAME = SpookGame()

__all__ = ["GAME", "SpookGame"]
