"""The 53 cards of Ghost at Home (G1) and their light-bulb icons (G2, reconstructed counts).

A card is named by its id everywhere (hands, houses, piles, actions, events):

| ids   | card                         | bulbs                              |
| ----- | ---------------------------- | ---------------------------------- |
| 0–11  | floor-1 room                 | 0,0,0,0,1,1,1,1,2,2,2,3            |
| 12–21 | floor-2 room                 | 0,0,0,1,1,1,2,2,2,3                |
| 22–31 | floor-3 room                 | 0,0,0,1,1,1,2,2,3,3                |
| 32–39 | ghost                        | 0                                  |
| 40–45 | cat                          | 1                                  |
| 46    | space-time hole              | 0                                  |
| 47    | light bulb                   | 0                                  |
| 48    | cat food                     | 0                                  |
| 49    | elevator                     | 0                                  |
| 50    | lightning                    | 0                                  |
| 51–52 | room joker (any floor)       | 1                                  |
"""

from __future__ import annotations

from typing import Final

import msgspec

ROOM: Final = "room"
GHOST: Final = "ghost"
CAT: Final = "cat"
SPACE_TIME_HOLE: Final = "space_time_hole"
LIGHT_BULB: Final = "light_bulb"
CAT_FOOD: Final = "cat_food"
ELEVATOR: Final = "elevator"
LIGHTNING: Final = "lightning"
JOKER: Final = "joker"

FLOORS: Final = 3
"""G3: floors 1, 2, 3, each with a left and a right space."""

HAND_SIZE: Final = 3
"""Seed text and G10: deal 3 to each seat; refill the hand up to 3."""


class Card(msgspec.Struct, frozen=True):
    """One card: ``floor`` is 1–3 for a room card, 0 otherwise (a joker fits any floor); ``bulbs`` its
    light-bulb icons (G2)."""

    id: int
    kind: str
    floor: int
    bulbs: int


def _build() -> tuple[Card, ...]:
    """G1 composition with G2 bulb counts, in id order."""
    spec: list[tuple[str, int, list[int]]] = [
        (ROOM, 1, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3]),
        (ROOM, 2, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]),
        (ROOM, 3, [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]),
        (GHOST, 0, [0] * 8),
        (CAT, 0, [1] * 6),
        (SPACE_TIME_HOLE, 0, [0]),
        (LIGHT_BULB, 0, [0]),
        (CAT_FOOD, 0, [0]),
        (ELEVATOR, 0, [0]),
        (LIGHTNING, 0, [0]),
        (JOKER, 0, [1, 1]),
    ]
    cards: list[Card] = []
    for kind, floor, bulbs in spec:
        first = len(cards)
        cards += [Card(first + i, kind, floor, b) for i, b in enumerate(bulbs)]
    return tuple(cards)


CARDS: Final = _build()
DECK_SIZE: Final = len(CARDS)
KIND: Final = tuple(c.kind for c in CARDS)
FLOOR: Final = tuple(c.floor for c in CARDS)
BULBS: Final = tuple(c.bulbs for c in CARDS)
SPECIAL_ID: Final = {
    c.kind: c.id for c in CARDS if c.kind in (SPACE_TIME_HOLE, LIGHT_BULB, CAT_FOOD, ELEVATOR, LIGHTNING)
}
"""The one card of each single special (G1)."""

LIGHT_BULBS_NEEDED: Final = 5
"""G7: the discarded cards show at least 5 bulbs together."""
