"""Spook turn rules: setup (S5–S7), drawing and ghosts appearing (S8, S9), the die and the move (S10), traps
(S13), the end of a turn (S14) and of the game (S15).  Hunts (S11, S12) are in ``engine.spook.hunt``.

Each ``check_*`` raises ``IllegalAction`` without touching the state; each ``do_*`` mutates the state in place
and appends the events.
"""

from __future__ import annotations

from engine.contract import IllegalAction
from engine.rng import Rng
from engine.spook.actions import LayTrap, Move
from engine.spook.board import FOYER, NEIGHBOURS, ROOM_INDEX, STAIRCASE, WINGS, first_free
from engine.spook.cards import BLACK, QUEEN, RED, TRAPS, is_ghost, room_of
from engine.spook.events import (
    CardDrawn,
    DieRolled,
    GameOver,
    GhostAppeared,
    MoveStopped,
    OmenMoved,
    PawnMoved,
    SpookEvent,
    TrapLaid,
    TrapSprung,
    TurnEnded,
)
from engine.spook.state import EndReason, SpookOptions, SpookState

BOTTOM_CARDS = 10
"""S7: cards taken from the pile to be shuffled with the Queen under it."""


def hand_size(seats: int) -> int:
    """S5: 3 red cards each, 2 each with 3 or 4 seats."""
    return 3 if seats <= 2 else 2


def setup(seats: int, seed: bytes, options: SpookOptions) -> SpookState:
    """S5–S7, in the source's order; cards are dealt one at a time round the table from the top (the end)."""
    rng = Rng(seed)
    red, black = list(RED), list(BLACK)
    rng.shuffle(red)
    rng.shuffle(black)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for _ in range(hand_size(seats)):
        for hand in hands:
            hand.append(red.pop())
    first = black.pop()  # S6: the staircase ghost
    pile = red + black
    rng.shuffle(pile)
    bottom = [*pile[-BOTTOM_CARDS:], QUEEN]
    del pile[-BOTTOM_CARDS:]
    rng.shuffle(bottom)
    return SpookState(
        seats=seats,
        options=options,
        rng=rng,
        pile=bottom + pile,
        hands=hands,
        pawns=[FOYER] * seats,
        omen=room_of(first),
        rooms=[None] * len(ROOM_INDEX),
        staircase=[first],
        traps=[None] * len(ROOM_INDEX),
        discard=[],
    )


def end_game(
    state: SpookState, won: bool, reason: EndReason, events: list[SpookEvent], wing: str | None = None
) -> None:
    """S15: the game is over for every seat at once."""
    state.phase = "over"
    state.outcome = "won" if won else "lost"
    state.reason = reason
    events.append(GameOver(won=won, reason=reason, wing=wing))


def draw_card(state: SpookState, seat: int, after_hunt: bool, events: list[SpookEvent]) -> None:
    """S8 (turn draw: red to the hand) and S12 (after a hunt: red to the discard); black appears (S9).
    An empty pile when a draw is due loses the game (S15)."""
    if not state.pile:
        end_game(state, False, "pile_empty", events)
        return
    card = state.pile.pop()
    left = len(state.pile)
    if is_ghost(card):
        events.append(CardDrawn(seat=seat, card=card, destination="board", public=True, pile_size=left))
        appear(state, card, events)
    elif after_hunt:
        state.discard.append(card)
        events.append(CardDrawn(seat=seat, card=card, destination="discard", public=True, pile_size=left))
    else:
        state.hands[seat].append(card)
        public = state.options.open_hands
        events.append(CardDrawn(seat=seat, card=card, destination="hand", public=public, pile_size=left))


def appear(state: SpookState, ghost: str, events: list[SpookEvent]) -> None:
    """S9: the ghost takes the omen's room or the first free room above it (10 wraps to 1), the staircase when
    every room is haunted.  A trap there destroys it (both discarded) — the Queen stays and only the trap goes.
    The omen then moves to the room numbered like the ghost (not for the Queen), trapped or not."""
    rooms = state.rooms
    free = first_free(rooms, state.omen)
    if free is None:
        state.staircase.append(ghost)
        events.append(GhostAppeared(ghost=ghost, location=STAIRCASE))
    else:
        room = str(free + 1)
        events.append(GhostAppeared(ghost=ghost, location=room))
        trap = state.traps[free]
        if trap is None:
            rooms[free] = ghost
        else:
            state.traps[free] = None
            destroyed = ghost != QUEEN
            if destroyed:
                state.discard.append(ghost)
            else:
                rooms[free] = ghost
            state.discard.append(trap)
            events.append(TrapSprung(room=room, trap=trap, ghost=ghost, ghost_destroyed=destroyed))
    if ghost != QUEEN and room_of(ghost) != state.omen:
        state.omen = room_of(ghost)
        events.append(OmenMoved(room=state.omen))


