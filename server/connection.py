"""One WebSocket connection: frame limits, the hello handshake, dispatch, and a bounded send queue.

Frames are read and handled one at a time (a client's commands keep their order).  What is sent is written to
the socket at once while the socket keeps up; behind a backed-up socket it waits in a bounded queue drained by
a writer task, and a client that stops reading fills it and is cut off (closed 4429, ``slow``), so a slow reader
costs a fixed amount of memory.  A replay (``watch``/``resume`` from an old ``last_seq``) is paced instead
(``drain``): it sends each update once the socket has taken in the one before, so a client reading slowly but
steadily gets all of it, and one that takes in nothing for ``send_timeout`` seconds is cut off.

A connection's close is logged (``connection_closed``) when it took part (``Connection.noted``): held a seat, created
a table, was refused something, or was cut off.  The others (a lobby listed, a table watched, a reconnect loop)
are counted, and summed up in a line a minute (``QuietCloses``): 200 short connections wrote 400 lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import termios
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from protocol import codec
from protocol.errors import Code, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Accepted,
    Act,
    ClientMsg,
    Create,
    Created,
    Error,
    Hello,
    Join,
    Joined,
    Leave,
    Left,
    ListTables,
    Nudge,
    Nudged,
    Ping,
    Pong,
    Rejected,
    Rematch,
    Rematched,
    Resume,
    Say,
    Start,
    Started,
    Tables,
    Watch,
)
from server.chat import say
from server.guard import REPLAYS_PER_MINUTE, TokenBucket, counted_as
from server.hub import Hub
from server.service import seat_of, token_digest
from server.store import Missing, TooNew

if TYPE_CHECKING:
    from server.app import App

log = structlog.get_logger("hauntd.conn")

QUIET_SUMMARY_SECONDS = 60.0  # at most one ``quiet_connections_closed`` line in so long
_PEERS = 4096  # addresses counted in one summary (a flood of distinct ones is counted whole, but not each)


class QuietCloses:
    """The connections closed that took part in nothing, summed up in one ``quiet_connections_closed`` line
    (``count`` since the last one, over ``seconds``, the ``busiest`` address and its count), written at such a
    close once ``QUIET_SUMMARY_SECONDS`` have passed since the last line: a client reconnecting in a loop is one
    line a minute, not two lines a connection.  ``/metrics`` counts each one as it closes."""

    def __init__(self) -> None:
        self.peers: Counter[str] = Counter()
        self.count = 0
        self.since = time.monotonic()

    def closed(self, client: str | None) -> None:
        self.count += 1
        peer = None if client is None else counted_as(client)
        if peer is not None and (peer in self.peers or len(self.peers) < _PEERS):
            self.peers[peer] += 1
        now = time.monotonic()
        if now - self.since < QUIET_SUMMARY_SECONDS:
            return
        busiest = self.peers.most_common(1)
        fields = {"busiest": busiest[0][0], "busiest_count": busiest[0][1]} if busiest else {}
        log.info("quiet_connections_closed", count=self.count, seconds=round(now - self.since), **fields)
        self.peers.clear()
        self.count, self.since = 0, now


KINDS = ("player", "spectator", "other")


def kinds(live: Iterable[Connection]) -> dict[str, int]:
    """The connections by kind: ``player`` (it follows a table as a seat), ``spectator`` (it follows tables, as
    none of their seats) or ``other`` (it follows none: a lobby page, a client between games, a handshake)."""
    counts = dict.fromkeys(KINDS, 0)
    for conn in live:
        audiences = [hub.followers.get(conn) for hub in conn.follows.values()]
        kind = "player" if any(a is not None for a in audiences) else "spectator" if audiences else "other"
        counts[kind] += 1
    return counts


class _Close(tuple[int, str]):
    """Queued after a connection's last frame: close with this code and reason once it is sent."""


_TOO_LARGE = _Close((1009, "too_large"))
SLOW_CLOSE = (4429, "slow")  # a client that left too many messages unread (4000–4999: the application's own)
_VERSION = _Close((1002, "version"))


