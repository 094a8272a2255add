"""Commands packed by hiredis come out exactly as redis-py's own serializer packs them."""

from __future__ import annotations

from typing import Any

import pytest
from redis.connection import HiredisRespSerializer

from server.redis_wire import _HiredisPacking

COMMANDS: list[tuple[Any, ...]] = [
    ("EVALSHA", "0123abcd", 3, "{t:x}", "{t:x}:log", "{t:x}:cmd", 7, b"\x81\xa4meta", b"", "c:0:x", 604800),
    ("ZADD", "hauntd:open", 1764452123.25, "tbl"),
    ("SCRIPT LOAD", "return 1"),  # a two-word command name
    (b"CLIENT SETNAME", b"x"),
    ("SET", "k", bytearray(b"v")),  # arguments hiredis does not take as they are
    ("SET", "k", memoryview(b"v")),
    ("HGET", "k", "caf\u00e9"),
]


@pytest.mark.parametrize("command", COMMANDS)
def test_packed_like_redis_py(command: tuple[Any, ...]) -> None:
    ours = b"".join(_HiredisPacking().pack_command(*command))
    assert ours == b"".join(HiredisRespSerializer().pack(*command))
