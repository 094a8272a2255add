"""The Spook game state, options, the hunt in progress, the per-seat view and the end-of-game reveal."""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.rng import Rng

Phase = Literal["draw", "roll", "move", "turn", "over"]
"""Where the active seat stands in its turn: draw (S8), roll (S10), move (S10), turn (after the move, S14)."""
HuntKind = Literal["normal", "king", "wing"]
"""S11: reach the ghost's value; a red King banishes one ghost; Q♥ + Q♦ clear the wing."""
Outcome = Literal["won", "lost"]
EndReason = Literal["queen_hunted", "wing_haunted", "pile_empty"]


class SpookOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Table options.  ``open_hands``: every seat and spectator sees every hand (table talk made explicit)."""

    open_hands: bool = False


class Offered(msgspec.Struct, frozen=True):
    """A card a seat put into the hunt in progress."""

    seat: int
    card: str


class Hunt(msgspec.Struct):
    """A hunt in progress (S11), public as at the table.

    ``value`` is what the offered cards must reach (``normal``; 0 for ``king`` and ``wing``), ``suits`` the suit
    letters whose cards count, ``hunters`` every seat with a pawn in ``location`` and ``waiting`` those still to
    answer (offer a card or say done).
    """

    kind: HuntKind
    ghost: str | None
    location: str
    value: int
    suits: str
    hunters: list[int]
    waiting: list[int]
    offered: list[Offered]


LetGo = tuple[HuntKind, str | None, str, tuple[int, ...]]
"""A hunt as its hunters let it go (S11): its kind, ghost, location and hunters."""


class SpookState(msgspec.Struct):
    """Everything, hidden parts included.  ``pile[-1]`` is the top card; ``rooms[i]`` is the ghost in room
    ``i + 1`` (or ``None``), ``traps[i]`` the trap laid there; ``omen`` is the omen pawn's room."""

    seats: int
    options: SpookOptions
    rng: Rng
    pile: list[str]
    hands: list[list[str]]
    pawns: list[str]
    omen: str
    rooms: list[str | None]
    staircase: list[str]
    traps: list[str | None]
    discard: list[str]
    active: int = 0
    turn: int = 1
    phase: Phase = "draw"
    roll: int = 0
    steps_left: int = 0
    moving_pawn: int | None = None
    hunt: Hunt | None = None
    outcome: Outcome | None = None
    reason: EndReason | None = None
    let_go: list[LetGo] = msgspec.field(default_factory=list)
    """The hunts abandoned this turn (S11), each not legal again before the turn ends or a hunt succeeds."""


class SpookView(msgspec.Struct):
    """What one seat (``viewer``; ``None`` for a spectator) sees.  ``hands[s]`` is ``None`` when hidden from the
    viewer; ``hand_sizes`` is public.  ``queen_value`` is the Queen's current value (S11) while she is on the
    board, else 0."""

    viewer: int | None
    seats: int
    open_hands: bool
    turn: int
    active: int
    phase: Phase
    roll: int
    steps_left: int
    moving_pawn: int | None
    pawns: list[str]
    omen: str
    rooms: list[str | None]
    staircase: list[str]
    traps: list[str | None]
    pile_size: int
    discard: list[str]
    hands: list[list[str] | None]
    hand_sizes: list[int]
    queen_value: int
    hunt: Hunt | None
    outcome: Outcome | None
    reason: EndReason | None


class SpookReveal(msgspec.Struct):
    """The end-of-game reveal: every hand and the remaining pile (top card last)."""

    hands: list[list[str]]
    pile: list[str]
