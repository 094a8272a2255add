"""Call of the Spirits' catalog (``Game.catalog``): the board and the cards of ``cards.py``, for clients."""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from engine.mansion.cards import (
    DIAL_MAX,
    EVENTS,
    HAUNT_COUNTS,
    ICONS,
    KINDS,
    NO_ICON,
    PRINTED_DIRECTION,
    ROOMS,
    SECTIONS,
)


class GhostCard(msgspec.Struct, frozen=True):
    """One kind of Ghost card (M6): its icon (``None`` for a special ghost), how many copies the deck holds and,
    for a Tea Party, how many rooms it moves the Hitchhiking Ghosts (else 0)."""

    name: str
    icon: str | None
    copies: int
    steps: int


class EventCard(msgspec.Struct, frozen=True):
    """One Event card (M7, M12): the Hitchhiking Ghosts' steps and printed direction (none on the Final Round
    card, whose ghosts do not move)."""

    name: str
    steps: int
    direction: Literal["cw", "ccw", "either"] | None


class Catalog(msgspec.Struct, frozen=True):
    """Call of the Spirits' public data: the board (M1, M2), the decks (M5–M7) and the dial (M17)."""

    rooms: tuple[str, ...]
    """M1: the seven outer rooms, clockwise from index 0."""
    sections: int
    """M2: the Endless Hallway's sections."""
    ghosts: tuple[GhostCard, ...]
    """M6: the 18 kinds of Ghost card, in the order their names index."""
    haunt: dict[int, int]
    """M5: how many Haunt cards of each value (1–3)."""
    events: tuple[EventCard, ...]
    """M7: the 13 event cards, then the Final Round card (M12)."""
    dial_max: int
    """M17: a duel dial is set from 0 to this."""


CATALOG: Final = Catalog(
    rooms=ROOMS,
    sections=SECTIONS,
    ghosts=tuple(GhostCard(k.name, None if k.icon == NO_ICON else ICONS[k.icon], k.copies, k.steps) for k in KINDS),
    haunt=HAUNT_COUNTS,
    events=tuple(EventCard(e.name, e.steps, PRINTED_DIRECTION[e.direction] if e.steps else None) for e in EVENTS),
    dial_max=DIAL_MAX,
)
