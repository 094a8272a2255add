"""Commands to Redis packed by hiredis (C) instead of redis-py's pure-Python packer, which its asyncio
connections always use: packing was a tenth of the server's time under load."""

from __future__ import annotations

from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.connection import HiredisRespSerializer


class _HiredisPacking:
    _general = HiredisRespSerializer()  # redis-py's own: splits "SCRIPT LOAD", copies bytearray and memoryview

    def pack_command(self, *args: Any) -> list[bytes]:
        """One command as RESP bytes: a single-word command of plain arguments straight from hiredis (the commit
        script's, on every action), anything else through redis-py's hiredis serializer."""
        name = args[0]
        spaced = " " in name if isinstance(name, str) else b" " in name
        if not spaced:
            try:
                return [hiredis.pack_command(args)]
            except TypeError:  # an argument hiredis does not take as is
                pass
        packed: list[bytes] = self._general.pack(*args)
        return packed


def pool(url: str, **options: Any) -> aioredis.BlockingConnectionPool:
    """A blocking connection pool for ``url`` whose connections (TCP, TLS or Unix socket) pack with hiredis."""
    made = aioredis.BlockingConnectionPool.from_url(url, **options)
    base = made.connection_class
    made.connection_class = type(f"Hiredis{base.__name__}", (_HiredisPacking, base), {})
    return made
