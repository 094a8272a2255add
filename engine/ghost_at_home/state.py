"""The whole state of a Ghost at Home table (everything, hidden parts included) and the table options."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from engine.rng import Rng

Phase = Literal["turn", "build", "light", "discard", "defence", "escape", "over"]
"""What the game waits for: ``turn`` the active seat's choice of G4–G9; ``build`` more room cards or stop (G4);
``light`` the next card or the floor of a G7 light; ``discard`` the next card of a G9 discard; ``defence`` the
targeted seat's cat (G5, G11); ``escape`` the next seat's ghost against an escape (G11); ``over`` nothing."""


class Floor(msgspec.Struct):
    """G3: one floor: its two spaces (left, right: a room card id or ``None``), its light, its cat, its ghosts."""

    rooms: list[int | None]
    lit: bool = False
    cat: int | None = None
    ghosts: list[int] = []


class House(msgspec.Struct):
    """G3: ``floors[0]`` is floor 1, ``floors[2]`` floor 3; the roof holds nothing."""

    floors: list[Floor]


class Attack(msgspec.Struct, frozen=True):
    """A ghost played on ``target``'s ``floor`` (1–3) waiting for the target's cat decision (G5, G11)."""

    attacker: int
    ghost: int
    target: int
    floor: int


class Escape(msgspec.Struct):
    """G11: ``seat`` tries to escape; ``askers`` are the seats still to be offered a ghost, in order."""

    seat: int
    askers: list[int]


MAX_ROUNDS_LIMIT = 1000


class Options(msgspec.Struct, forbid_unknown_fields=True):
    """``max_rounds``: after that many full rounds without an escape the game ends (see README, Ghost at Home)."""

    max_rounds: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS_LIMIT)] = 100


class State(msgspec.Struct):
    """``pile``'s last element is its top; ``discard`` is the face-up discard pile (played cards, public);
    ``hidden_discard`` the face-down cards of G9 discards (others know only how many).  ``turn`` counts the
    turns begun before the current one; ``selected`` holds the cards (still in hand) chosen so far for a G7
    light or a G9 discard."""

    seats: int
    rng: Rng
    max_rounds: int
    pile: list[int]
    hands: list[list[int]]
    houses: list[House]
    discard: list[int] = []
    hidden_discard: list[int] = []
    active: int = 0
    turn: int = 0
    phase: Phase = "turn"
    selected: list[int] = []
    attack: Attack | None = None
    escape: Escape | None = None
    winners: list[int] = []
    end: Literal["", "escaped", "round_limit"] = ""
