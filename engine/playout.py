"""Random legal playouts, shared by the engine benchmark and every game's property tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from engine.contract import Game

Step = Callable[[Any, int, msgspec.Struct, list[msgspec.Struct]], None]

# Far more actions than any game takes (random play: some 100 to 400 a game): a game still going is one its
# players (or its rules) keep from ending.
MAX_ACTIONS = 100_000


class PlayoutStalled(RuntimeError):
    """The game neither ended nor prompted anyone, or exceeded ``MAX_ACTIONS``: a rules bug."""


def random_playout(
    game: Game[Any, Any, Any],
    seats: int,
    seed: bytes,
    chooser: random.Random,
    *,
    table_id: str = "bench",
    on_step: Step | None = None,
) -> tuple[Any, list[tuple[int, msgspec.Struct]]]:
    """Play one game to its end choosing uniformly among the prompted seats and their legal actions.

    Returns the final state and the action log ``[(seat, action), …]``; ``on_step(state, seat, action, events)``
    runs after every applied action.
    """
    state = game.setup(seats, seed, game.default_options(), table_id)
    log: list[tuple[int, msgspec.Struct]] = []
    while game.result(state) is None:
        prompted = sorted(game.prompts(state))
        if not prompted or len(log) >= MAX_ACTIONS:
            raise PlayoutStalled(f"{game.name}: stalled after {len(log)} actions")
        seat = prompted[chooser.randrange(len(prompted))] if len(prompted) > 1 else prompted[0]
        legal = game.legal_actions(state, seat)
        action = legal[chooser.randrange(len(legal))]
        events = game.apply(state, seat, action)
        log.append((seat, action))
        if on_step is not None:
            on_step(state, seat, action, events)
    return state, log
