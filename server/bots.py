"""Server-run bots: a bot seat decides with a ``clients.bots`` strategy from exactly the JSON a connected player
in that seat would receive with its prompt (its redacted view, its prompt, its legal actions), nothing more."""

from __future__ import annotations

import random
import secrets
from typing import Any

import msgspec
import structlog

from clients.bots import Decision, get_strategy, strategies
from engine.contract import Game
from protocol.errors import Code, ProtocolError
from server.hub import prompt_infos
from server.store import TableMeta

log = structlog.get_logger("hauntd.bots")

_json = msgspec.json.Encoder()


def _wire(value: Any) -> Any:
    """``value`` as a client decodes it from the wire."""
    return msgspec.json.decode(_json.encode(value))


def check_strategy(game: str, name: str) -> None:
    """Refuse a strategy the game does not have (``bad_option``)."""
    known = strategies(game)
    if name not in known:
        raise ProtocolError(Code.BAD_OPTION, f"no {game} bot strategy {name!r}; strategies: {', '.join(known)}")


def bot_action(game: Game[Any, Any, Any], state: Any, meta: TableMeta, seat: int) -> Any:
    """The bot's action for ``seat`` (an engine action); the rules' time-out default if the strategy fails."""
    prompt = next(p for p in prompt_infos(game, state, meta) if p.seat == seat)
    legal = game.legal_actions(state, seat)
    decision = Decision(seat=seat, view=_wire(game.view(state, seat)), prompt=_wire(prompt), legal=_wire(legal))
    try:
        choice = get_strategy(meta.game, meta.bots[seat]).choose(decision, random.Random(secrets.randbits(64)))
        action = game.action_from_builtins(choice)
        if action in legal:
            return action
        log.error("bot_chose_illegal", game=meta.game, strategy=meta.bots[seat], kind=prompt.kind)
    except Exception:
        log.exception("bot_failed", game=meta.game, strategy=meta.bots[seat], kind=prompt.kind)
    return game.timeout_action(state, seat)
