"""In-process matches between strategies, for ``hauntd bench bots``: the engine plays the table, each strategy
sees only what the protocol would send its seat (view, prompt and legal actions as JSON builtins)."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from clients.bots.base import Decision, Strategy, StrategyFailed, decide
from engine.contract import Result
from engine.playout import MAX_ACTIONS
from engine.registry import get_game
from engine.rng import seed_from_int


class MatchStalled(RuntimeError):
    """A game went on past ``max_actions``: a strategy keeps it from ending."""


def play_match(
    game_name: str,
    players: list[Strategy],
    seed: int,
    *,
    max_actions: int = MAX_ACTIONS,
    options: dict[str, Any] | None = None,
) -> Result:
    """One game with ``players[i]`` at seat ``i``, of the game's ``options`` (a create's, as JSON; None: the
    defaults; refused ones raise ``IllegalAction``); returns the engine's result, or raises ``MatchStalled`` after
    ``max_actions`` actions (naming the last decisions) instead of playing for ever, and a strategy's
    ``StrategyFailed`` with the game and its seed noted."""
    game = get_game(game_name)
    chosen = game.default_options() if options is None else game.decode_options(options)
    state = game.setup(len(players), seed_from_int(seed), chosen, f"arena-{seed}")
    rng = random.Random(seed)
    to_builtins = msgspec.to_builtins
    actions = 0
    while (result := game.result(state)) is None:
        prompts = game.prompts(state)
        seat = min(prompts)
        decision = Decision(
            seat=seat,
            view=to_builtins(game.view(state, seat)),
            prompt=to_builtins(prompts[seat]),
            legal=to_builtins(game.legal_actions(state, seat)),
        )
        try:
            choice = decide(players[seat], decision, rng)
        except StrategyFailed as exc:
            exc.add_note(f"(the {game_name} game of seed {seed})")
            raise
        game.apply(state, seat, game.action_from_builtins(choice))
        actions += 1
        if actions >= max_actions and game.result(state) is None:
            raise MatchStalled(
                f"{game_name} game of seed {seed} not over after {actions} actions: a strategy keeps it from ending "
                f"(the last: {type(players[seat]).__name__} at seat {seat} chose {choice!r} to {decision.prompt!r})"
            )
    return result
