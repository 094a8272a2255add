"""Invariants over random legal playouts (``engine.playout``) for 1–4 seats and many seeds."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.playout import random_playout
from engine.rng import seed_from_int
from engine.spook import GAME
from engine.spook.actions import Done, Draw, EndTurn, LayTrap, Move, Offer, Roll, SpookAction, StartHunt, StopMoving
from engine.spook.board import LOCATIONS, ROOMS
from engine.spook.cards import DECK, QUEEN, TRAPS, is_ghost
from engine.spook.events import HuntAbandoned, SpookEvent
from engine.spook.state import SpookOptions, SpookState
from tests.engine.playouts import Resumed
from tests.engine.refusal import assert_refused
from tests.engine.spook.helpers import census, make_state

FULL = Counter(DECK)
SEATS = st.integers(min_value=1, max_value=4)
SEEDS = st.integers(min_value=0, max_value=2**32)
CANDIDATES: list[SpookAction] = [
    Draw(),
    Roll(),
    StopMoving(),
    EndTurn(),
    Done(),
    *(Move(pawn=p, to=to) for p in range(-1, 5) for to in (*LOCATIONS, "attic")),
    *(StartHunt(ghost=g, kind=k) for g in (*DECK, None) for k in ("normal", "king", "wing")),
    *(LayTrap(card=c) for c in (*DECK, "XX")),
    *(Offer(card=c) for c in (*DECK, "XX")),
]


def midgame(seats: int, seed: int, open_hands: bool) -> SpookState:
    """A random mid-game position (the draw of a random seat) reaching what random play from setup rarely does:
    a crowded board, ghosts on the staircase, the Queen out, laid traps, big hands, a short pile."""
    rng = random.Random(seed)
    cards = list(DECK)
    rng.shuffle(cards)
    ghosts = [c for c in cards if is_ghost(c)]
    reds = [c for c in cards if not is_ghost(c) and c not in TRAPS]
    density = rng.random()
    rooms = {room: ghosts.pop() for room in ROOMS if rng.random() < density}
    staircase = [ghosts.pop() for _ in range(rng.randrange(4))]
    traps = {rng.choice(ROOMS): jack for jack in TRAPS if rng.random() < 0.5}
    hands = [[reds.pop() for _ in range(rng.randrange(5))] for _ in range(seats)]
    hands[0] += [j for j in TRAPS if j not in traps.values()]
    rest = reds + ghosts
    rng.shuffle(rest)
    pile = [c for c in rest if c == QUEEN or rng.random() < 0.5] or [rest[0]]
    return make_state(
        seats,
        hands=hands,
        pile=pile,
        rooms=rooms,
        staircase=staircase,
        traps=traps,
        pawns=[rng.choice(LOCATIONS) for _ in range(seats)],
        omen=rng.choice(ROOMS),
        phase="draw",
        active=rng.randrange(seats),
        open_hands=open_hands,
    )


def playout(
    seats: int, seed: int, open_hands: bool, from_midgame: bool, on_step: Any
) -> tuple[bytes, SpookState, list[tuple[int, Any]]]:
    """A random legal playout from setup, or from a random mid-game position; returns the first state encoded."""
    options = SpookOptions(open_hands=open_hands)
    start = midgame(seats, seed, open_hands) if from_midgame else GAME.setup(seats, seed_from_int(seed), options, "t")
    first = GAME.encode_state(start)
    game: Any = Resumed(GAME, start)
    state, log = random_playout(game, seats, seed_from_int(seed), random.Random(seed), on_step=on_step)
    return first, state, log


@settings(max_examples=60, deadline=None)
@given(seats=SEATS, seed=SEEDS, open_hands=st.booleans(), from_midgame=st.booleans())
def test_playouts_end_with_a_shared_result_and_conserve_the_47_cards(
    seats: int, seed: int, open_hands: bool, from_midgame: bool
) -> None:
    """S1, S15: every card is somewhere after every action; the game ends, won or lost by every seat together."""

    def check(state: SpookState, seat: int, action: Any, events: list[SpookEvent]) -> None:
        assert census(state) == FULL
        assert all(0 <= p.seat < seats for p in (state.hunt.offered if state.hunt else []))

    _, final, log = playout(seats, seed, open_hands, from_midgame, check)
    result = GAME.result(final)
    assert result is not None and log
    assert result.scores in ([0] * seats, [1] * seats)
    assert result.winners == (list(range(seats)) if result.scores[0] else [])
    assert GAME.prompts(final) == {} and all(GAME.legal_actions(final, s) == [] for s in range(seats))


@settings(max_examples=50, deadline=None)
@given(seats=SEATS, seed=SEEDS, open_hands=st.booleans(), from_midgame=st.booleans())
def test_same_seed_and_actions_replay_byte_identical(
    seats: int, seed: int, open_hands: bool, from_midgame: bool
) -> None:
    frames: list[tuple[bytes, bytes]] = []

    def record(state: SpookState, seat: int, action: Any, events: list[SpookEvent]) -> None:
        frames.append((GAME.encode_state(state), msgspec.msgpack.encode(events)))

    first, _, log = playout(seats, seed, open_hands, from_midgame, record)
    state = GAME.decode_state(first)
    for (seat, action), (encoded, events) in zip(log, frames, strict=True):
        wire = GAME.decode_action(msgspec.json.encode(action))  # through the wire format, too
        assert msgspec.msgpack.encode(GAME.apply(state, seat, wire)) == events
        assert GAME.encode_state(state) == encoded


@settings(max_examples=40, deadline=None)
@given(seats=SEATS, seed=SEEDS, from_midgame=st.booleans())
def test_apply_accepts_exactly_the_legal_actions_and_a_refusal_changes_nothing(
    seats: int, seed: int, from_midgame: bool
) -> None:
    picker = random.Random(seed)

    def probe(state: SpookState, seat: int, action: Any, events: list[SpookEvent]) -> None:
        before = GAME.encode_state(state)
        prompted = GAME.prompts(state)
        for who in range(seats):
            legal = GAME.legal_actions(state, who)
            assert (who in prompted) == bool(legal)
            assert len(legal) < 60
            for candidate in legal:
                GAME.apply(GAME.decode_state(before), who, candidate)  # never raises
            for candidate in picker.sample(CANDIDATES, 6):
                if candidate in legal:
                    continue
                assert_refused(GAME, state, who, candidate)

    playout(seats, seed, False, from_midgame, probe)


def _shuffled_hidden(state: SpookState, viewer: int | None, rng: random.Random) -> SpookState:
    """A copy where every card the viewer may not see (the pile, other hands) is dealt again at random."""
    copy = GAME.decode_state(GAME.encode_state(state))
    hidden_hands = [] if state.options.open_hands else [s for s in range(state.seats) if s != viewer]
    slots = [copy.pile, *(copy.hands[s] for s in hidden_hands)]
    cards = [c for slot in slots for c in slot]
    rng.shuffle(cards)
    for slot in slots:
        slot[:], cards = cards[: len(slot)], cards[len(slot) :]
    return copy


@settings(max_examples=50, deadline=None)
@given(seats=SEATS, seed=SEEDS, open_hands=st.booleans(), from_midgame=st.booleans())
def test_no_view_or_event_shows_another_hand_or_the_pile(
    seats: int, seed: int, open_hands: bool, from_midgame: bool
) -> None:
    rng = random.Random(seed)
    viewers: list[int | None] = [*range(seats), None]

    def inspect(state: SpookState, seat: int, action: Any, events: list[SpookEvent]) -> None:
        returned = {o.card for e in events if isinstance(e, HuntAbandoned) for o in e.returned}
        for viewer in viewers:
            view = GAME.view(state, viewer)
            assert all((h is not None) == (open_hands or s == viewer) for s, h in enumerate(view.hands))
            other = GAME.view(_shuffled_hidden(state, viewer, rng), viewer)
            assert msgspec.msgpack.encode(other) == msgspec.msgpack.encode(view)
            secret = set(state.pile)
            if not open_hands:
                secret |= {c for s, h in enumerate(state.hands) if s != viewer for c in h} - returned
            for event in events:
                text = msgspec.json.encode(GAME.redact(event, viewer)).decode()
                assert not any(f'"{c}"' in text for c in secret), (viewer, event)

    playout(seats, seed, open_hands, from_midgame, inspect)
