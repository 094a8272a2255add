"""Table chat (PROTOCOL.md, ``say``): a seat's line goes to every follower of the table, in every process, and
the table keeps its last lines (``Store.say``).  It touches no game: no ``seq``, no state, nothing in the log
that ``hauntd verify`` replays (M30).  Nor any log line: what a player says is not the operator's to read."""

from __future__ import annotations

from protocol.errors import Code, ProtocolError
from protocol.messages import Say
from server.guard import TokenBucket
from server.hub import Follower, Hub

CHAT_PER_SECOND = 0.5  # lines a seat may say a second on average, in each server process …
CHAT_BURST = 5  # … and at once


async def say(hub: Hub, conn: Follower, msg: Say) -> None:
    """Say ``msg.text`` for the seat ``conn`` follows ``hub``'s table as; a spectator reads but does not write,
    and a finished table (which nobody follows) hears no more.  Judged under the hub's lock, as the updates that
    end the game or give the seat back are delivered: the sayer is then still a follower, sent its line."""
    async with hub.lock:
        if hub.meta.status == "over":
            raise ProtocolError(Code.GAME_OVER, "the game is over: its chat is closed")
        seat = hub.followers.get(conn)
        if seat is None:
            raise ProtocolError(Code.AUTH, "only a seat speaks at a table: join it, or resume your seat, first")
        if not hub.chat_rates.setdefault(seat, TokenBucket(CHAT_PER_SECOND, CHAT_BURST)).take():
            raise ProtocolError(
                Code.RATE_LIMITED, f"a seat says {CHAT_BURST} lines at once, then one every {1 / CHAT_PER_SECOND:g} s"
            )
        name = hub.meta.names[seat] or f"seat {seat}"
        line = await hub.store.say(hub.table, seat, name, msg.text)
        hub.said(line, conn, msg.ref)
