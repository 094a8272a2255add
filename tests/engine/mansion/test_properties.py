"""Property tests over random legal playouts, 2–6 seats and many seeds (engine/playout.py)."""

import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.contract import IllegalAction
from engine.mansion import GAME
from engine.mansion.actions import (
    ChooseDirection,
    Collect,
    Decline,
    Dial,
    DiscardHaunt,
    Duel,
    EndTurn,
    Move,
    Rotate,
)
from engine.mansion.cards import KIND_NAMES
from engine.mansion.state import Options, State
from engine.playout import random_playout
from engine.rng import seed_from_int
from tests.engine.mansion.helpers import assert_conserved
from tests.engine.mansion.hidden import (
    assert_event_hides,
    assert_view_hides,
    assert_view_independent_of_hidden,
)
from tests.engine.refusal import assert_refused

SEATS = st.integers(min_value=2, max_value=6)
SEEDS = st.integers(min_value=0, max_value=2**32)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEAVY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ACTIONS = st.one_of(
    st.builds(Move, st.integers(-3, 8)),
    st.builds(Rotate, st.integers(-2, 9)),
    st.builds(Collect, st.sampled_from(KIND_NAMES)),
    st.builds(Duel, st.integers(-1, 7), st.sampled_from(KIND_NAMES)),
    st.builds(DiscardHaunt, st.integers(-1, 4)),
    st.just(EndTurn()),
    st.builds(Dial, st.integers(-2, 5)),
    st.builds(ChooseDirection, st.sampled_from(["cw", "ccw"])),
    st.just(Decline()),
)


def _encode(events: list[Any]) -> bytes:
    return msgspec.msgpack.encode(events)


@FAST
@given(seats=SEATS, seed=SEEDS)
def test_every_playout_ends_with_a_result_and_conserves_every_card(seats: int, seed: int) -> None:
    def check(state: State, seat: int, action: Any, events: list[Any]) -> None:
        assert_conserved(state)

    state, log = random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), on_step=check)
    result = GAME.result(state)
    assert result is not None and len(result.scores) == seats and result.winners
    assert result.seed == seed_from_int(seed).hex()
    assert GAME.prompts(state) == {} and log


@FAST
@given(seats=SEATS, seed=SEEDS)
def test_same_seed_and_actions_replay_byte_identical(seats: int, seed: int) -> None:
    trace: list[tuple[bytes, bytes]] = []

    def record(state: State, seat: int, action: Any, events: list[Any]) -> None:
        trace.append((GAME.encode_state(state), _encode(events)))

    _, log = random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), on_step=record)
    state = GAME.setup(seats, seed_from_int(seed), Options(), "bench")
    for (seat, action), (encoded, events) in zip(log, trace, strict=True):
        assert _encode(GAME.apply(state, seat, action)) == events
        assert GAME.encode_state(state) == encoded
        assert GAME.decode_state(encoded) == state


@FAST
@given(seats=SEATS, seed=SEEDS, tries=st.lists(st.tuples(st.integers(-1, 6), ACTIONS), min_size=8, max_size=8))
def test_illegal_actions_raise_and_leave_the_state_byte_identical(
    seats: int, seed: int, tries: list[tuple[int, Any]]
) -> None:
    refused = 0

    def probe(state: State, seat: int, action: Any, events: list[Any]) -> None:
        nonlocal refused
        prompted = GAME.prompts(state)
        attempts = list(tries)
        if prompted:  # a legal action of a prompted seat, sent by a seat that owes nothing
            owner = next(iter(prompted))
            attempts += [(other, GAME.legal_actions(state, owner)[0]) for other in range(-1, seats + 1)]
        for who, attempt in attempts:
            if who in prompted and attempt in GAME.legal_actions(state, who):
                continue
            assert_refused(GAME, state, who, attempt)
            refused += 1

    state, _ = random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), on_step=probe)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, EndTurn())
    assert err.value.code == "game_over"
    assert refused


@HEAVY
@given(seats=SEATS, seed=SEEDS)
def test_no_view_or_event_shows_another_seats_hidden_values(seats: int, seed: int) -> None:
    rnd = random.Random(seed)
    audiences: list[int | None] = [None, *range(seats)]

    def check(state: State, seat: int, action: Any, events: list[Any]) -> None:
        for viewer in audiences:
            assert_view_hides(state, viewer)
            assert_view_independent_of_hidden(state, viewer, rnd)
            for event in events:
                assert_event_hides(event, viewer)

    random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), on_step=check)


@FAST
@given(seats=SEATS, seed=SEEDS)
def test_legal_actions_are_accepted_and_timeouts_are_legal(seats: int, seed: int) -> None:
    state = GAME.setup(seats, seed_from_int(seed), Options(), "t")
    chooser = random.Random(seed)
    while GAME.result(state) is None:
        prompted = sorted(GAME.prompts(state))
        for seat in range(seats):
            legal = GAME.legal_actions(state, seat)
            assert bool(legal) == (seat in prompted)
            assert len(set(legal)) == len(legal)
        seat = chooser.choice(prompted)
        fallback = GAME.timeout_action(state, seat)
        assert fallback in GAME.legal_actions(state, seat)
        action = fallback if chooser.random() < 0.3 else chooser.choice(GAME.legal_actions(state, seat))
        GAME.apply(state, seat, GAME.decode_action(msgspec.json.encode(action)))


def test_random_playouts_reach_every_prompt_kind() -> None:
    """The properties above see every decision: turns, dials, both directions, both optional discards."""
    seen: set[str] = set()

    def note(state: State, seat: int, action: Any, events: list[Any]) -> None:
        seen.update(p.kind for p in GAME.prompts(state).values())

    for seed in range(40):
        random_playout(GAME, 2 + seed % 5, seed_from_int(seed), random.Random(seed), on_step=note)
    assert seen == {"turn", "dial", "event_direction", "tea_party", "grim_grinning", "candlelight"}
