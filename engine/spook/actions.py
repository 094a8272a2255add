"""Spook actions: a tagged union (tag field ``type``), one small step each so legal actions stay few."""

from __future__ import annotations

from engine.contract import ActionStruct
from engine.spook.state import HuntKind


class Draw(ActionStruct, frozen=True, tag="draw"):
    """S8: draw the top card of the pile."""


class Roll(ActionStruct, frozen=True, tag="roll"):
    """S10: roll the die."""


class Move(ActionStruct, frozen=True, tag="move"):
    """S10: move ``pawn`` (a seat number: any seat's pawn, the same one all turn) through one door to ``to``."""

    pawn: int
    to: str


class StopMoving(ActionStruct, frozen=True, tag="stop_moving"):
    """S10: end the move before the die's steps are used up."""


class EndTurn(ActionStruct, frozen=True, tag="end_turn"):
    """S14: end the turn after the move."""


class StartHunt(ActionStruct, frozen=True, tag="hunt"):
    """S11: start a hunt in the active seat's location: ``ghost`` names the target (``None`` for ``wing``)."""

    ghost: str | None = None
    kind: HuntKind = "normal"


class LayTrap(ActionStruct, frozen=True, tag="lay_trap"):
    """S13: lay the red Jack ``card`` on the active seat's room."""

    card: str


class Offer(ActionStruct, frozen=True, tag="offer"):
    """S11: put one card from the hand into the hunt in progress."""

    card: str


class Done(ActionStruct, frozen=True, tag="done"):
    """S11: add no more cards to the hunt in progress."""


SpookAction = Draw | Roll | Move | StopMoving | EndTurn | StartHunt | LayTrap | Offer | Done
