"""The Ghost at Home ``greedy`` strategy: it only ever plays a legal action, whatever the position and prompt;
it keeps its promises (builds, defends, stops escapes); it beats random bots by a wide margin; it decides fast."""

import random
import time
from collections import Counter
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.bots import get_strategy
from clients.bots.base import Decision, RandomStrategy
from clients.bots.ghost_at_home import STRATEGIES, GreedyGhostAtHome
from engine.ghost_at_home import GAME
from engine.ghost_at_home.actions import Decline, PlayGhost, PlayRoom, StopEscape
from engine.ghost_at_home.state import State
from engine.rng import seed_from_int
from server.bench import bench_bots
from tests.engine.ghost_at_home.tables import build, place, play, table

PROMPT_KINDS = {"turn", "build", "light", "discard", "cat_defence", "stop_escape"}
GHOST_A, CAT_A, LIGHTNING = 32, 40, 50


def decision(state: State, seat: int) -> Decision:
    """What the protocol sends ``seat`` now, as JSON builtins (as the arena builds it)."""
    to = msgspec.to_builtins
    prompt = GAME.prompts(state)[seat]
    return Decision(seat, to(GAME.view(state, seat)), to(prompt), to(GAME.legal_actions(state, seat)))


def greedy_choice(state: State, seat: int) -> dict[str, Any]:
    return GreedyGhostAtHome().choose(decision(state, seat), random.Random(0))


def check_promises(d: Decision, choice: dict[str, Any]) -> None:
    """What greedy always does when it can: stop an escape, cancel a ghost that would haunt it, build."""
    types = {act["type"] for act in d.legal}
    kind = d.prompt["kind"]
    if kind == "stop_escape" and "stop_escape" in types:
        assert choice["type"] == "stop_escape"
    if kind == "cat_defence" and "defend" in types:
        floor = d.view["players"][d.seat]["house"]["floors"][d.view["attack"]["floor"] - 1]
        if not floor["lit"] or floor["ghosts"]:
            assert choice["type"] == "defend"
    floors = d.view["players"][d.seat]["house"]["floors"]
    if kind in ("turn", "build") and "play_room" in types and not any(f["ghosts"] for f in floors):
        assert choice["type"] == "play_room"


def mixed_game(seats: int, seed: int, kinds: Counter[str] | None = None) -> None:
    """A whole game in which greedy is asked at every decision of every seat; its choice must be legal and keep
    its promises.  Seats follow greedy or random at random, so positions greedy alone never makes come up too."""
    rng = random.Random(seed)
    greedy, rand = GreedyGhostAtHome(), RandomStrategy()
    follows = [rng.random() < 0.5 for _ in range(seats)]
    state = GAME.setup(seats, seed_from_int(seed), GAME.default_options(), "bot-test")
    while GAME.result(state) is None:
        seat = min(GAME.prompts(state))
        d = decision(state, seat)
        choice = greedy.choose(d, rng)
        assert choice in d.legal, (choice, d.prompt, d.legal)
        check_promises(d, choice)
        if kinds is not None:
            kinds[d.prompt["kind"]] += 1
        act = choice if follows[seat] or rng.random() < 0.2 else rand.choose(d, rng)
        GAME.apply(state, seat, GAME.action_from_builtins(act))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seats=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_greedy_only_plays_legal_actions(seats: int, seed: int) -> None:
    mixed_game(seats, seed)


def test_greedy_meets_every_prompt_kind() -> None:
    kinds: Counter[str] = Counter()
    for seed in range(12):
        mixed_game(2 + seed % 4, seed, kinds)
    assert set(kinds) == PROMPT_KINDS


def test_registered_for_the_bench() -> None:
    assert STRATEGIES["greedy"] is GreedyGhostAtHome
    assert isinstance(get_strategy("ghost-at-home", "greedy"), GreedyGhostAtHome)


