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
    """Say ``msg.text`` for the seat ``conn`` follows ``hub``'s table as, or saw its end as: after the game the
    seats talk on to everyone still there (``Hub.after``).  A spectator reads but does not write.  Judged under
    the hub's lock, as the updates that end the game or give the seat back are delivered: the sayer is then still
    a follower (or kept), sent its line."""
    async with hub.lock:
        seat = _speaker(hub, conn)
        if not hub.chat_rates.setdefault(seat, TokenBucket(CHAT_PER_SECOND, CHAT_BURST)).take():
            raise ProtocolError(
                Code.RATE_LIMITED, f"a seat says {CHAT_BURST} lines at once, then one every {1 / CHAT_PER_SECOND:g} s"
            )
        name = hub.meta.names[seat] or f"seat {seat}"
        line = await hub.store.say(hub.table, seat, name, msg.text)
        hub.said(line, conn, msg.ref)


def _speaker(hub: Hub, conn: Follower) -> int:
    """The seat ``conn`` speaks as: the one it follows the table as, or saw its end as (kept, ``Hub.after``).  A
    finished table it does not keep (it kept a newer one since, or never saw this one end) is closed to it."""
    if conn in hub.followers:
        seat = hub.followers[conn]
    elif conn in hub.after:
        seat = hub.after[conn]
    elif hub.meta.status == "over":
        raise ProtocolError(
            Code.GAME_OVER,
            "the game is over: its seats talk on from the connection that saw its end, which keeps only the last "
            "table it saw end (resume your seat to talk here)",
        )
    else:
        seat = None
    if seat is None:
        raise ProtocolError(Code.AUTH, "only a seat speaks at a table: join it, or resume your seat, first")
    return seat
