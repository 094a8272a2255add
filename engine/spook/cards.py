"""The Spook deck (S1): a standard 52-card deck without Q♣, J♠, J♣, K♠, K♣ — 47 cards.

A card is a short string, rank then suit letter: ``"A"``, ``"2"`` … ``"10"``, ``"J"``, ``"Q"``, ``"K"`` followed by
``S`` (♠), ``H`` (♥), ``D`` (♦) or ``C`` (♣): ``"7S"``, ``"AH"``, ``"QS"``.

* Ghosts: black A–10 (♠ and ♣), value = rank (Ace = 1).  ``QS`` is the Queen of ghosts.
* Hunting cards: red A–10 (value = rank), red Queens and Kings (value 10; a King may also banish, S11).
* Traps: ``JH`` and ``JD`` (S13); they have no hunting value.
"""

from __future__ import annotations

NUMBERS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")

QUEEN = "QS"
"""The Queen of ghosts (S1), set aside at setup and shuffled into the bottom of the pile (S7)."""

GHOSTS = tuple(rank + suit for suit in "SC" for rank in NUMBERS)
HUNTING_NUMBERS = tuple(rank + suit for suit in "HD" for rank in NUMBERS)
TRAPS = ("JH", "JD")
RED_QUEENS = ("QH", "QD")
KINGS = ("KH", "KD")

RED = HUNTING_NUMBERS + TRAPS + RED_QUEENS + KINGS
"""The 26 red cards: the hand cards (S5, S8)."""
BLACK = GHOSTS
"""The 20 black cards other than the Queen: the ghost pile of S5–S6."""
DECK = RED + BLACK + (QUEEN,)
"""All 47 cards of the game in a fixed reference order."""

SUIT: dict[str, str] = {card: card[-1] for card in DECK}
"""Suit letter of every card."""

VALUE: dict[str, int] = {
    **{card: NUMBERS.index(card[:-1]) + 1 for card in GHOSTS + HUNTING_NUMBERS},
    **dict.fromkeys(RED_QUEENS + KINGS, 10),
}
"""Printed value of ghosts and hunting cards (S1); the Queen of ghosts' value depends on the board (S11)."""

HUNTS_WITH: dict[str, str] = {**dict.fromkeys(GHOSTS[:10], "H"), **dict.fromkeys(GHOSTS[10:], "D"), QUEEN: "HD"}
"""The hunting suits that count against each ghost (S11): ♠ needs ♥, ♣ needs ♦, the Queen takes either."""

HUNTING_CARDS = frozenset(HUNTING_NUMBERS + RED_QUEENS + KINGS)
"""Red cards with a hunting value (every red card but the Jacks)."""


def is_ghost(card: str) -> bool:
    """Black cards — the Queen included — are ghosts when drawn (S8)."""
    return SUIT[card] in "SC"


def room_of(ghost: str) -> str:
    """The room numbered like a ghost (S6, S9): the Ace is room ``"1"``."""
    return str(VALUE[ghost])
