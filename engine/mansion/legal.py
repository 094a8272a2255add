"""Which actions are legal now, one list per kind of action; ``apply`` validates against the same lists.

Choices between identical things are offered once: Collect and Duel one action per distinct card kind, a Haunt
discard one per distinct value held.
"""

from __future__ import annotations

from typing import Final

from engine.mansion.actions import (
    COLLECT,
    DISCARD,
    DUEL,
    MOVE_TO,
    ROTATE_TO,
    Collect,
    DiscardHaunt,
    Duel,
    Move,
    Rotate,
)
from engine.mansion.cards import (
    BOLD_CHALLENGE,
    HEAVY_FOOTSTEPS,
    LOCKED_HALLWAY,
    OPEN_DOORS,
    RESTLESS_SPIRITS,
    ROOM_COUNT,
    SEANCE,
    SEANCE_SEALED,
    SECTIONS,
    TRUCE,
)
from engine.mansion.state import State


def _reachable(start: int, long_move: bool) -> list[Move]:
    """M14: the Séance Room ↔ any section, a section ↔ its neighbours (no wrap across the gap); with a 2-step
    move (heavy_footsteps, M7) also sections two apart and, through the Séance Room, every other section."""
    if start == SEANCE:
        return [MOVE_TO[to] for to in range(SECTIONS)]
    if long_move:
        return [MOVE_TO[to] for to in range(SEANCE, SECTIONS) if to != start]
    return [MOVE_TO[SEANCE], *(MOVE_TO[to] for to in (start - 1, start + 1) if 0 <= to < SECTIONS)]


_MOVES: Final = {(start, long): _reachable(start, long) for start in MOVE_TO for long in (False, True)}
_ROTATIONS: Final = [[ROTATE_TO[r] for r in range(ROOM_COUNT) if r != current] for current in range(ROOM_COUNT)]


def moves(s: State, seat: int) -> list[Move]:
    """M14 (1 action); heavy_footsteps (M7): one move of the turn may cross 2 steps."""
    if not s.actions:
        return []
    return _MOVES[s.pos[seat], s.event == HEAVY_FOOTSTEPS and not s.long_move_used]


def rotations(s: State) -> list[Rotate]:
    """M15: to any other rotation (1 action; the turn's first is free under open_doors, none under
    locked_hallway: M7)."""
    if s.event == LOCKED_HALLWAY:
        return []
    if s.actions or (s.event == OPEN_DOORS and not s.free_rotate_used):
        return _ROTATIONS[s.rotation]
    return []


def collects(s: State, seat: int) -> list[Collect]:
    """M16: one per distinct kind of Ghost card in the seat's room (never in the Séance Room, M3)."""
    here = s.pos[seat]
    if not s.actions or here == SEANCE:
        return []
    return [COLLECT[kind] for kind in dict.fromkeys(s.rooms[(here + s.rotation) % ROOM_COUNT])]


def duels(s: State, seat: int) -> list[Duel]:
    """M17: once per turn (twice under restless_spirits, never under truce, free under bold_challenge: M7),
    against a seat in the same location holding a Ghost card, for one kind of card it holds."""
    event = s.event
    if event == TRUCE or s.duels >= (2 if event == RESTLESS_SPIRITS else 1):
        return []
    if not s.actions and event != BOLD_CHALLENGE:
        return []
    here = s.pos[seat]
    found: list[Duel] = []
    for target, where in enumerate(s.pos):
        if where == here and target != seat and s.collections[target]:
            row = DUEL[target]
            found += [row[kind] for kind in dict.fromkeys(s.collections[target])]
    return found


def discards(s: State, seat: int) -> list[DiscardHaunt]:
    """M18: in the Séance Room, once per turn, for an action (never under seance_sealed, M7)."""
    if not s.actions or s.discarded or s.event == SEANCE_SEALED or s.pos[seat] != SEANCE:
        return []
    return hand_discards(s, seat)


def hand_discards(s: State, seat: int) -> list[DiscardHaunt]:
    """One discard per distinct Haunt value the seat holds (cards of equal value are interchangeable)."""
    return [DISCARD[value] for value in dict.fromkeys(s.hands[seat])]
