"""Building blocks for Call of the Spirits tests: a table at a chosen moment, cards moved between piles so that
every card stays accounted for, and the card-conservation check."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.mansion import GAME
from engine.mansion.actions import Action
from engine.mansion.cards import (
    EVENT_CARDS,
    EVENT_NAMES,
    HAUNT_COUNTS,
    KIND_INDEX,
    KINDS,
    SEANCE,
)
from engine.mansion.rules import start_turn
from engine.mansion.state import Options, State
from engine.rng import seed_from_int

GHOST_TOTALS = Counter({i: k.copies for i, k in enumerate(KINDS)})


def new_game(seats: int = 3, seed: int = 1, table_id: str = "t") -> State:
    return GAME.setup(seats, seed_from_int(seed), Options(), table_id)


def turn_table(seats: int = 3, event: str = "open_doors", seat: int = 0, seed: int = 1) -> State:
    """A table at the start of ``seat``'s turn under ``event``, every Ghost card back in the deck, nobody
    holding anything, everyone in the Séance Room, ghosts in the crypt, rotation 0."""
    s = new_game(seats, seed)
    for room in s.rooms:
        s.ghost_deck.extend(room)
        room.clear()
    put_event(s, event)
    s.ghosts = 0
    s.rotation = 0
    s.first = seat
    s.pos = [SEANCE] * seats
    start_turn(s, seat, [])
    return s


def put_event(s: State, name: str) -> None:
    """Make ``name`` the current Event card, swapping piles so every Event card stays accounted for."""
    wanted = EVENT_NAMES.index(name)
    if s.event == wanted:
        return
    for pile in (s.event_deck, s.removed_events, s.events_done):
        if wanted in pile:
            pile[pile.index(wanted)] = s.event
            break
    s.event = wanted


def put_room(s: State, room: int, *names: str) -> None:
    """Move Ghost cards from the deck into a room."""
    for name in names:
        kind = KIND_INDEX[name]
        s.ghost_deck.remove(kind)
        s.rooms[room].append(kind)
        s.rooms[room].sort()


def give(s: State, seat: int, *names: str) -> None:
    """Move Ghost cards from the deck into a collection."""
    for name in names:
        kind = KIND_INDEX[name]
        s.ghost_deck.remove(kind)
        s.collections[seat].append(kind)
        s.collections[seat].sort()


def on_top(s: State, *names: str) -> None:
    """Put Ghost cards on top of the deck, the first name on the very top."""
    for name in reversed(names):
        kind = KIND_INDEX[name]
        s.ghost_deck.remove(kind)
        s.ghost_deck.append(kind)


def haunt(s: State, seat: int, *values: int) -> None:
    """Move Haunt cards of these values from the deck into a hand."""
    for value in values:
        s.haunt_deck.remove(value)
        s.hands[seat].append(value)
        s.hands[seat].sort()


def haunt_on_top(s: State, *values: int) -> None:
    """Put Haunt cards of these values on top of the deck, the first value on the very top."""
    for value in reversed(values):
        s.haunt_deck.remove(value)
        s.haunt_deck.append(value)


def play(s: State, seat: int, action: Action) -> list[Any]:
    return GAME.apply(s, seat, action)


def types(events: list[Any]) -> list[str]:
    return [type(e).__struct_config__.tag for e in events]


def assert_conserved(s: State) -> None:
    """All 99 Ghost, 120 Haunt and 14 Event cards are somewhere, exactly once."""
    ghosts = Counter(s.ghost_deck)
    for pile in (*s.rooms, *s.collections, *s.discards):
        ghosts.update(pile)
    assert ghosts == GHOST_TOTALS
    haunts = Counter(s.haunt_deck)
    for hand in s.hands:
        haunts.update(hand)
    assert haunts == Counter(HAUNT_COUNTS)
    events = [*s.event_deck, *s.removed_events, *s.events_done, *([s.event] if s.event >= 0 else [])]
    assert sorted(events) == list(range(EVENT_CARDS))
