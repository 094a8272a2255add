"""Checks that a seat's view and events hold nothing hidden from it (shared by the unit and property tests)."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from engine.mansion import GAME
from engine.mansion.events import DialSet, HauntDiscarded, HauntDrawn
from engine.mansion.state import NO_BID, PH_OVER, State
from engine.mansion.view import View
from engine.rng import Rng


def assert_view_hides(s: State, seat: int | None) -> None:
    """Structurally: only the viewer's own Haunt values (all of them once the game is over), never a deck."""
    view = GAME.view(s, seat)
    assert isinstance(view, View)
    over = s.phase == PH_OVER
    for owner, hand in enumerate(view.haunt):
        if over or owner == seat:
            assert hand == s.hands[owner]
        else:
            assert hand is None
    assert view.haunt_counts == [len(h) for h in s.hands]
    assert isinstance(view.ghost_deck, int) and isinstance(view.haunt_deck, int)
    assert isinstance(view.events_left, int) and isinstance(view.events_removed, int)
    own = NO_BID
    if s.duel and seat is not None:
        own = {s.duel[0]: s.duel[3], s.duel[1]: s.duel[4]}.get(seat, NO_BID)
    assert view.my_bid == (None if own == NO_BID else own)


def assert_event_hides(event: Any, seat: int | None) -> None:
    seen = GAME.redact(event, seat)
    assert seen is not None
    if isinstance(event, HauntDrawn):
        assert isinstance(seen, HauntDrawn) and seen.count == event.count
        assert seen.values == (event.values if seat == event.seat else None)
    elif isinstance(event, HauntDiscarded):
        assert isinstance(seen, HauntDiscarded)
        assert seen.value == (event.value if seat == event.seat else None)
    elif isinstance(event, DialSet):
        assert isinstance(seen, DialSet)
        assert seen.bid == (event.bid if seat == event.seat else None)
    else:
        assert seen == event


def perturbed(s: State, seat: int | None, rnd: random.Random) -> State:
    """A copy differing from ``s`` in everything hidden from ``seat``: other hands' values (same counts), deck
    orders, removed Event cards, the generator, the other duellist's set bid."""
    t: State = GAME.decode_state(GAME.encode_state(s))
    if t.phase == PH_OVER:
        return t
    t.rng = Rng(rnd.randbytes(32), rnd.randrange(1000))
    others = [o for o in range(t.seats) if o != seat]
    pool = t.haunt_deck + [v for o in others for v in t.hands[o]]
    rnd.shuffle(pool)
    for o in others:
        n = len(t.hands[o])
        t.hands[o], pool = sorted(pool[:n]), pool[n:]
    t.haunt_deck = pool
    rnd.shuffle(t.ghost_deck)
    events = t.event_deck + t.removed_events
    rnd.shuffle(events)
    t.event_deck, t.removed_events = events[: len(t.event_deck)], events[len(t.event_deck) :]
    if t.duel:
        for index, duellist in ((3, t.duel[0]), (4, t.duel[1])):
            if duellist != seat and t.duel[index] != NO_BID:
                t.duel[index] = rnd.randrange(4)
    return t


def assert_view_independent_of_hidden(s: State, seat: int | None, rnd: random.Random) -> None:
    other = perturbed(s, seat, rnd)
    assert msgspec.msgpack.encode(GAME.view(s, seat)) == msgspec.msgpack.encode(GAME.view(other, seat))
