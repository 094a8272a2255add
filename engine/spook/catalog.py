"""Spook's catalog (``Game.catalog``): the deck of ``cards.py`` and the map of ``board.py``, for clients."""

from __future__ import annotations

from typing import Final

import msgspec

from engine.spook.board import DOORS, LOCATIONS, WINGS
from engine.spook.cards import DECK, QUEEN, VALUE


class Catalog(msgspec.Struct, frozen=True):
    """Spook's public data: the deck (S1) and the reconstructed mansion (S2–S4)."""

    cards: tuple[str, ...]
    """S1: the 47 cards, red then black then the Queen of ghosts."""
    values: dict[str, int]
    """S1: the printed value of every ghost and hunting card (the Jacks have none; the Queen's is the board's)."""
    queen: str
    """S1: the Queen of ghosts."""
    locations: tuple[str, ...]
    """S2: the foyer, the staircase and the rooms ``"1"`` … ``"10"``."""
    wings: dict[str, tuple[str, str, str]]
    """S3: the three rooms of each wing."""
    doors: tuple[tuple[str, str], ...]
    """S4: the doors, each joining two locations (undirected)."""


CATALOG: Final = Catalog(cards=DECK, values=VALUE, queen=QUEEN, locations=LOCATIONS, wings=WINGS, doors=DOORS)
