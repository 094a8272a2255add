"""Property tests over random legal playouts (engine/playout.py) for 2–5 seats: termination, card
conservation, exact replay, refused actions change nothing, and no seat or spectator learns a hidden value."""

import random
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ghost_at_home import GAME
from engine.ghost_at_home import actions as a
from engine.ghost_at_home import events as e
from engine.ghost_at_home.cards import DECK_SIZE
from engine.ghost_at_home.house import is_explored
from engine.ghost_at_home.state import State
from engine.playout import random_playout
from engine.rng import seed_from_int
from tests.engine.ghost_at_home.tables import all_cards, scramble_hidden
from tests.engine.refusal import assert_refused

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
games = given(seats=st.integers(2, 5), seed=st.integers(0, 2**32))

HIDDEN_EVENTS = (e.Drew, e.Discarded, e.CardSelected)
CARD_FIELDS = ("card", "ghost", "cat", "cards")


def cards_in(event: e.Event) -> set[int]:
    found: set[int] = set()
    for name in CARD_FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, int):
            found.add(value)
        elif isinstance(value, list):
            found.update(value)
    return found


def public_cards(state: State) -> set[int]:
    """Cards lying face up: in a house, on the face-up discard pile, or a ghost waiting for a cat decision."""
    found = set(state.discard)
    for house in state.houses:
        for floor in house.floors:
            found.update(r for r in floor.rooms if r is not None)
            found.update(floor.ghosts)
            found.update([] if floor.cat is None else [floor.cat])
    if state.attack is not None:
        found.add(state.attack.ghost)
    return found


def random_action(rng: random.Random) -> Any:
    """Any action shape with small random fields, legal or not."""
    card, n, seat = rng.randrange(-1, DECK_SIZE + 1), rng.randrange(0, 5), rng.randrange(-1, 6)
    return rng.choice(
        [
            a.PlayRoom(card, n, rng.choice(["left", "right"])),
            a.StopBuilding(),
            a.PlayGhost(card, seat),
            a.PlayCat(card, n),
            a.LightCard(card),
            a.LightFloor(n),
            a.SpaceTimeHole(seat, n, rng.randrange(-1, 6)),
            a.LightBulb(n),
            a.CatFood(seat, n, rng.randrange(0, 5)),
            a.Elevator(n, rng.randrange(0, 5)),
            a.Lightning(seat),
            a.Discard(card, rng.random() < 0.5),
            a.Pass(),
            a.Defend(card),
            a.StopEscape(card),
            a.Decline(),
        ]
    )


@SETTINGS
@games
def test_playouts_keep_every_invariant(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    previous: list[State] = []

    def check(state: State, seat: int, action: msgspec.Struct, events: list[e.Event]) -> None:
        before = previous.pop() if previous else GAME.setup(seats, seed_from_int(seed), GAME.default_options(), "p")
        # G1: all 53 cards, each exactly once
        assert sorted(all_cards(state)) == list(range(DECK_SIZE))
        assert all(len(h) <= 3 for h in state.hands)
        # G5, G6 (README): a ghost stays only alone on a lit floor, never with a cat; both need a room card there
        for floor in (f for house in state.houses for f in house.floors):
            assert len(floor.ghosts) <= 1 and not (floor.ghosts and (floor.cat is not None or not floor.lit))
            assert is_explored(floor) or (not floor.ghosts and floor.cat is None)
        # redaction: hidden events show cards to their owner only; public ones only cards already face up or
        # played from the acting seat's hand
        shown = public_cards(before) | set(before.hands[seat])
        for event in events:
            for viewer in [None, *range(seats)]:
                seen = GAME.redact(event, viewer)
                if isinstance(event, HIDDEN_EVENTS) and event.seat != viewer:
                    field = "card" if isinstance(event, e.CardSelected) else "cards"
                    assert seen == msgspec.structs.replace(event, **{field: None})
                else:
                    assert seen == event
            if not isinstance(event, HIDDEN_EVENTS):
                assert cards_in(event) <= shown, event
        # views: the same whatever the hidden values are
        viewer = rng.choice([None, *range(seats)])
        scrambled = scramble_hidden(state, viewer, rng)
        assert msgspec.msgpack.encode(GAME.view(scrambled, viewer)) == msgspec.msgpack.encode(GAME.view(state, viewer))
        # prompts: one seat at a time, always with a legal move and a legal timeout default
        prompts = GAME.prompts(state)
        assert len(prompts) <= 1
        for prompted in prompts:
            legal = GAME.legal_actions(state, prompted)
            assert legal and GAME.timeout_action(state, prompted) in legal
        # refused actions leave the state byte-identical
        encoded = GAME.encode_state(state)
        for _ in range(3):
            attempt = random_action(rng)
            who = rng.randrange(seats)
            if who in prompts and attempt in GAME.legal_actions(state, who):
                continue
            assert_refused(GAME, state, who, attempt)
        previous.append(GAME.decode_state(encoded))

    state, _ = random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), table_id="p", on_step=check)
    result = GAME.result(state)
    assert result is not None and GAME.prompts(state) == {}
    assert len(result.scores) == seats and set(result.winners) <= set(range(seats))
    if state.end == "escaped":
        assert result.winners and result.scores[result.winners[0]] == 6
    assert state.turn < state.max_rounds * seats


@SETTINGS
@games
def test_same_seed_and_actions_replay_byte_identically(seats: int, seed: int) -> None:
    trace: list[bytes] = []
    encoder = msgspec.msgpack.Encoder()

    def record(state: State, seat: int, action: msgspec.Struct, events: list[e.Event]) -> None:
        trace.append(GAME.encode_state(state) + encoder.encode(events))

    _, log = random_playout(GAME, seats, seed_from_int(seed), random.Random(seed), on_step=record)
    state = GAME.setup(seats, seed_from_int(seed), GAME.default_options(), "bench")
    for (seat, action), expected in zip(log, trace, strict=True):
        wire = GAME.decode_action(msgspec.json.encode(action))  # through JSON, as a client sends it
        events = GAME.apply(state, seat, wire)
        assert GAME.encode_state(state) + encoder.encode(events) == expected
    assert GAME.result(state) is not None
