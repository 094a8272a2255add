"""What happened, as a tagged union on ``type``.  ``apply`` returns them whole; ``redact`` hides per seat.

Hidden fields are ``None`` in a redacted copy: Haunt values (only their owner sees them) and a duel bid (only its
seat sees it until ``duel_revealed``).  Positions are hallway sections 0–5 or ``-1`` for the Séance Room; rooms
are indexes into ``cards.ROOMS``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.mansion.cards import Direction, EventName, GhostName

GhostsCause = Literal["event", "tea_party", "wandering_spirits"]
DrawCause = Literal["ghosts", "collect", "ballroom", "duel"]
DiscardCause = Literal["action", "grim_grinning", "candlelight"]


class RoundStarted(msgspec.Struct, tag="round_started"):
    """M9: a round begins and its Event card is revealed (``events_left``: cards still in the Event deck); the Final
    Round's ``steps`` are 0 and its ``direction`` ``cw`` stands for none: its ghosts don't move (M12)."""

    round: int
    first: int
    event: EventName
    steps: int
    direction: Literal["cw", "ccw", "either"]
    events_left: int


class GhostsMoved(msgspec.Struct, tag="ghosts_moved"):
    """M10: the Hitchhiking Ghosts moved; ``draws[seat]`` is how many Haunt cards each seat must draw."""

    cause: GhostsCause
    start: int
    to: int
    steps: int
    direction: Direction
    draws: list[int]


class GhostCardsPlaced(msgspec.Struct, tag="ghost_cards_placed"):
    """M11: the Ghost cards placed this round, by room (in placement order)."""

    rooms: list[list[GhostName]]


class TurnStarted(msgspec.Struct, tag="turn_started"):
    """M13: ``seat`` begins its turn with ``actions`` actions."""

    seat: int
    actions: int


class Moved(msgspec.Struct, tag="moved"):
    """M14: a seat moved ``steps`` steps."""

    seat: int
    start: int
    to: int
    steps: int


class Rotated(msgspec.Struct, tag="rotated"):
    """M15: the Endless Hallway turned (``free``: it cost no action, open_doors)."""

    seat: int
    start: int
    to: int
    free: bool


class Collected(msgspec.Struct, tag="collected"):
    """M16 / M6: a Ghost card joined ``seat``'s collection, from ``room`` or (``room == -1``) by a Groom."""

    seat: int
    card: GhostName
    room: int


class HauntDrawn(msgspec.Struct, tag="haunt_drawn"):
    """M5: ``seat`` drew ``count`` Haunt cards; ``values`` only for that seat."""

    seat: int
    count: int
    cause: DrawCause
    values: list[int] | None


class HauntDiscarded(msgspec.Struct, tag="haunt_discarded"):
    """M18 / M6 / M7: ``seat`` put a Haunt card at the bottom of the deck; ``value`` only for that seat."""

    seat: int
    cause: DiscardCause
    value: int | None


class Declined(msgspec.Struct, tag="declined"):
    """M6 / M7: ``seat`` let an optional discard go."""

    seat: int
    prompt: Literal["grim_grinning", "candlelight"]


class DuelStarted(msgspec.Struct, tag="duel_started"):
    """M17: a duel for a card of ``defender``'s collection; both dials are now to be set."""

    challenger: int
    defender: int
    card: GhostName
    free: bool


class DialSet(msgspec.Struct, tag="dial_set"):
    """M17: ``seat`` set its dial; ``bid`` only for that seat."""

    seat: int
    bid: int | None


class DuelRevealed(msgspec.Struct, tag="duel_revealed"):
    """M17: both bids, shown together; ``winner`` is the seat that holds the card now."""

    challenger: int
    defender: int
    card: GhostName
    challenger_bid: int
    defender_bid: int
    winner: int


class TurnEnded(msgspec.Struct, tag="turn_ended"):
    """M13: ``seat``'s turn is over."""

    seat: int


class Reveal(msgspec.Struct):
    """M19 / M30: everything hidden during play.  Decks are listed top card first."""

    haunt: list[list[int]]
    haunt_totals: list[int]
    discarded: list[list[GhostName]]
    ghost_deck: list[GhostName]
    haunt_deck: list[int]
    event_deck: list[EventName]
    removed_events: list[EventName]


class GameOver(msgspec.Struct, tag="game_over"):
    """M19–M22, M30: the final scores, the winners, the revealed seed (hex) and every hidden value."""

    scores: list[int]
    winners: list[int]
    seed: str
    reveal: Reveal


Event = (
    RoundStarted
    | GhostsMoved
    | GhostCardsPlaced
    | TurnStarted
    | Moved
    | Rotated
    | Collected
    | HauntDrawn
    | HauntDiscarded
    | Declined
    | DuelStarted
    | DialSet
    | DuelRevealed
    | TurnEnded
    | GameOver
)
