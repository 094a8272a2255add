"""Spook events: a tagged union (tag field ``type``).  Only ``CardDrawn`` can carry a hidden value."""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.spook.state import EndReason, HuntKind, Offered


class CardDrawn(msgspec.Struct, tag="card_drawn"):
    """S8/S12: ``seat`` drew ``card``, which went to its ``hand``, the ``discard`` (S12) or the ``board`` (a ghost).
    ``public`` is false only for a red card kept in hand without open hands; then other seats see ``card=None``."""

    seat: int
    card: str | None
    destination: Literal["hand", "discard", "board"]
    public: bool
    pile_size: int


class GhostAppeared(msgspec.Struct, tag="ghost_appeared"):
    """S9: ``ghost`` appeared in ``location`` (a room, or the staircase when every room is haunted)."""

    ghost: str
    location: str


class TrapSprung(msgspec.Struct, tag="trap_sprung"):
    """S9: the trap in ``room`` caught ``ghost``; both are discarded, except the Queen, who stays."""

    room: str
    trap: str
    ghost: str
    ghost_destroyed: bool


class OmenMoved(msgspec.Struct, tag="omen_moved"):
    """S9: the omen pawn moved to ``room``."""

    room: str


class DieRolled(msgspec.Struct, tag="die_rolled"):
    """S10: ``seat`` rolled ``value``."""

    seat: int
    value: int


class PawnMoved(msgspec.Struct, tag="pawn_moved"):
    """S10: ``pawn`` went through a door from ``origin`` to ``to``; ``steps_left`` doors remain."""

    pawn: int
    origin: str
    to: str
    steps_left: int


class MoveStopped(msgspec.Struct, tag="move_stopped"):
    """S10: ``seat`` stopped moving with ``steps_left`` doors unused."""

    seat: int
    steps_left: int


class TrapLaid(msgspec.Struct, tag="trap_laid"):
    """S13: ``seat`` laid ``trap`` on ``room``."""

    seat: int
    trap: str
    room: str


class HuntStarted(msgspec.Struct, tag="hunt_started"):
    """S11: ``seat`` started a hunt; ``waiting`` lists the seats asked to contribute."""

    seat: int
    kind: HuntKind
    ghost: str | None
    location: str
    value: int
    hunters: list[int]
    waiting: list[int]


class CardOffered(msgspec.Struct, tag="card_offered"):
    """S11: ``seat`` put ``card`` into the hunt; ``total`` is the value offered so far."""

    seat: int
    card: str
    total: int


class HunterDone(msgspec.Struct, tag="hunter_done"):
    """S11: ``seat`` adds no more cards (said so, or has no card left that counts)."""

    seat: int


class HuntSucceeded(msgspec.Struct, tag="hunt_succeeded"):
    """S11: ``ghosts`` and the ``cards`` played went to the discard pile."""

    ghosts: list[str]
    cards: list[str]


class HuntAbandoned(msgspec.Struct, tag="hunt_abandoned"):
    """S11: the hunt could no longer reach its value; the offered cards went back to their owners."""

    returned: list[Offered]


class TurnEnded(msgspec.Struct, tag="turn_ended"):
    """S14: ``seat`` ended its turn; ``next_seat`` plays."""

    seat: int
    next_seat: int


class GameOver(msgspec.Struct, tag="game_over"):
    """S15: the table ``won`` or lost, for ``reason``; ``wing`` names the haunted wing of a ``wing_haunted`` loss."""

    won: bool
    reason: EndReason
    wing: str | None = None


SpookEvent = (
    CardDrawn
    | GhostAppeared
    | TrapSprung
    | OmenMoved
    | DieRolled
    | PawnMoved
    | MoveStopped
    | TrapLaid
    | HuntStarted
    | CardOffered
    | HunterDone
    | HuntSucceeded
    | HuntAbandoned
    | TurnEnded
    | GameOver
)
