"""In-process matches between strategies, for ``hauntd bench bots``: the engine plays the table, each strategy
sees only what the protocol would send its seat (view, prompt and legal actions as JSON builtins)."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from clients.bots.base import Decision, Strategy, decide
from engine.contract import Result
from engine.registry import get_game
from engine.rng import seed_from_int


def play_match(game_name: str, players: list[Strategy], seed: int, options: dict[str, Any] | None = None) -> Result:
    """One game with ``players[i]`` at seat ``i``; returns the engine's result."""
    game = get_game(game_name)
    state = game.setup(len(players), seed_from_int(seed), game.decode_options(options or {}), f"arena-{seed}")
    rng = random.Random(seed)
    to_builtins = msgspec.to_builtins
    while (result := game.result(state)) is None:
        prompts = game.prompts(state)
        seat = min(prompts)
        decision = Decision(
            seat=seat,
            view=to_builtins(game.view(state, seat)),
            prompt=to_builtins(prompts[seat]),
            legal=to_builtins(game.legal_actions(state, seat)),
        )
        choice = decide(players[seat], decision, rng)
        game.apply(state, seat, game.action_from_builtins(choice))
    return result
