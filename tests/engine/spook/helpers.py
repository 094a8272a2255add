"""Building Spook states by hand for the ruling tests, and the card census every test relies on."""

from __future__ import annotations

from collections import Counter

from engine.rng import Rng, seed_from_int
from engine.spook.board import FOYER, ROOM_INDEX
from engine.spook.cards import DECK
from engine.spook.state import Phase, SpookOptions, SpookState


def census(state: SpookState) -> Counter[str]:
    """Every card wherever it is: pile, hands, rooms, staircase, traps, discard, a hunt's offered cards."""
    cards = [*state.pile, *state.staircase, *state.discard]
    cards += [c for hand in state.hands for c in hand]
    cards += [c for c in state.rooms if c is not None] + [c for c in state.traps if c is not None]
    if state.hunt is not None:
        cards += [o.card for o in state.hunt.offered]
    return Counter(cards)


def make_state(
    seats: int = 1,
    *,
    hands: list[list[str]] | None = None,
    pile: list[str] | None = None,
    rooms: dict[str, str] | None = None,
    staircase: list[str] | None = None,
    traps: dict[str, str] | None = None,
    pawns: list[str] | None = None,
    omen: str = "1",
    phase: Phase = "turn",
    active: int = 0,
    open_hands: bool = False,
) -> SpookState:
    """A state with the given placements; every card not placed goes to the pile (deck order, ``"QS"`` last
    drawn) when ``pile`` is not given, else to the discard, so all 47 cards are always accounted for."""
    hands = hands if hands is not None else [[] for _ in range(seats)]
    rooms = rooms or {}
    traps = traps or {}
    staircase = staircase or []
    placed = [c for h in hands for c in h] + list(rooms.values()) + list(traps.values()) + staircase + (pile or [])
    rest = [c for c in DECK if c not in placed]
    state = SpookState(
        seats=seats,
        options=SpookOptions(open_hands=open_hands),
        rng=Rng(seed_from_int(0)),
        pile=list(pile) if pile is not None else rest,
        hands=[list(h) for h in hands],
        pawns=list(pawns) if pawns is not None else [FOYER] * seats,
        omen=omen,
        rooms=[None] * 10,
        staircase=list(staircase),
        traps=[None] * 10,
        discard=rest if pile is not None else [],
        active=active,
        phase=phase,
    )
    for room, ghost in rooms.items():
        state.rooms[ROOM_INDEX[room]] = ghost
    for room, trap in traps.items():
        state.traps[ROOM_INDEX[room]] = trap
    if phase == "move":
        state.roll = state.steps_left = 3
    assert census(state) == Counter(DECK)
    return state
