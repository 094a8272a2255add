"""The actions a seat may send (M13–M18 and the decisions they lead to), a tagged union on ``type``.

Actions are frozen, so every legal action is built once here and shared (``legal_actions`` only picks them).
"""

from __future__ import annotations

from typing import Final

from engine.contract import ActionStruct
from engine.mansion.cards import DIAL_MAX, KIND_NAMES, MAX_SEATS, ROOM_COUNT, SEANCE, SECTIONS, Direction, GhostName


class Move(ActionStruct, frozen=True, tag="move"):
    """M14: move to hallway section ``to`` (0–5) or to the Séance Room (``-1``)."""

    to: int


class Rotate(ActionStruct, frozen=True, tag="rotate"):
    """M15: turn the Endless Hallway to rotation ``r`` (0–6, any value but the current one)."""

    r: int


class Collect(ActionStruct, frozen=True, tag="collect"):
    """M16: take a Ghost card of this kind from the room you are in."""

    card: GhostName


class Duel(ActionStruct, frozen=True, tag="duel"):
    """M17: challenge ``target`` (a seat in your location) for a card of this kind in its collection."""

    target: int
    card: GhostName


class DiscardHaunt(ActionStruct, frozen=True, tag="discard_haunt"):
    """M18 (also Grim Grinning, M6, and candlelight, M7): discard one of your Haunt cards of this value."""

    value: int


class EndTurn(ActionStruct, frozen=True, tag="end_turn"):
    """M13: end your turn now (unused actions are lost)."""


class Dial(ActionStruct, frozen=True, tag="dial"):
    """M17: set your duel dial to ``bid`` (0–3), in secret."""

    bid: int


class ChooseDirection(ActionStruct, frozen=True, tag="direction"):
    """M9 (an ``either`` event) or M6 (a Tea Party): the direction the Hitchhiking Ghosts move."""

    direction: Direction


class Decline(ActionStruct, frozen=True, tag="decline"):
    """M6 / M7: do not use an optional discard (Grim Grinning: now or never; candlelight)."""


Action = Move | Rotate | Collect | Duel | DiscardHaunt | EndTurn | Dial | ChooseDirection | Decline

MOVE_TO: Final = {to: Move(to) for to in range(SEANCE, SECTIONS)}
ROTATE_TO: Final = tuple(Rotate(r) for r in range(ROOM_COUNT))
COLLECT: Final = tuple(Collect(name) for name in KIND_NAMES)
DUEL: Final = tuple(tuple(Duel(target, name) for name in KIND_NAMES) for target in range(MAX_SEATS))
DISCARD: Final = {value: DiscardHaunt(value) for value in (1, 2, 3)}
DIALS: Final = [Dial(bid) for bid in range(DIAL_MAX + 1)]
DIRECTIONS: Final = [ChooseDirection("cw"), ChooseDirection("ccw")]
END_TURN: Final = EndTurn()
DECLINE: Final = Decline()
