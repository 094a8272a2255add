"""The strategy interface and the registry of strategies by game and name.

A strategy is any class with ``choose(decision, rng)`` returning one of ``decision.legal``, built with no
arguments.  Tools that take ``--strategy`` (``hauntd bot``, ``hauntd bench bots``) accept a built-in name or your
own class as ``module:Class`` (importable, e.g. with ``PYTHONPATH``); a server-run bot plays built-in ones only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import traceback
from typing import Any, Protocol

import msgspec

from engine.registry import games, get_game
from protocol.messages import Events, Snapshot


class Decision(msgspec.Struct, frozen=True):
    """What a seat knows when it must decide: all of it exactly as received over the protocol (JSON builtins).
    (A struct: built for every action a bot takes, ten times faster than a frozen dataclass.)"""

    seat: int
    view: dict[str, Any]
    prompt: dict[str, Any]
    legal: list[dict[str, Any]]

    @classmethod
    def of(cls, seat: int, update: Events | Snapshot) -> Decision | None:
        """What an SDK update asks of ``seat`` (its prompt as a dict), or None when it asks nothing of it."""
        prompt = next((p for p in update.prompts or () if p.seat == seat), None)
        if prompt is None or not update.legal:
            return None
        return cls(seat=seat, view=update.view, prompt=msgspec.to_builtins(prompt), legal=update.legal)


class Strategy(Protocol):
    """How a bot plays: ``decision.view`` is the game's view for its seat, ``decision.prompt`` its prompt (``kind``
    as the game names it), ``decision.legal`` every action it may take, as JSON objects."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        """One of ``decision.legal``, as it is (the wire wants it unchanged); ``rng`` is the seeded source of any
        randomness, so a seeded game replays."""
        ...


class StrategyFailed(Exception):
    """A strategy's ``choose`` raised (the exception it raised is the ``__cause__``): the message names the strategy,
    the seat and the prompt it was asked, which its own traceback does not."""


class IllegalChoice(StrategyFailed, ValueError):
    """A strategy's ``choose`` returned something that is none of ``decision.legal``."""


def decide(strategy: Strategy, decision: Decision, rng: random.Random) -> dict[str, Any]:
    """``strategy.choose(decision, rng)``, checked: ``IllegalChoice`` when it is none of ``decision.legal``, as it
    is (the server would refuse it, and the game would wait for that seat for ever), ``StrategyFailed`` when it
    raised."""
    try:
        action = strategy.choose(decision, rng)
    except Exception as exc:
        raise StrategyFailed(f"{type(strategy).__name__}.choose raised {exc!r} to {_asked(decision)}") from exc
    if action not in decision.legal:
        raise IllegalChoice(
            f"{type(strategy).__name__}.choose returned {action!r} to {_asked(decision)}: not one of decision.legal "
            "(return one of them, unchanged)"
        )
    return action


def _asked(decision: Decision) -> str:
    """The decision a failure names (built only then: ``decide`` runs for every action of every bot)."""
    return f"seat {decision.seat}'s {decision.prompt.get('kind')!r} prompt"


def failure_report(command: str, exc: StrategyFailed) -> str:
    """What ``command`` writes on stderr when a strategy failed: the strategy's own traceback when it raised, then
    one line naming the strategy, the seat and the prompt (and the notes added on the way: a bench's game)."""
    cause = "".join(traceback.format_exception(exc.__cause__)) if exc.__cause__ is not None else ""
    return cause + " ".join([f"{command}: {exc}", *getattr(exc, "__notes__", ())])


class RandomStrategy:
    """Uniform over the legal actions: the baseline every other strategy must beat."""

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        return decision.legal[rng.randrange(len(decision.legal))]


# game -> module holding that game's strategies as a ``STRATEGIES`` dict of name -> class.
_GAME_MODULES = {
    "mansion": "clients.bots.mansion",
    "spook": "clients.bots.spook",
    "ghost-at-home": "clients.bots.ghost_at_home",
}


def strategies(game: str) -> dict[str, type[Strategy]]:
    """Every strategy available for ``game``: ``random`` always, plus the game's own."""
    found: dict[str, type[Strategy]] = {"random": RandomStrategy}
    module_name = _GAME_MODULES.get(game)
    if module_name is not None:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
        else:
            found.update(module.STRATEGIES)
    return found


def strategy_names() -> list[str]:
    """Every strategy some game has, sorted: the choices of a ``--strategy`` option."""
    return sorted({name for game in games() for name in strategies(game)})


def get_strategy(game: str, name: str) -> Strategy:
    """A fresh strategy instance; ``KeyError`` for an unknown name."""
    return strategies(game)[name]()


def load_strategy(game: str, spec: str) -> Strategy:
    """A fresh instance of ``spec``: a built-in name of ``game`` (``get_strategy``) or ``module:Class``, whose module
    is importable from ``sys.path`` or the current directory."""
    if ":" not in spec:
        return get_strategy(game, spec)
    module, _, name = spec.partition(":")
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        # the installed ``hauntd`` command's path starts at its own folder, not here (``python -m`` adds it)
        sys.path.append(here)
    strategy: type[Strategy] = getattr(importlib.import_module(module), name)
    return strategy()


def strategy_option(text: str) -> str:
    """The ``type`` of a ``--strategy`` option: a built-in name, or ``module:Class`` loaded once to check it."""
    if ":" not in text:
        if text not in strategy_names():
            choices = ", ".join(strategy_names())
            raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {choices}, or module:Class)")
        return text
    try:
        load_strategy("", text)
    except (ImportError, AttributeError, TypeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot load strategy {text!r}: {exc}") from exc
    return text


def catalog(game: str) -> dict[str, Any]:
    """``game``'s public cards and board as JSON builtins, as ``GET /games/NAME.json`` serves them: for a strategy
    that needs them with no server at hand (``hauntd bench bots``)."""
    data: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(get_game(game).catalog))
    return data
