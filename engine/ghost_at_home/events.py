"""Every event of Ghost at Home: a tagged union (tag field ``type``).  ``apply`` returns them unredacted;
``redact`` hides ``drew.cards``, ``discarded.cards`` and ``card_selected.card`` from every seat but the owner."""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.ghost_at_home.actions import Side


class TurnStarted(msgspec.Struct, tag="turn_started"):
    """``seat`` begins its turn of round ``round`` (1-based)."""

    seat: int
    round: int


class RoomPlayed(msgspec.Struct, tag="room_played"):
    """G4: ``seat`` put room (or joker) ``card`` on the ``side`` space of its ``floor``."""

    seat: int
    card: int
    floor: int
    side: Side


class GhostPlayed(msgspec.Struct, tag="ghost_played"):
    """G5 (``escape`` false) or G11 (``escape`` true): ``seat`` played ghost ``card`` on ``target``'s ``floor``."""

    seat: int
    card: int
    target: int
    floor: int
    escape: bool


class CatDefended(msgspec.Struct, tag="cat_defended"):
    """G5/G11: ``seat`` discarded cat ``card`` from its hand; it and ``ghost`` are discarded."""

    seat: int
    card: int
    ghost: int


class Declined(msgspec.Struct, tag="declined"):
    """``seat`` declined its ``cat_defence`` or ``stop_escape`` prompt."""

    seat: int
    prompt: Literal["cat_defence", "stop_escape"]


class GhostMetCat(msgspec.Struct, tag="ghost_met_cat"):
    """G5/G6/G8: ``ghost`` and ``cat`` met on ``seat``'s ``floor``; both are discarded, the room cards stay."""

    seat: int
    floor: int
    ghost: int
    cat: int


class GhostStays(msgspec.Struct, tag="ghost_stays"):
    """G5: ``ghost`` stays on ``seat``'s lit ``floor``."""

    seat: int
    floor: int
    ghost: int


class FloorHaunted(msgspec.Struct, tag="floor_haunted"):
    """G5: the ghosts and room cards of ``seat``'s ``floor`` (``cards``) are discarded; its light is off."""

    seat: int
    floor: int
    cards: list[int]


class CatPlaced(msgspec.Struct, tag="cat_placed"):
    """G6: ``seat`` put cat ``card`` on its ``floor``."""

    seat: int
    card: int
    floor: int


class CardSelected(msgspec.Struct, tag="card_selected"):
    """A G7 (``light``) or G9 (``discard``) step: ``seat`` chose ``card`` (``None`` for everyone else)."""

    seat: int
    purpose: Literal["light", "discard"]
    card: int | None


class LightOn(msgspec.Struct, tag="light_on"):
    """G7/G8: ``seat`` discarded ``cards`` (its 2–3 light cards, or the light bulb) and lit its ``floor``."""

    seat: int
    floor: int
    cards: list[int]


class GhostMoved(msgspec.Struct, tag="ghost_moved"):
    """G8 space-time hole ``card``: ``seat`` moved ``ghost`` from ``source``'s ``source_floor`` to ``target``'s
    ``floor`` (landing events follow)."""

    seat: int
    card: int
    ghost: int
    source: int
    source_floor: int
    target: int
    floor: int


class CatMoved(msgspec.Struct, tag="cat_moved"):
    """G8 cat food or elevator ``card``: ``seat`` moved ``cat`` from ``source``'s ``source_floor`` to its own
    ``floor``."""

    seat: int
    card: int
    cat: int
    source: int
    source_floor: int
    floor: int


class LightOff(msgspec.Struct, tag="light_off"):
    """G8 lightning ``card``: ``seat`` turned off the light of ``target``'s ``floor``."""

    seat: int
    card: int
    target: int
    floor: int


class Discarded(msgspec.Struct, tag="discarded"):
    """G9: ``seat`` discarded ``count`` cards face down (``cards`` is ``None`` for everyone else)."""

    seat: int
    count: int
    cards: list[int] | None


class Drew(msgspec.Struct, tag="drew"):
    """G9/G10/G11: ``seat`` drew ``count`` cards (``cards`` is ``None`` for everyone else)."""

    seat: int
    count: int
    cards: list[int] | None


class Reshuffled(msgspec.Struct, tag="reshuffled"):
    """G10: the ``count`` cards of the discard pile became a new, shuffled draw pile."""

    count: int


class Passed(msgspec.Struct, tag="passed"):
    """``seat`` had no card to play."""

    seat: int


class EscapeAttempt(msgspec.Struct, tag="escape_attempt"):
    """G11: ``seat``'s house is fully explored; the other seats may stop it with ghosts."""

    seat: int


class EscapeStopped(msgspec.Struct, tag="escape_stopped"):
    """G11: ``seat``'s escape was stopped; every seat refills its hand, starting with ``seat``."""

    seat: int


class GameOver(msgspec.Struct, tag="game_over"):
    """The end: ``escaped`` (G11) or ``round_limit`` (the most explored houses win)."""

    winners: list[int]
    reason: Literal["escaped", "round_limit"]


Event = (
    TurnStarted
    | RoomPlayed
    | GhostPlayed
    | CatDefended
    | Declined
    | GhostMetCat
    | GhostStays
    | FloorHaunted
    | CatPlaced
    | CardSelected
    | LightOn
    | GhostMoved
    | CatMoved
    | LightOff
    | Discarded
    | Drew
    | Reshuffled
    | Passed
    | EscapeAttempt
    | EscapeStopped
    | GameOver
)