class Connection:
    def __init__(self, ws: ServerConnection, app: App) -> None:
        self.ws = ws
        self.app = app
        self.settings = app.settings
        self.queue: asyncio.Queue[Any] = asyncio.Queue(self.settings.send_queue)
        self.bucket = TokenBucket(self.settings.messages_per_second, self.settings.burst)
        self.follows: dict[str, Hub] = {}
        self.created: set[str] = set()  # tables it created and does not follow (the limit counts them too)
        self.watching: set[str] = set()  # tables whose place as a spectator its address holds (``Guard.may_watch``)
        self.finished: Hub | None = None  # the last table it followed to the end, kept to hear of its rematch
        self.greeted = False
        self.views = False  # its hello asked for its view with every update (``Hub.show_views``)
        self.dead = False
        self.writing = False  # the writer task holds a frame: later ones must queue behind it
        self.flushed = asyncio.Event()  # set when the writer finds the queue empty (``drain``)
        self.held: list[bytes] | None = None  # frames held back to go out in one write (``_holding``)
        self.seen = time.monotonic()  # when it last sent a frame, the last was handled, or it was last found taking
        # in what it was sent (the idle cut-off)
        self.busy = False  # a frame of its own is being handled (a replay at the client's pace): not idle
        self.noted = False  # it took part (a seat, a table created, a refusal, cut off): its close is logged
        self.client = app.guard.client(ws)  # the address its budgets count against (behind a proxy: the client's)
        self.log = log.bind(peer=_peer(ws, self.client))
        _hold_little_unsent(ws)

    # -- sending -----------------------------------------------------------------------------------------
    def send(self, frame: bytes) -> None:
        """Send one encoded frame.  While the socket keeps up it is written at once, with no task switch; once
        the socket's buffer is past its high-water mark frames wait in the bounded queue for the writer task,
        and a full queue means the client is not reading: cut it off."""
        if self.dead:
            return
        if self.held is not None:
            self.held.append(frame)
            return
        self._send([frame])

    def _send(self, frames: list[bytes]) -> None:
        ws = self.ws
        if (
            not self.writing
            and self.queue.empty()
            and ws.transport.get_write_buffer_size() <= ws.write_limit_high
            and ws.protocol.state is State.OPEN
        ):
            for frame in frames:
                ws.protocol.send_text(frame)
            # every frame in one write (one system call): an action's update and its accepted leave together.
            # (websockets' own send_data writes frame by frame; in the OPEN state its queue holds only frames.)
            ws.transport.writelines(ws.protocol.data_to_send())
            return
        for frame in frames:
            try:
                self.queue.put_nowait(frame)
            except asyncio.QueueFull:
                self._drop("queue_full")
                return

    def _drop(self, reason: str) -> None:
        """Cut off a client that is not reading: its queue is full, or a replay waited ``send_timeout`` for it.
        Its queue is let go; what the socket holds goes out, then a close ``SLOW_CLOSE``, so a client that reads
        again learns why (the socket aborted, it saw 1006); one that still reads nothing ``send_timeout`` seconds
        later is aborted all the same."""
        self.dead = True
        self.noted = True
        self.app.metrics.dropped.inc()
        self.log.warning("slow_consumer_dropped", reason=reason, queued=self.queue.qsize())
        while not self.queue.empty():
            self.queue.get_nowait()
        closing = asyncio.create_task(self.ws.close(*SLOW_CLOSE))
        closing.add_done_callback(lambda t: t.cancelled() or t.exception())
        asyncio.get_running_loop().call_later(self.settings.send_timeout, self.ws.transport.abort)

    def _open(self) -> bool:
        return not self.dead and self.ws.protocol.state is State.OPEN

    def taking_in(self) -> bool:
        """Whether the client has yet to take in some of what it was sent: a frame queued or being written, bytes
        in the socket's buffer, or in the kernel's not yet acknowledged by the client (the idle cut-off waits)."""
        transport = self.ws.transport
        return (
            self.writing
            or not self.queue.empty()
            or transport.get_write_buffer_size() > 0
            or _unacknowledged(transport.get_extra_info("socket")) > 0
        )

    async def drain(self) -> bool:
        """Wait until what was sent has gone out to the socket (the queue empty, the socket's buffer back under
        its low-water mark): a replay sends its next update only then, so however long it is, it holds a page
        of the log and a socket's buffer, and never fills the queue.  A client that does not take in that buffer
        (24 KiB) within ``send_timeout`` seconds (it reads nothing, or under about 1 KB/s) is cut off.  False once
        the connection is gone."""
        ws = self.ws
        if not self.writing and self.queue.empty() and ws.transport.get_write_buffer_size() <= ws.write_limit_high:
            return self._open()  # (``send`` writes at once: no wait, nor a timer, for a client that keeps up)
        try:
            async with asyncio.timeout(self.settings.send_timeout):
                while self._open() and (self.writing or not self.queue.empty()):
                    self.flushed.clear()
                    await self.flushed.wait()
                if self._open():
                    await self.ws.drain()
        except TimeoutError:
            self._drop("replay_stalled")
        except OSError:  # the connection was lost while the socket was backed up
            pass
        return self._open()

    @contextlib.contextmanager
    def _holding(self) -> Iterator[None]:
        """Frames sent meanwhile go out together at the end, in one write: an action's own update and its
        ``accepted`` reach the actor in one segment."""
        self.held = []
        try:
            yield
        finally:
            frames, self.held = self.held, None
            if frames and not self.dead:
                self._send(frames)

    def _close_after(self, close: _Close) -> None:
        """Close the connection once what is queued has gone out (a client that reads nothing is cut anyway)."""
        if not self.queue.full():
            self.queue.put_nowait(close)

    def reply(self, msg: Any) -> None:
        self.send(codec.encode(msg))

    def error(self, code: Code, message: str, ref: str | None = None, seq: int | None = None) -> None:
        self.noted = True
        self.app.metrics.rejections.labels(code.value).inc()
        self.reply(Error(code=code.value, message=message, ref=ref, seq=seq))

    async def _write(self) -> None:
        """Drain the queue (only used while the socket is backed up), waiting for the socket each time."""
        try:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    frame = await self.queue.get()
                    self.writing = True
                    if isinstance(frame, _Close):
                        await self.ws.close(*frame)
                        return
                    await self.ws.send(frame, text=True)
                    self.writing = False
                    if self.queue.empty():
                        self.flushed.set()
        finally:
            self.flushed.set()  # (a ``drain`` waiting finds the connection closed)

    # -- the connection's life ---------------------------------------------------------------------------
    async def run(self) -> None:
        started = time.monotonic()
        frames = 0
        self.app.metrics.connections.inc()
        writer = asyncio.create_task(self._write())
        try:
            async for frame in self.ws:
                frames += 1
                self.seen = time.monotonic()
                if self.dead:  # cut off, closing: what it sends is read (the close handshake comes after), not done
                    continue
                self.busy = True  # (its next frames wait unread meanwhile: the idle cut-off waits too)
                handled = await self._frame(frame)
                self.busy, self.seen = False, time.monotonic()
                if not handled:
                    break
        except ConnectionClosed:
            pass
        finally:
            self.dead = True
            for hub in [*self.follows.values(), *([self.finished] if self.finished else [])]:
                hub.detach(self)
                self.app.fanout.release(hub)
            self.follows.clear()
            self.finished = None
            for table in list(self.watching):
                self._watch_ended(table)
            if self.queue.empty() or writer.done():
                writer.cancel()
            else:  # let a final error (too_large, version) and the close go out
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(writer), 2.0)
                writer.cancel()
            self.app.metrics.connections.dec()
            self.app.metrics.closed.labels("logged" if self.noted else "quiet").inc()
            if self.noted:
                # code: the close code received (1000 or 1001 the client left, or the server stopped; 1006 the
                # network; 4408 idle; …), none if the server let the socket go before the close handshake ended
                self.log.info(
                    "connection_closed",
                    frames=frames,
                    seconds=round(time.monotonic() - started, 3),
                    code=self.ws.close_code,
                )
            else:
                self.app.quiet.closed(self.client)

    async def _frame(self, frame: str | bytes) -> bool:
        """Handle one frame; False when the connection must close.  Every frame counts against the rate limit,
        a binary or malformed one too (its error reply is still sent: the client learns why)."""
        limited = not self.bucket.take()
        if isinstance(frame, bytes):
            self.error(Code.MALFORMED, "send JSON text frames, not binary ones")
            return True
        limit = self.settings.max_frame_bytes
        if len(frame) > limit or (len(frame) * 4 > limit and len(frame.encode()) > limit):
            self.error(Code.TOO_LARGE, f"frames are limited to {limit} bytes")
            self._close_after(_TOO_LARGE)
            return False
        try:
            msg = codec.decode_client(frame)
        except ProtocolError as exc:
            self.error(exc.code, exc.message, exc.ref)
            if exc.code is not Code.VERSION:
                return True
            self._close_after(_VERSION)
            return False
        if limited:
            self._refuse(msg, Code.RATE_LIMITED, f"at most {self.settings.messages_per_second:g} messages per second")
            return True
        if not self.greeted and not isinstance(msg, Hello):
            self.error(Code.VERSION, "send hello first", msg.ref)
            return True
        try:
            await self._dispatch(msg)
        except ProtocolError as exc:
            self._refuse(msg, exc.code, exc.message, exc.seq)
        except Missing as exc:  # the table is not stored (never was, or expired: its hub, if any, is ended)
            self._refuse(msg, Code.NOT_FOUND, f"no table {exc}")
        except TooNew as exc:  # versions are mixed (a rolling upgrade) or were rolled back: another server may serve it
            self.app.store.failed(self.log, "command_failed", exc, **_about(msg))
            self._refuse(msg, Code.INTERNAL, f"{exc}: send it again")
        except Exception as exc:
            self.app.store.failed(self.log, "command_failed", exc, **_about(msg))
            again = " with the same cmd (applied at most once)" if isinstance(msg, Act) else ""
            self._refuse(msg, Code.INTERNAL, f"server fault (the store may be restarting): send it again{again}")
        return True

    def _refuse(self, msg: ClientMsg, code: Code, message: str, seq: int | None = None) -> None:
        """An action is answered ``rejected`` (with its ``cmd``), anything else ``error``; either is logged (only
        actions were: a player's resume refused ``auth``, a start ``already_started``, left no line at all), but
        past the rate limit it is only counted, so a client's lines are bounded by its allowance as its work is: one
        sending as fast as it could had the server write over 6,000 lines a second, all ``rate_limited``."""
        self.noted = True
        if code is not Code.RATE_LIMITED:
            self.log.info("command_rejected", code=code.value, **_about(msg))
        if isinstance(msg, Act):
            self.app.metrics.rejections.labels(code.value).inc()
            self.reply(Rejected(table=msg.table, cmd=msg.cmd, code=code.value, message=message, ref=msg.ref))
        else:
            self.error(code, message, msg.ref, seq)

    # -- tables followed ---------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _table(self, table: str) -> AsyncIterator[Hub]:
        """The table's hub for one command: the followed one, or a reference held for the command only."""
        hub = self.follows.get(table)
        if hub is not None:
            yield hub
            return
        hub = await self.app.fanout.hub(table)  # raises ``Missing`` or ``TooNew``
        try:
            yield hub
        finally:
            self.app.fanout.release(hub)

    async def _follow(
        self, hub: Hub, audience: int | None, last_seq: int | None, ref: str | None, token: str | None = None
    ) -> None:
        """Follow as a spectator, or as the seat ``token`` holds (for as long as it holds it).  The updates replayed
        (those after ``last_seq``) count against the client address's budget (``Guard.may_replay``)."""
        if last_seq is not None and not self.app.guard.may_replay(self.client, hub.seq - last_seq):
            raise ProtocolError(
                Code.RATE_LIMITED,
                f"at most {REPLAYS_PER_MINUTE} updates replayed a minute for one address: resume from a later seq",
            )
        new = hub.table not in self.follows
        if new:
            self._check_limit(hub.table)
            self.app.fanout.retain(hub)
            self.follows[hub.table] = hub
            self.created.discard(hub.table)
        try:
            holder = token_digest(token) if token is not None else None
            await hub.attach(self, audience, last_seq, ref, holder, self.views)
        except BaseException:
            if new:  # not followed after all (the store could not be read): the client asks again
                self._unfollow(hub.table)
            raise
        if audience is not None:  # a seat now: no longer a spectator's place
            self._watch_ended(hub.table)

    def done(self, hub: Hub) -> None:
        """``hub`` has nothing more for this connection (its game is over, or the table gone, and the client was
        told): stop following it, so a client playing game after game on one connection holds only the tables in
        play, against its limit, and in the server's memory the last one it saw end (``finished``), to hear of
        that one's rematch (``Hub.rematched``)."""
        if self.follows.get(hub.table) is not hub:
            return
        if self.dead or hub.gone:
            self._unfollow(hub.table)
            return
        del self.follows[hub.table]  # (its reference moves to ``finished``)
        self._watch_ended(hub.table)  # (hearing of a rematch takes no place as a spectator)
        kept, self.finished = self.finished, hub
        if kept is not None:
            if kept is not hub:
                kept.detach(self)
            self.app.fanout.release(kept)

    def _unfollow(self, table: str) -> None:
        hub = self.follows.pop(table, None)
        if hub is not None:
            if hub is not self.finished:  # (a follow of that one refused: it still tells this one of its rematch)
                hub.detach(self)
            self.app.fanout.release(hub)
        self._watch_ended(table)

    def _may_create(self) -> None:
        """A table may be created for this connection: its limit (``_check_limit``) and its address's budget of new
        tables (``Guard.may_create``, ``rate_limited``)."""
        self._check_limit()
        if not self.app.guard.may_create(self.client):
            per_minute = self.app.guard.tables_per_minute
            raise ProtocolError(Code.RATE_LIMITED, f"at most {per_minute:g} new tables a minute from one address")

    def _check_limit(self, table: str | None = None) -> None:
        """At most ``max_tables`` tables followed (games not over) and created but not followed, at once; ``table``
        is to be followed (one created here is counted already)."""
        if len(self.follows) + len(self.created) - (table in self.created) >= self.settings.max_tables:
            raise ProtocolError(
                Code.LIMIT, f"a connection may create and follow {self.settings.max_tables} tables at most"
            )

    def _check_watchers(self, hub: Hub) -> None:
        """At most ``max_watchers`` spectators at a table in this process (one already among them may watch again):
        each one costs every update of the table a write."""
        most = self.settings.max_watchers
        if most and hub.followers.get(self, 0) is not None and hub.spectators() >= most:
            raise ProtocolError(
                Code.LIMIT, f"table {hub.table} has {most} spectators, as many as this server takes: try again later"
            )

    async def _watch(self, hub: Hub, msg: Watch) -> None:
        """Follow ``hub``'s table as a spectator, in a place the client's address holds (``Guard.may_watch``) until
        the connection ends, stops following the table or follows it as a seat (``_watch_ended``)."""
        self._check_watchers(hub)
        place = hub.table not in self.watching
        if place:
            if not self.app.guard.may_watch(self.client):
                most = self.app.guard.watching.cap
                raise ProtocolError(
                    Code.LIMIT,
                    f"{most} places as a spectator held from your address already, as many as this server allows: "
                    "close a connection that watches a table first",
                )
            self.watching.add(hub.table)
        try:
            await self._follow(hub, None, msg.last_seq, msg.ref)
        except BaseException:
            if place:  # (a seat it followed the table as, it still does)
                self._watch_ended(hub.table)
            raise

    def _watch_ended(self, table: str) -> None:
        if table in self.watching:
            self.watching.discard(table)
            self.app.guard.watch_ended(self.client)

    # -- commands ----------------------------------------------------------------------------------------
    async def _dispatch(self, msg: ClientMsg) -> None:
        service = self.app.service
        if isinstance(msg, Hello):
            if msg.version != PROTOCOL_VERSION:
                raise ProtocolError(Code.VERSION, f"this server speaks protocol version {PROTOCOL_VERSION}")
            if (msg.table is None) != (msg.token is None):  # one alone would resume nothing, silently
                raise ProtocolError(Code.BAD_FIELD, "a hello resumes a seat with its table and token together")
            self.greeted = True
            if msg.views != self.views:  # (a second hello may change it, for the tables followed too)
                self.views = msg.views
                for followed in self.follows.values():
                    followed.show_views(self, msg.views)
            self.reply(self.app.welcome(msg.ref))
            self.log = self.log.bind(client=msg.client)  # (no line of its own: ``connection_closed`` ends a story)
            if msg.table is not None and msg.token is not None:
                await self._resume(msg.table, msg.token, msg.last_seq, msg.ref)
        elif isinstance(msg, Act):
            hub = self.follows.get(msg.table)
            if hub is None:  # acting at a table not followed: rare, so the general path
                async with self._table(msg.table) as hub:
                    await self._act(hub, msg)
            else:
                await self._act(hub, msg)
        elif isinstance(msg, Ping):
            self.reply(Pong(time=time.time(), ref=msg.ref))
        elif isinstance(msg, Create):
            self._may_create()
            table = await service.create(msg, self.app.guard.open_cap(self.client))
            self.noted = True
            self.created.add(table)
            self.reply(Created(table=table, ref=msg.ref))
        elif isinstance(msg, ListTables):
            listed, playing = await service.list_tables(msg.game)
            self.reply(Tables(tables=listed, playing=playing, ref=msg.ref))
        elif isinstance(msg, Join):
            if msg.table not in self.follows:
                self._check_limit(msg.table)
            async with self._table(msg.table) as hub:
                seat, token, seq = await service.join(hub, msg)
                self._caught_up(hub)
                self.noted = True
                self.log.info("seat_taken", table=msg.table, seat=seat)
                self.reply(Joined(table=msg.table, seat=seat, token=token, seq=seq, ref=msg.ref))
                await self._follow(hub, seat, None, None, token)
        elif isinstance(msg, Leave):
            async with self._table(msg.table) as hub:
                seq = await service.leave(hub, msg.token)
                self._caught_up(hub)
            self._unfollow(msg.table)
            self.reply(Left(table=msg.table, seq=seq, ref=msg.ref))
        elif isinstance(msg, Watch):
            async with self._table(msg.table) as hub:
                await self._watch(hub, msg)
        elif isinstance(msg, Start):
            async with self._table(msg.table) as hub:
                seq = await service.start(hub, msg.token, msg.cmd)
                self._caught_up(hub)
            self.reply(Started(table=msg.table, seq=seq, ref=msg.ref))
        elif isinstance(msg, Resume):
            await self._resume(msg.table, msg.token, msg.last_seq, msg.ref, msg.back)
        elif isinstance(msg, Nudge):
            async with self._table(msg.table) as hub:
                seq = await service.nudge(hub, msg.token, msg.seat)
                self._caught_up(hub)
            self.reply(Nudged(table=msg.table, seq=seq, ref=msg.ref))
        elif isinstance(msg, Rematch):
            await self._rematch(msg)
        elif isinstance(msg, Say):
            async with self._table(msg.table) as hub:  # (one not followed: to say why it is refused)
                await say(hub, self, msg)

    async def _rematch(self, msg: Rematch) -> None:
        """Play again: the finished table's rematch, made by the first seat to ask (who spends a create, within
        its limits) and found by the others."""
        async with self._table(msg.table) as hub:
            seat = await _seat(hub, msg.token)
            made, fresh = await self.app.service.rematch(
                hub, seat, self.app.guard.open_cap(self.client), self._may_create
            )
        if fresh and made.table not in self.follows:  # (created here: counted as a create's, ``_check_limit``)
            self.created.add(made.table)
        self.noted = True
        self.reply(Rematched(table=msg.table, rematch=made.table, seat=made.seat, ref=msg.ref))

    def _caught_up(self, hub: Hub) -> None:
        """Before the answer to a command that changed ``hub``'s table, the update it made (PROTOCOL): the hub
        sends it to spectators next time round the event loop, so one following the table as a spectator (whose
        token still acts) has it sent now, with those of every other spectator."""
        if hub.followers.get(self, 0) is None:
            hub.catch_up_spectators()

    async def _act(self, hub: Hub, msg: Act) -> None:
        """Apply an action; the actor's own update and its ``accepted`` leave in one write."""
        arrived = time.perf_counter()
        with self._holding():
            seat = await _seat(hub, msg.token)
            try:
                seq = await self.app.service.act(hub, seat, msg)
            finally:
                self.app.metrics.action_latency.observe(time.perf_counter() - arrived)
            self._caught_up(hub)
            self.reply(Accepted(table=msg.table, cmd=msg.cmd, seq=seq, ref=msg.ref))

    async def _resume(self, table: str, token: str, last_seq: int, ref: str | None, back: bool = False) -> None:
        async with self._table(table) as hub:
            seat = await _seat(hub, token)
            if back:
                await self.app.service.back(hub, seat)
            await self._follow(hub, seat, last_seq, ref, token)
        self.noted = True
        self.log.info("seat_resumed", table=table, seat=seat, last_seq=last_seq)


