"""Ghost at Home's catalog (``Game.catalog``): the public card data of ``cards.py``, for clients to draw from."""

from __future__ import annotations

from typing import Final

import msgspec

from engine.ghost_at_home.cards import CARDS, LIGHT_BULBS_NEEDED, SPECIAL_ID, Card


class Catalog(msgspec.Struct, frozen=True):
    """Ghost at Home's public data: every card (G1, G2) and what a light needs (G7)."""

    cards: tuple[Card, ...]
    """G1, G2: the 53 cards in id order, each with its kind, floor (1–3 for a room card, else 0) and bulbs."""
    specials: dict[str, int]
    """G1, G8: the card of each single special by kind, which is also the type of the action that plays it."""
    bulbs_to_light: int
    """G7: the bulbs the cards discarded for a light must show together."""


CATALOG: Final = Catalog(cards=CARDS, specials=SPECIAL_ID, bulbs_to_light=LIGHT_BULBS_NEEDED)