def do_draw(state: SpookState, events: list[SpookEvent]) -> None:
    """S8: the active seat draws, then rolls."""
    draw_card(state, state.active, False, events)
    if state.phase == "draw":
        state.phase = "roll"


def do_roll(state: SpookState, events: list[SpookEvent]) -> None:
    """S10: a d6 from the state's generator gives the doors the seat may move one pawn through."""
    state.roll = state.steps_left = state.rng.below(6) + 1
    state.moving_pawn = None
    state.phase = "move"
    events.append(DieRolled(seat=state.active, value=state.roll))


def move_options(state: SpookState) -> list[Move]:
    """S10: one step of the move — any pawn before the first step, the same pawn after it."""
    pawns = range(state.seats) if state.moving_pawn is None else (state.moving_pawn,)
    return [Move(pawn=p, to=to) for p in pawns for to in NEIGHBOURS[state.pawns[p]]]


def check_move(state: SpookState, action: Move) -> None:
    if not 0 <= action.pawn < state.seats:
        raise IllegalAction("illegal_move", f"no pawn {action.pawn}")
    if state.moving_pawn is not None and action.pawn != state.moving_pawn:
        raise IllegalAction("illegal_move", f"this turn moves pawn {state.moving_pawn} only (S10)")
    if action.to not in NEIGHBOURS[state.pawns[action.pawn]]:
        raise IllegalAction("illegal_move", f"no door from {state.pawns[action.pawn]} to {action.to!r} (S4)")


def do_move(state: SpookState, action: Move, events: list[SpookEvent]) -> None:
    origin = state.pawns[action.pawn]
    state.pawns[action.pawn] = action.to
    state.moving_pawn = action.pawn
    state.steps_left -= 1
    if state.steps_left == 0:
        state.phase = "turn"
    events.append(PawnMoved(pawn=action.pawn, origin=origin, to=action.to, steps_left=state.steps_left))


def do_stop_moving(state: SpookState, events: list[SpookEvent]) -> None:
    """S10: "up to" that many doors: the seat may stop early (or not move at all)."""
    events.append(MoveStopped(seat=state.active, steps_left=state.steps_left))
    state.steps_left = 0
    state.phase = "turn"


def trap_options(state: SpookState) -> list[LayTrap]:
    """S13: a red Jack from the hand onto the active seat's room, one trap per room."""
    index = ROOM_INDEX.get(state.pawns[state.active])
    if index is None or state.traps[index] is not None:
        return []
    return [LayTrap(card=c) for c in state.hands[state.active] if c in TRAPS]


def check_lay_trap(state: SpookState, action: LayTrap) -> None:
    place = state.pawns[state.active]
    index = ROOM_INDEX.get(place)
    if index is None:
        raise IllegalAction("illegal_move", f"traps go in rooms, not the {place} (S13)")
    if state.traps[index] is not None:
        raise IllegalAction("illegal_move", f"room {place} already has a trap (S13)")
    if action.card not in TRAPS or action.card not in state.hands[state.active]:
        raise IllegalAction("illegal_move", f"{action.card!r} is not a red Jack in your hand (S13)")


def do_lay_trap(state: SpookState, action: LayTrap, events: list[SpookEvent]) -> None:
    room = state.pawns[state.active]
    state.hands[state.active].remove(action.card)
    state.traps[ROOM_INDEX[room]] = action.card
    events.append(TrapLaid(seat=state.active, trap=action.card, room=room))


def haunted_wing(state: SpookState) -> str | None:
    """S15: a wing whose three rooms each hold a ghost, if any."""
    for wing, rooms in WINGS.items():
        if all(state.rooms[ROOM_INDEX[r]] is not None for r in rooms):
            return wing
    return None


def do_end_turn(state: SpookState, events: list[SpookEvent]) -> None:
    """S14, S15: a haunted wing at the end of a turn loses; else the next seat's draw is due, and an empty pile
    loses at once."""
    wing = haunted_wing(state)
    if wing is not None:
        end_game(state, False, "wing_haunted", events, wing)
        return
    seat = state.active
    state.active = (seat + 1) % state.seats
    state.turn += 1
    state.phase = "draw"
    state.roll = state.steps_left = 0
    state.moving_pawn = None
    state.let_go = []
    events.append(TurnEnded(seat=seat, next_seat=state.active))
    if not state.pile:
        end_game(state, False, "pile_empty", events)
