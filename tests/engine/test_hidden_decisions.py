"""What a seat learns from deciding, in every game, over random playouts: nothing hidden from it.

The games' own property suites check views and events.  A seat also learns from the prompts (sent to the whole
table), from its legal actions, from the rules' default the server plays for it when its time runs out, and from
the engine's answer to anything it sends: accepted, or refused with a code and a detail that the server passes on
as the error's text.  A cheating client can send any action, so every answer is a probe.  Each of these must stay
the same when everything hidden from that seat changes (another seat's hand, a deck's order, the generator,
another duellist's bid, another seat's picks): each game's own scrambler makes that copy.

One documented exception (README, Spook S11): a hunt is legal only when the hunters' cards can reach it. So
whether the active seat may start a hunt, and the refusal when it may not, depend on the other hunters' hands,
as table talk would in this cooperative game.  Everything else about a Spook decision is checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.contract import Game, IllegalAction
from engine.mansion.actions import ChooseDirection, Collect, Decline, Dial, DiscardHaunt, Duel, EndTurn, Move, Rotate
from engine.mansion.cards import KIND_NAMES
from engine.playout import random_playout
from engine.registry import get_game
from engine.rng import seed_from_int
from engine.spook.actions import StartHunt
from tests.engine.ghost_at_home.tables import scramble_hidden
from tests.engine.ghost_at_home.test_properties import random_action as ghost_action
from tests.engine.mansion.hidden import perturbed
from tests.engine.spook.test_properties import CANDIDATES as SPOOK_ACTIONS
from tests.engine.spook.test_properties import _shuffled_hidden, playout

Scramble = Callable[[Any, int | None, random.Random], Any]

SCRAMBLE: dict[str, Scramble] = {"mansion": perturbed, "spook": _shuffled_hidden, "ghost-at-home": scramble_hidden}


def mansion_action(rnd: random.Random) -> Any:
    kind = rnd.choice(KIND_NAMES)
    return rnd.choice(
        [
            Move(rnd.randint(-2, 7)),
            Rotate(rnd.randint(-1, 8)),
            Collect(kind),
            Duel(rnd.randint(-1, 6), kind),
            DiscardHaunt(rnd.randint(0, 4)),
            EndTurn(),
            Dial(rnd.randint(-1, 4)),
            ChooseDirection(rnd.choice(["cw", "ccw"])),
            Decline(),
        ]
    )


PROBES: dict[str, Callable[[random.Random], Any]] = {
    "mansion": mansion_action,
    "spook": lambda rnd: rnd.choice(SPOOK_ACTIONS),
    "ghost-at-home": ghost_action,
}


def documented(game: str, action: Any) -> bool:
    """The one decision allowed to depend on hidden cards: starting a Spook hunt (S11, see the module doc)."""
    return game == "spook" and isinstance(action, StartHunt)


def answer(game: Game[Any, Any, Any], state: Any, seat: int, action: Any) -> tuple[str, str]:
    """What the engine answers ``seat`` for ``action``, as the client is told it, on a copy of ``state``."""
    copy = game.decode_state(game.encode_state(state))
    try:
        game.apply(copy, seat, action)
    except IllegalAction as exc:
        return exc.code, exc.detail
    return "accepted", ""


def encoded(value: Any) -> bytes:
    return msgspec.msgpack.encode(value)


def check_decisions(name: str, state: Any, rnd: random.Random) -> None:
    """Every decision of every seat at ``state`` is the same on a copy scrambled in what that seat cannot see;
    the prompts, which everyone sees, the same on a copy scrambled in what a spectator cannot see."""
    game = get_game(name)
    if game.result(state) is not None or rnd.random() < 0.6:  # a random 40% of the positions: many more games
        return
    prompts = game.prompts(state)
    spectators = SCRAMBLE[name](state, None, rnd)
    assert encoded(game.prompts(spectators)) == encoded(prompts), "the prompts depend on hidden information"
    acted_on = [action for seat in prompts for action in game.legal_actions(state, seat)]
    for seat in range(state.seats):
        other = SCRAMBLE[name](state, seat, rnd)
        legal = [a for a in game.legal_actions(state, seat) if not documented(name, a)]
        assert legal == [a for a in game.legal_actions(other, seat) if not documented(name, a)], (seat, legal)
        if seat in prompts:
            assert game.timeout_action(state, seat) == game.timeout_action(other, seat), seat
        # probes: random actions, and every action some prompted seat may take, sent by this seat
        for action in [PROBES[name](rnd) for _ in range(6)] + rnd.sample(acted_on, min(6, len(acted_on))):
            if documented(name, action):
                continue
            mine, theirs = answer(game, state, seat, action), answer(game, other, seat, action)
            assert mine == theirs, (seat, action, mine, theirs)


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(seats=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_mansion_decisions_hide_what_is_hidden(seats: int, seed: int) -> None:
    rnd = random.Random(seed)
    game = get_game("mansion")
    random_playout(
        game, seats, seed_from_int(seed), random.Random(seed), on_step=lambda s, *_: check_decisions("mansion", s, rnd)
    )


@SETTINGS
@given(seats=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_ghost_at_home_decisions_hide_what_is_hidden(seats: int, seed: int) -> None:
    rnd = random.Random(seed)
    game = get_game("ghost-at-home")
    random_playout(
        game,
        seats,
        seed_from_int(seed),
        random.Random(seed),
        on_step=lambda s, *_: check_decisions("ghost-at-home", s, rnd),
    )


@SETTINGS
@given(seats=st.integers(1, 4), seed=st.integers(0, 2**32), open_hands=st.booleans(), from_midgame=st.booleans())
def test_spook_decisions_hide_what_is_hidden_but_whether_a_hunt_can_be_reached(
    seats: int, seed: int, open_hands: bool, from_midgame: bool
) -> None:
    rnd = random.Random(seed)
    playout(seats, seed, open_hands, from_midgame, lambda s, *_: check_decisions("spook", s, rnd))