def test_greedy_beats_random_by_a_wide_margin() -> None:
    """One greedy against random bots, its seat rotating, on fixed seeds: random would win 1/seats."""
    for seats, games in ((2, 40), (3, 45), (4, 80), (5, 50)):
        figures = bench_bots("ghost-at-home", seats, games, "greedy", 1)
        assert figures["greedy_win_rate"] >= 0.8, figures


def test_greedy_decides_fast() -> None:
    """Thousands of bots share a load-test machine: a decision must stay far below a millisecond on average (of
    the thread's CPU time: the wall clock also counts the waits for a core on a loaded machine)."""
    greedy = GreedyGhostAtHome()
    rng = random.Random(7)
    spent: list[float] = []
    for seed in range(6):
        state = GAME.setup(2 + seed % 4, seed_from_int(seed), GAME.default_options(), "bot-time")
        while GAME.result(state) is None:
            d = decision(state, min(GAME.prompts(state)))
            started = time.thread_time()
            choice = greedy.choose(d, rng)
            spent.append(time.thread_time() - started)
            GAME.apply(state, d.seat, GAME.action_from_builtins(choice))
    assert sum(spent) / len(spent) < 0.001
    assert max(spent) < 0.05


# -- hand-arranged positions --------------------------------------------------------------------------------
def test_builds_before_attacking() -> None:
    state = table(3, seat0=[0, GHOST_A, 12])
    build(state, 1, 1, extra=1)
    assert greedy_choice(state, 0)["type"] == "play_room"
    play(state, 0, PlayRoom(0, 1, "left"))
    assert greedy_choice(state, 0) == {"type": "stop_building"}


def test_ghost_goes_to_the_most_explored_exposed_opponent() -> None:
    state = table(4, seat0=[GHOST_A, 22, 23])
    build(state, 1, 0, extra=1)
    build(state, 2, 2, extra=1)
    build(state, 3, 2, extra=2)
    place(state, 3, 3, cat=True)
    assert greedy_choice(state, 0) == {"type": "play_ghost", "card": GHOST_A, "target": 2}


def test_lightning_on_a_lit_floor_holding_a_ghost() -> None:
    state = table(3, seat0=[LIGHTNING, 22, 23])
    build(state, 1, 2, extra=1)
    place(state, 1, 3, ghost=True, lit=True)
    build(state, 2, 1)
    place(state, 2, 1, lit=True)
    assert greedy_choice(state, 0) == {"type": "lightning", "target": 1}


def test_stops_an_escape_with_a_ghost() -> None:
    state = table(2, seat0=[31], seat1=[GHOST_A, 33, 34])
    build(state, 0, 2, extra=1)
    play(state, 0, PlayRoom(31, 3, "right"))
    assert GAME.prompts(state)[1].kind == "stop_escape"
    assert greedy_choice(state, 1)["type"] == "stop_escape"


def test_cat_cancels_a_ghost_that_would_haunt() -> None:
    state = table(2, seat0=[GHOST_A, 22, 23], seat1=[CAT_A, 24, 25])
    build(state, 1, 1, extra=1)
    play(state, 0, PlayGhost(GHOST_A, 1))
    assert greedy_choice(state, 1) == {"type": "defend", "card": CAT_A}


def test_escaping_lit_floor_3_keeps_the_cat_for_a_second_ghost() -> None:
    """G11: a lone ghost stays on a lit floor 3, so the cat waits for the ghost that would haunt it."""
    state = table(3, seat0=[31, CAT_A], seat1=[GHOST_A, 22, 23], seat2=[33, 24, 25])
    build(state, 0, 2, extra=1)
    place(state, 0, 3, lit=True)
    play(state, 0, PlayRoom(31, 3, "right"))
    play(state, 1, StopEscape(GHOST_A))
    assert greedy_choice(state, 0) == {"type": "decline"}
    play(state, 0, Decline())
    play(state, 2, StopEscape(33))
    assert greedy_choice(state, 0) == {"type": "defend", "card": CAT_A}
