"""Deterministic moves computed from the stored state: lets a test choose exactly who acts when."""

from __future__ import annotations

from typing import Any

import redis

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
