"""A featured table and its spectators over real sockets: what a watcher is sent, and what it costs the players."""

from __future__ import annotations

import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.server.conftest import ServerProcess
from tests.server.players import close, play, seat_players


async def watcher(url: str, table: str, **watch: Any) -> tuple[ClientConnection, list[dict[str, Any]]]:
    """A raw connection watching ``table``, and what its watch was answered with (its ``snapshot`` last)."""
    ws = await connect(url)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    await ws.recv()
    return ws, await ask(ws, type="watch", table=table, ref="w", **watch)


async def ask(ws: ClientConnection, **msg: Any) -> list[dict[str, Any]]:
    """Send ``msg`` (with a ``ref``); what is received up to its reply, which comes last."""
    await ws.send(json.dumps(msg))
    received = [json.loads(await ws.recv())]
    while received[-1].get("ref") != msg["ref"]:
        received.append(json.loads(await ws.recv()))
    return received


async def test_a_spectator_is_sent_the_table_with_every_update_that_says_who_decides(server: ServerProcess) -> None:
    """The web page draws a table from its ``view``, which a spectator's updates did not carry: each page watching
    asked for a snapshot after every update (a ``watch``, a view encoded for it alone and a store read under the
    table's lock), and 100 pages cost the server 7 times the CPU of each action.  The spectators' view now comes
    with the ``prompts``, encoded once for them all: the one a ``watch`` at that ``seq`` would answer with."""
    table, players = await seat_players([server.url], seed=3)
    ws, _ = await watcher(server.url, table)
    try:
        await play(players, stop_at=12)
        *updates, snapshot = await ask(ws, type="watch", table=table, ref="again")  # (the table as it is now)
        assert [u["seq"] for u in updates] == list(range(6, snapshot["seq"] + 1))
        assert all("view" in u and "legal" not in u for u in updates), updates
        assert updates[-1]["view"] == snapshot["view"] and snapshot["view"]["seat"] is None
        assert snapshot["view"]["haunt"] == [None] * 4
    finally:
        await ws.close()
        await close(players)
