"""What ``hauntd serve`` makes sure of before it listens: a store that answers (waited for while it starts or loads
its data: started with it, by ``docker compose`` say, it may come up a moment later), lets it in, takes writes,
is no Cluster, and will neither evict tables nor forget them in a crash (warnings)."""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from redis.exceptions import AuthenticationError, NoPermissionError, ResponseError

from server.store import STORE_DOWN

log = structlog.get_logger("hauntd.server")


class StoreUnfit(Exception):
    """The store cannot keep this server's tables: the message says why, and what to change."""


async def reach(client: Any, where: str, wait: float) -> None:
    """``PING`` the store until it answers, for up to ``wait`` seconds; raises ``StoreUnfit`` (or redis-py's
    ``AuthenticationError``: a wrong password is not waited out)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        try:
            await client.ping()
            return
        except AuthenticationError:
            raise
        except STORE_DOWN as exc:
            left = deadline - loop.time()
            if left <= 0:
                waited = f" in {wait:g} s (--store-wait)" if wait else ""
                raise StoreUnfit(f"the store at {where} did not answer{waited}: {exc}") from None
            log.warning("store_unreachable", store=where, error=f"{type(exc).__name__}: {exc}", gives_up_in=round(left))
            await asyncio.sleep(min(1.0, left))
        except ResponseError as exc:  # a database number past the store's, say
            raise StoreUnfit(f"the store at {where} refused us: {exc}") from None


async def inspect(client: Any, where: str) -> None:
    """Refuse a replica (every write would fail) and a Cluster node (a table's keys share a slot, but the lobby
    and the schedule are single keys that every table's commands touch); warn of a store that may evict keys —
    all of a table's expire, so under any policy but ``noeviction`` a full store drops tables, or parts of them,
    silently (Redis's own advice: evicting policies are for caches, ``noeviction`` for data) — and of one without
    an append-only file, which comes back from a crash with its last snapshot: tables set back or gone.  A user
    the store's ACL denies ``INFO`` gets a warning that these were not checked."""
    try:
        info = await client.info()
    except NoPermissionError:
        log.warning("store_unchecked", store=where, why="INFO is denied to this user: role, eviction unchecked")
        return
    if info.get("role") in ("slave", "replica"):
        raise StoreUnfit(f"the store at {where} is a read-only replica: give the URL of its primary")
    if info.get("cluster_enabled"):
        raise StoreUnfit(f"the store at {where} is a Cluster node: give a single Redis or Valkey (or a primary)")
    policy, limit = info.get("maxmemory_policy"), int(info.get("maxmemory", 0))
    if limit and policy != "noeviction":
        log.warning(
            "store_may_evict",
            store=where,
            maxmemory=limit,
            maxmemory_policy=policy,
            fix="CONFIG SET maxmemory-policy noeviction (and in its config): when full, this store drops tables",
        )
    if not info.get("aof_enabled", 1):
        log.warning(
            "store_without_aof",
            store=where,
            fix="CONFIG SET appendonly yes (and in its config): after a crash this store comes back with its last "
            "snapshot, its tables set back or gone",
        )
