"""Hand-arranged Ghost at Home tables for the rule tests; every arrangement only moves cards, so all 53 stay."""

from __future__ import annotations

import random

from engine.ghost_at_home import GAME
from engine.ghost_at_home.cards import DECK_SIZE, FLOOR, KIND
from engine.ghost_at_home.events import Event
from engine.ghost_at_home.house import SIDES, floor_of
from engine.ghost_at_home.state import Options, State
from engine.rng import seed_from_int


def table(seats: int = 2, seed: int = 0, max_rounds: int = 100, **hands: list[int]) -> State:
    """A fresh game with ``seatN=[cards]`` hands swapped in (the replaced cards go to the pile's bottom)."""
    state = GAME.setup(seats, seed_from_int(seed), Options(max_rounds), "test")
    for key, cards in hands.items():
        set_hand(state, int(key.removeprefix("seat")), cards)
    return state


def all_cards(state: State) -> list[int]:
    """Every card wherever it is, including a ghost waiting for a cat decision."""
    cards = state.pile + state.discard + state.hidden_discard + [c for h in state.hands for c in h]
    for house in state.houses:
        for floor in house.floors:
            cards += [r for r in floor.rooms if r is not None] + floor.ghosts
            cards += [] if floor.cat is None else [floor.cat]
    if state.attack is not None:
        cards.append(state.attack.ghost)
    return cards


def take(state: State, card: int) -> None:
    """Remove ``card`` from wherever it is."""
    for pile in (state.pile, state.discard, state.hidden_discard, *state.hands):
        if card in pile:
            pile.remove(card)
            return
    for house in state.houses:
        for floor in house.floors:
            if card in floor.rooms:
                floor.rooms[floor.rooms.index(card)] = None
                return
            if card in floor.ghosts:
                floor.ghosts.remove(card)
                return
            if floor.cat == card:
                floor.cat = None
                return
    raise AssertionError(f"card {card} is nowhere")


def set_hand(state: State, seat: int, cards: list[int]) -> None:
    old = [c for c in state.hands[seat] if c not in cards]
    for card in cards:
        take(state, card)
    for card in old:
        state.hands[seat].remove(card)
    state.pile[:0] = old
    state.hands[seat] = sorted(state.hands[seat] + cards)


def free(state: State, kind: str, floor: int = 0, n: int = 1) -> list[int]:
    """``n`` cards of ``kind`` (and room ``floor``) from the draw pile."""
    found = [c for c in state.pile if KIND[c] == kind and (not floor or FLOOR[c] == floor)][:n]
    assert len(found) == n, f"not {n} free {kind} cards"
    return found


def build(state: State, seat: int, floors: int, extra: int = 0) -> None:
    """Fill floors 1..``floors`` of ``seat``'s house with room cards from the pile, then ``extra`` more spaces
    on the next floor."""
    for number in range(1, floors + 2):
        spaces = 2 if number <= floors else extra
        for side, card in zip(SIDES[:spaces], free(state, "room", number, spaces), strict=True):
            take(state, card)
            floor_of(state.houses[seat], number).rooms[SIDES.index(side)] = card


def place(state: State, seat: int, number: int, *, cat: bool = False, ghost: bool = False, lit: bool = False) -> None:
    """Put a cat and/or a ghost from the pile on ``seat``'s floor ``number``; optionally light it."""
    floor = floor_of(state.houses[seat], number)
    if cat:
        (card,) = free(state, "cat")
        take(state, card)
        floor.cat = card
    if ghost:
        (card,) = free(state, "ghost")
        take(state, card)
        floor.ghosts.append(card)
    floor.lit = floor.lit or lit


def play(state: State, seat: int, *actions: object) -> list[Event]:
    """Apply each action in turn (each must be legal) and return all the events."""
    events: list[Event] = []
    for action in actions:
        assert action in GAME.legal_actions(state, seat), (action, GAME.legal_actions(state, seat))
        events += GAME.apply(state, seat, action)  # type: ignore[arg-type]
        assert sorted(all_cards(state)) == list(range(DECK_SIZE))
    return events


def scramble_hidden(state: State, viewer: int | None, rng: random.Random) -> State:
    """A copy of ``state`` in which everything ``viewer`` must not know is permuted: the pile's order and
    contents, the face-down discards, every other seat's hand (and its G7/G9 picks)."""
    copy = GAME.decode_state(GAME.encode_state(state))
    others = [s for s in range(copy.seats) if s != viewer]
    hidden = copy.pile + copy.hidden_discard + [c for s in others for c in copy.hands[s]]
    shuffled = list(hidden)
    rng.shuffle(shuffled)
    new = dict(zip(hidden, shuffled, strict=True))
    copy.pile = [new[c] for c in copy.pile]
    copy.hidden_discard = [new[c] for c in copy.hidden_discard]
    for s in others:
        copy.hands[s] = [new[c] for c in copy.hands[s]]
    if copy.active != viewer:
        copy.selected = [new[c] for c in copy.selected]
    return copy
