"""Deterministic moves computed from the stored state: lets a test choose exactly who acts when."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import redis

from engine.mansion.actions import Collect, Duel, EndTurn, Move
from engine.registry import get_game
from server.store import NO_PREFIX

GAME = get_game("mansion")


def stored_state(sync_redis: redis.Redis, table: str) -> bytes:
    data = sync_redis.hget(NO_PREFIX.record(table), "state")
    return bytes(data) if data else b""


def stored_seq(sync_redis: redis.Redis, table: str) -> int:
    return int(sync_redis.hget(NO_PREFIX.record(table), "seq"))


def next_move(sync_redis: redis.Redis, table: str, pick: int = 0) -> tuple[int, Any, int]:
    """(seat, action, seq): the lowest prompted seat and its ``pick``-th legal action, as of the stored seq."""
    seq = stored_seq(sync_redis, table)
    state = GAME.decode_state(stored_state(sync_redis, table))
    seat = min(GAME.prompts(state))
    legal = GAME.legal_actions(state, seat)
    return seat, legal[pick % len(legal)], seq


async def to_a_duel(sync_redis: redis.Redis, table: str, seats: list[Any], tokens: list[str]) -> int:
    """Play a started mansion table (seat ``i`` asks through ``seats[i]``, a ``Tap``) until two seats duel, both dials
    prompted: a duel whenever legal, else a collect, a move to the next seat's room …; returns the table's seq."""
    while True:
        seq, state = stored_seq(sync_redis, table), GAME.decode_state(stored_state(sync_redis, table))
        assert GAME.result(state) is None, "no duel in a whole game"
        prompts = GAME.prompts(state)
        if len(prompts) == 2:
            return seq
        seat = min(prompts)
        legal = GAME.legal_actions(state, seat)
        rnd, towards = random.Random(seq), Move(state.pos[(seat + 1) % len(tokens)])
        action = min(legal, key=lambda a: (
            not isinstance(a, Duel), not isinstance(a, Collect), a != towards, isinstance(a, EndTurn), rnd.random()
        ))  # fmt: skip
        act = {"type": "act", "table": table, "token": tokens[seat], "cmd": f"m{seq}", "seq": seq}
        await seats[seat].ask(**act, action=msgspec.to_builtins(action))
