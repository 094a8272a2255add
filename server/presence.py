"""Every server process runs one ``Presence``: every few seconds it notes in the store (``Store.present``) the public
lobby tables where a connection of its own follows a taken seat, so that a table whose players have all gone (a
page closed before anyone came) is abandoned ``serve --abandoned-after`` seconds later (``ABANDONED``: out of the
lobby's list and of its creator's count of open tables), while one where someone waits, on any process, stays."""

from __future__ import annotations

import asyncio

import structlog

from server.hub import Fanout, Hub
from server.store import Store
from server.tasks import cancel

log = structlog.get_logger("hauntd.presence")

MOST_SECONDS = 60.0  # between two notes at most: a player back at a table quiet for long is listed again within it


def waited_at(hub: Hub) -> bool:
    """Whether ``hub``'s table is a public lobby where a follower here holds a seat."""
    meta = hub.latest.meta
    return meta.status == "lobby" and not meta.private and any(seat is not None for seat in hub.followers.values())


class Presence:
    def __init__(self, fanout: Fanout, store: Store) -> None:
        self.fanout = fanout
        self.store = store
        # three notes at least within ``abandoned_after``: one missed (the store away a moment) costs nothing
        self.every = min(MOST_SECONDS, store.abandoned_after / 3)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        await cancel(self._task)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.store.present([hub.table for hub in self.fanout.hubs.values() if waited_at(hub)])
            except Exception as exc:
                self.store.failed(log, "presence_failed", exc)
