"""Hidden information, decided here only: what each seat sees of the state and of each event.

Hidden from everyone during play: the order of every deck and the Event cards removed at setup (only their
counts show).  Hidden from all but the owner: Haunt values (everyone sees how many).  Hidden from all but the
bidder until both dials are set: a duel bid (everyone sees *whether* each dial is set).  At the end everything is
revealed (M19, M30).
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec

from engine.mansion.cards import (
    EVENT_NAMES,
    EVENTS,
    KIND_NAMES,
    PRINTED_DIRECTION,
    ROOM_COUNT,
    SEANCE,
    EventName,
    GhostName,
)
from engine.mansion.events import DialSet, HauntDiscarded, HauntDrawn, Reveal
from engine.mansion.state import NO_BID, PH_OVER, State

PhaseName = Literal["event_direction", "turn", "dial", "tea_party", "grim_grinning", "candlelight", "over"]
PHASE_NAMES: Final[tuple[PhaseName, ...]] = (
    "event_direction",
    "turn",
    "dial",
    "tea_party",
    "grim_grinning",
    "candlelight",
    "over",
)


class DuelView(msgspec.Struct):
    """A duel awaiting its dials: who, for what, and which dials are set (never the bids)."""

    challenger: int
    defender: int
    card: GhostName
    challenger_set: bool
    defender_set: bool


class View(msgspec.Struct):
    """The table as ``seat`` (``None``: a spectator) sees it.

    ``positions``: hallway section or -1 (Séance Room); ``seat_rooms``: the room each seat is in, -1 in the Séance
    Room.  ``haunt[s]`` is seat ``s``'s Haunt values when this viewer may see them, else ``None``.
    """

    seat: int | None
    seats: int
    commitment: str
    phase: PhaseName
    round: int
    first: int
    turn: int
    event: EventName | None
    event_steps: int  # the current Event card's printed steps and direction (M7), 0/"cw" before the first and on
    # the Final Round, whose ghosts don't move (M12)
    event_direction: Literal["cw", "ccw", "either"]
    events_done: list[EventName]
    events_left: int
    events_removed: int
    actions: int
    duels: int
    discarded: bool
    free_rotate_used: bool
    long_move_used: bool
    tea_steps: int
    duel: DuelView | None
    my_bid: int | None
    rotation: int
    ghosts: int
    positions: list[int]
    seat_rooms: list[int]
    rooms: list[list[GhostName]]
    ghost_deck: int
    haunt_deck: int
    collections: list[list[GhostName]]
    haunt_counts: list[int]
    haunt: list[list[int] | None]
    discards: list[list[GhostName]]
    scores: list[int]
    winners: list[int]


def _names(cards: list[int]) -> list[GhostName]:
    return [KIND_NAMES[k] for k in cards]


def view(s: State, seat: int | None) -> View:
    over = s.phase == PH_OVER
    duel: DuelView | None = None
    my_bid: int | None = None
    if s.duel:
        challenger, defender, kind, challenger_bid, defender_bid = s.duel
        duel = DuelView(challenger, defender, KIND_NAMES[kind], challenger_bid != NO_BID, defender_bid != NO_BID)
        if seat == challenger and challenger_bid != NO_BID:
            my_bid = challenger_bid
        elif seat == defender and defender_bid != NO_BID:
            my_bid = defender_bid
    return View(
        seat=seat,
        seats=s.seats,
        commitment=s.commitment,
        phase=PHASE_NAMES[s.phase],
        round=s.round,
        first=s.first,
        turn=s.turn,
        event=EVENT_NAMES[s.event] if s.event >= 0 else None,
        event_steps=EVENTS[s.event].steps if s.event >= 0 else 0,
        event_direction=PRINTED_DIRECTION[EVENTS[s.event].direction] if s.event >= 0 else "cw",
        events_done=[EVENT_NAMES[e] for e in s.events_done],
        events_left=len(s.event_deck),
        events_removed=len(s.removed_events),
        actions=s.actions,
        duels=s.duels,
        discarded=s.discarded,
        free_rotate_used=s.free_rotate_used,
        long_move_used=s.long_move_used,
        tea_steps=s.tea_steps,
        duel=duel,
        my_bid=my_bid,
        rotation=s.rotation,
        ghosts=s.ghosts,
        positions=list(s.pos),
        seat_rooms=[SEANCE if p == SEANCE else (p + s.rotation) % ROOM_COUNT for p in s.pos],
        rooms=[_names(room) for room in s.rooms],
        ghost_deck=len(s.ghost_deck),
        haunt_deck=len(s.haunt_deck),
        collections=[_names(c) for c in s.collections],
        haunt_counts=[len(hand) for hand in s.hands],
        haunt=[list(hand) if over or owner == seat else None for owner, hand in enumerate(s.hands)],
        discards=[_names(d) for d in s.discards],
        scores=list(s.scores),
        winners=list(s.winners),
    )


def redact(event: Any, seat: int | None) -> Any:
    """The event as ``seat`` may see it: Haunt values and unrevealed bids only for their own seat."""
    if type(event) in _PRIVATE and event.seat != seat:
        return _PRIVATE[type(event)](event)
    return event


_PRIVATE: Final[dict[type, Any]] = {
    HauntDrawn: lambda e: msgspec.structs.replace(e, values=None),
    HauntDiscarded: lambda e: msgspec.structs.replace(e, value=None),
    DialSet: lambda e: msgspec.structs.replace(e, bid=None),
}


def reveal(s: State) -> Reveal:
    """M19 / M30: every hidden value at the end; decks top card first."""
    return Reveal(
        haunt=[list(hand) for hand in s.hands],
        haunt_totals=[sum(hand) for hand in s.hands],
        discarded=[_names(d) for d in s.discards],
        ghost_deck=_names(s.ghost_deck[::-1]),
        haunt_deck=s.haunt_deck[::-1],
        event_deck=[EVENT_NAMES[e] for e in reversed(s.event_deck)],
        removed_events=[EVENT_NAMES[e] for e in s.removed_events],
    )