async def _seat(hub: Hub, token: str) -> int:
    """The token's seat; re-reads the table once when this process may not have seen the seat taken yet."""
    try:
        return seat_of(hub.latest.meta, token)
    except ProtocolError:
        return seat_of((await hub.refresh()).meta, token)


_UNSENT = 16 * 1024  # bytes the kernel holds for a socket beyond what is in flight (``TCP_NOTSENT_LOWAT``)
_NOTSENT_LOWAT: int | None = getattr(socket, "TCP_NOTSENT_LOWAT", None)  # (Linux, macOS: not every platform)


def _hold_little_unsent(ws: ServerConnection) -> None:
    """Have the kernel take no more than ``_UNSENT`` bytes not yet sent (Linux grows a socket's send buffer to
    megabytes): what waits for a slow client waits here, where ``drain`` and the queue see it, and a keepalive
    ping queued behind a replay does not wait behind megabytes (20 s without its pong and the client is cut)."""
    sock = ws.transport.get_extra_info("socket")
    if _NOTSENT_LOWAT is not None and sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, _NOTSENT_LOWAT, _UNSENT)


def _unacknowledged(sock: socket.socket | None) -> int:
    """Bytes the kernel holds for the socket that its peer has not acknowledged (Linux's ``SIOCOUTQ``, the same
    request as ``TIOCOUTQ``; 0 if unknown)."""
    if sock is None:
        return 0
    try:
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0])
    except OSError:
        return 0


def _peer(ws: ServerConnection, client: str | None) -> str:
    """The connection's address for the logs, and through a trusted proxy the client's: "203.0.113.9 via
    10.0.0.2:41234"."""
    address = ws.remote_address
    if not isinstance(address, tuple):
        return str(address)
    return f"{address[0]}:{address[1]}" if client == address[0] else f"{client} via {address[0]}:{address[1]}"


def _about(msg: ClientMsg) -> dict[str, Any]:
    """What a log line says of a command: its ``type`` as the protocol names it, its table (a create, a list or a
    ping has none) and an action's ``cmd``; never a token."""
    about: dict[str, Any] = {"type": msg.__struct_config__.tag}
    table = getattr(msg, "table", None)
    if table is not None:
        about["table"] = table
    if isinstance(msg, Act):
        about["cmd"] = msg.cmd
    return about
