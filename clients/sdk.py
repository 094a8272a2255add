"""The async Python client of the hauntd protocol: the only code in ``clients/`` that knows the socket.

    async with Client("ws://127.0.0.1:8765") as c:
        table = await c.create("mansion", 4)
        me = await c.join(table, "Ada")
        async for msg in c:  # Events, Snapshot, GameOver, Rematched, Said, Chat, unsolicited Error
            if isinstance(msg, Events | Snapshot) and msg.legal:
                outcome = await c.act(table, msg.legal[0])   # Accepted | Rejected

Requests are matched to replies by ``ref``.  Table updates reach the iterator exactly once and in ``seq``
order: after a dropped connection the client reconnects with backoff (to the first of its URLs that answers,
when given several), resumes every seat it holds and every table it watches from the last ``seq``
it delivered (again, while the server answers that it cannot now), and re-sends unanswered commands with their
original ids (the server applies a command at most once: actions, creates and starts carry a ``cmd``, a join
carries the client's own seat token).  A command the server could not handle for a passing reason
(``internal``: its store was unreachable; ``busy``) is sent again with the same id.  A watch or resume waits
for its snapshot as long as updates keep coming (a long replay comes at the pace the client reads).
Code that only watches most updates can take them in as they arrive (``intercept``), without a task switch
for each.
When the server closes idle connections (``welcome.limits.idle_seconds``) the client sends a ``ping`` whenever
it has been quiet for a third of that.  A table the server reports gone (an unsolicited ``error`` ``not_found``
naming it: it expired) is forgotten, and the error is delivered; one its store set back (the error's ``seq``, or a
resume's ``bad_field`` with one) is delivered too, and followed again from that update: its snapshot comes next.
What a newer server of the same protocol version adds is taken as PROTOCOL.md's "Compatibility within a version"
asks: fields the client does not know are ignored, a message of a type it does not know is skipped (counted in
``skipped``, logged at debug level), and events and error codes it does not know are delivered as they came.  An
older server is sent no optional field the client leaves at its default, and a ``views`` client whose server
refuses views says hello again without them.

Updates wait for ``recv`` in a bounded inbox (``max_queue``, like websockets' own): once more than ``max_queue``
updates wait unread (the high-water mark, 1024 by default), the client stops reading its socket, and reads it
again once the application has read them down to the low-water mark (``max_queue // 4``; a ``(high, low)``
tuple sets both; None: no bound).  So a consumer that stops reading holds ``max_queue + 1`` updates at most
(and, undecoded, the rest of the socket's last read), and the server sees it stop reading: read again soon and
nothing happened; stay away and the server drops the connection (its slow-consumer cut-off, or its keepalive), which
the client notices once it reads again: it then reconnects and resumes as after any drop, and every update
still reaches ``recv`` once, in order.  ``pauses`` counts the stops, ``reconnects`` the reconnects.  While
reading is stopped no reply is read either: a request made then waits for the application to read (from
another task), or fails with ``TimeoutError`` after ``request_timeout``, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import math
import random
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.frames import Frame, Opcode
from websockets.protocol import Event, State

from clients.fairness import Checks, Noted, check
from protocol import codec
from protocol.messages import (
    PROTOCOL_VERSION,
    Accepted,
    Act,
    Chat,
    ClientMessage,
    Create,
    Created,
    Error,
    Events,
    GameOver,
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
    Said,
    Say,
    ServerMsg,
    Snapshot,
    Start,
    Started,
    TableInfo,
    Tables,
    Watch,
    Welcome,
)

log = logging.getLogger(__name__)

# The messages that update a table, as a tuple for ``isinstance`` on the hot path (a union written there is built
# anew on each call).
TABLE_UPDATES = (Events, Snapshot, GameOver)
CHAT = (Said, Chat)  # a table's chat: delivered as its updates are, but not sequenced
FOLLOWED = TABLE_UPDATES + CHAT  # what is delivered of a table this client follows
# Refusals for a passing reason, after which the same command (same id) is sent again.
RETRYABLE = frozenset({"internal", "busy"})
# The least time between two snapshots asked for by a ``views`` client whose server refused views (the page's).
VIEW_GAP = 0.08
# A resume is asked again after these too: its replay over the address's budget (the server's guard) passes.
RESUME_RETRYABLE = RETRYABLE | {"rate_limited"}


class ServerError(Exception):
    """The server refused a request: ``code`` is from the catalogue in ``protocol/errors.py``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(ConnectionError):
    """The connection dropped before the reply came (and the request is not safe to repeat)."""


class NotSeated(KeyError):
    """``act``, ``start`` or ``leave`` for a table where this client holds no seat (``seats``): join or resume it
    first.  (A ``KeyError``, as the bare lookup it replaces was.)"""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class Seat:
    """A seat held: its token (the proof it is ours) and the nonce sent for it (checked at the end, M30), a copy
    for the caller of ``Client.noted[table].nonce`` as the seat was taken: the client itself reads only ``noted``."""

    table: str
    seat: int
    token: str
    nonce: str = ""


def to_builtins(value: Any) -> Any:
    """An action given as a ``msgspec.Struct`` (e.g. one of the engine's) as the JSON object the wire wants."""
    return msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else value


class Client:
    """One connection to a hauntd server, reconnecting by itself until ``close()``.  ``url`` may list several
    servers of one store: each time, the client connects to the first that answers, in order.  ``views``: its
    ``hello`` asks for the connection's view with every update that has prompts, and with the last (for a
    client that draws the table; a bot gets its view whenever it decides anyway).  A server from before views
    refuses the field: the client says hello again without it (``viewing`` is then False) and, as the page does,
    asks for a snapshot after an update that came without its view (``_catch_up_view``)."""

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        client: str = "hauntd-sdk",
        views: bool = False,
        reconnect: bool = True,
        backoff: tuple[float, float] = (0.05, 5.0),
        request_timeout: float = 15.0,
        max_queue: int | tuple[int, int] | None = 1024,
    ) -> None:
        if max_queue is None:
            self._high: int | None = None
            self._low = 0
        else:
            self._high, self._low = (max_queue, max_queue // 4) if isinstance(max_queue, int) else max_queue
            if not 0 <= self._low <= self._high:
                raise ValueError("max_queue: the low-water mark must be between 0 and the high-water mark")
        self.urls = [url] if isinstance(url, str) else list(url)
        self._at = 0  # which of ``urls`` the client connects to
        self.client_name = client
        self.views = views
        # the connection's updates carry views: asked for, and not refused by a server from before them
        self.viewing = False
        self._owed_views: dict[str, int] = {}  # table → the last update that came without the view asked for
        self._view_asks: dict[str, asyncio.Task[None]] = {}  # table → the snapshots asked for instead
        self._view_asked_at = 0.0
        self.reconnect = reconnect
        self.backoff = backoff
        self.request_timeout = request_timeout
        self.welcome: Welcome | None = None
        self.seats: dict[str, Seat] = {}  # table → the seat this client holds there
        self.noted: dict[str, Noted] = {}  # table → as it first showed itself, and the nonce joins send (M30)
        self.watching: set[str] = set()
        self.last_seq: dict[str, int] = {}  # table → last seq delivered to the application
        self._over: dict[str, int] = {}  # table → seq of the game_over delivered (a resume sends it again)
        self.reconnects = 0
        # the next reconnect's first wait: it keeps growing while connections drop soon after opening
        self._delay, self._opened_at = backoff[0], 0.0
        self.gaps = 0  # updates that arrived out of order and forced a resync (a correct server sends none)
        self.repeats = 0  # updates that arrived again after being delivered (a correct server sends none either)
        self.skipped = 0  # messages of a type this client does not know (a newer server's), skipped
        self._ws: ClientConnection | None = None
        self._refs = itertools.count(1)
        self._cmd_prefix = secrets.token_hex(6)  # command ids: unique per client, so per seat
        self._cmds = itertools.count(1)
        self._failure: BaseException | None = None  # what the server sent that this client cannot read
        # ref → the reply's future, the request (sent again after a reconnect), when it times out (loop time)
        self._pending: dict[str, tuple[asyncio.Future[Any], ClientMessage, float]] = {}
        self._replays: set[str] = set()  # refs of the pending watches and resumes: their replays may be long
        self._timer: asyncio.TimerHandle | None = None  # one for every pending request: the earliest deadline
        self._timer_at = math.inf
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inbox = _Inbox()
        self._full = False  # more than ``max_queue`` updates wait unread: the socket is not read (``_pause``)
        self._room = asyncio.Event()  # set while not ``_full``: a reconnect waits for it
        self._room.set()
        self._held: deque[tuple[_Socket, bytes]] = deque()  # frames read past the high-water mark, not yet taken in
        self.pauses = 0  # times reading stopped because the application left ``max_queue`` updates unread
        self._intercept: Callable[[ServerMsg], bool] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._sent_at = time.monotonic()
        self._connected = asyncio.Event()
        self._closing = False
        self._restoring: asyncio.Task[None] | None = None
        self._set_back: dict[str, asyncio.Task[None]] = {}  # tables followed again after their store set them back

    @property
    def connected(self) -> bool:
        """Whether the connection is open now (not dropped, not reconnecting)."""
        return self._connected.is_set()

    @property
    def down(self) -> bool:
        """Whether the connection dropped and has not come back yet (the client is trying again)."""
        return self._running and not self.connected

    @property
    def _running(self) -> bool:
        """Whether the client is connected or reconnecting: not yet connected, closed or ended, it is not."""
        return self._reader is not None and not self._reader.done() and not self._closing

    @property
    def url(self) -> str:
        """The server this client connects to (now, or next after a drop)."""
        return self.urls[self._at]

    # -- life cycle --------------------------------------------------------------------------------------
    async def connect(self) -> Welcome:
        """Open the connection (to the first of the URLs that answers) and say hello; raises ``ServerError``
        (e.g. ``version``) or ``OSError``."""
        for tried in range(len(self.urls)):
            try:
                await self._open()
                break
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
                if tried == len(self.urls) - 1:
                    raise
                self._at = (self._at + 1) % len(self.urls)
        if self._closing:  # closed meanwhile: nothing is left running
            self._connected.clear()
            assert self._ws is not None
            await self._ws.close()
            raise ConnectionLost("client closed")
        self._reader = asyncio.create_task(self._read_loop())
        self._keeper = asyncio.create_task(self._keepalive())
        assert self.welcome is not None
        return self.welcome

    async def close(self) -> None:
        """Close the connection for good: requests still waiting raise ``ConnectionLost``, and so does ``recv``
        once the updates already received are read."""
        self._closing = True
        for task in (self._keeper, self._reader, self._restoring, *self._set_back.values()):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._connected.clear()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        self._fail_pending(ConnectionLost("client closed"), everything=True)
        if self._timer is not None:
            self._timer.cancel()
        if not any(isinstance(item, BaseException) for item in self._inbox.items):
            self._inbox.put(ConnectionLost("client closed"))  # a reader waiting for an update is not left waiting

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _open(self) -> None:
        ws = await connect(
            self.url,
            max_size=None,
            open_timeout=10,
            ping_interval=20,
            ping_timeout=20,
            compression=None,
            create_connection=_Socket,
        )
        assert isinstance(ws, _Socket)
        closed = asyncio.ensure_future(ws.wait_closed())
        try:
            reply = await self._greet(ws, closed, self.views)
            viewing = self.views and not (isinstance(reply, Error) and reply.code == "bad_field")
            if self.views and not viewing:
                # a server from before ``views`` refuses the field, leaving the connection open, not greeted: hello
                # again without it, as the page does; its view is then asked for (``_ask_view``)
                reply = await self._greet(ws, closed, False)
        except asyncio.CancelledError:  # whoever cancelled wants out now: a close handshake waits up to 10 s for
            ws.transport.abort()  # a server that stopped answering (a load test's --connect-timeout, passed)
            raise
        except BaseException:
            await ws.close()
            raise
        finally:
            closed.cancel()
        if isinstance(reply, Error):
            await ws.close()
            raise ServerError(reply.code, reply.message)
        if not isinstance(reply, Welcome):
            await ws.close()
            raise ServerError("internal", f"expected welcome, got {type(reply).__name__}")
        self.welcome = reply
        self.viewing = viewing
        self._ws = ws
        self._opened_at = time.monotonic()
        self._connected.set()

    async def _greet(self, ws: _Socket, closed: asyncio.Future[None], views: bool) -> ServerMsg:
        """Say hello on ``ws`` (asking for ``views`` or not); the answer, unless the connection closes first (its
        server killed meanwhile, say).  Every frame after the answer is dispatched as it arrives (``_on_frame``)."""
        greeted: asyncio.Future[ServerMsg] = self._running_loop().create_future()
        ws.on_frame = functools.partial(self._on_frame, ws, greeted)
        hello = Hello(version=PROTOCOL_VERSION, client=self.client_name, views=views, ref="hello")
        await ws.send(codec.encode(hello), text=True)
        await asyncio.wait((greeted, closed), timeout=self.request_timeout, return_when=asyncio.FIRST_COMPLETED)
        if not greeted.done():
            raise ConnectionLost("closed before the welcome") if closed.done() else TimeoutError("no welcome")
        return greeted.result()

    # -- requests ----------------------------------------------------------------------------------------
    async def _request(self, msg: ClientMessage, *, timeout: float | None = None) -> Any:
        """Send ``msg`` (built for this call: its ``ref`` is set here) and wait for the reply that echoes it.  While
        the connection is down the request waits, pending, for the reconnect to send it, and fails at its deadline
        like any other."""
        if not self._running:
            raise ConnectionLost("client closed" if self._closing else "not connected")
        if msg.ref is None:
            msg.ref = str(next(self._refs))
        ref = msg.ref
        loop = self._running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        deadline = loop.time() + (timeout or self.request_timeout)
        self._pending[ref] = (future, msg, deadline)
        if isinstance(msg, Watch | Resume):
            self._replays.add(ref)
        if deadline < self._timer_at:
            self._set_timer(deadline)
        try:
            await self._send(msg)  # not while the connection is down: the reconnect sends what is pending
            return await future
        finally:
            self._pending.pop(ref, None)
            self._replays.discard(ref)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The loop this client runs in, looked up once (every lookup asks the system for the pid)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def _set_timer(self, deadline: float) -> None:
        """Have ``_expire`` run at ``deadline``: the one timer of all pending requests, for the earliest (a
        timer per request cost a heap push and a cancel on every action)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = deadline
        self._timer = self._running_loop().call_at(deadline, self._expire)

    def _replaying(self) -> None:
        """An update came: the pending watches and resumes get ``request_timeout`` from now.  Their replies end
        replays that the server sends at the pace this client reads (behind one another, in the order asked), so
        they fail when updates stop coming, not when one is longer than ``request_timeout``."""
        deadline = self._running_loop().time() + self.request_timeout
        for ref in self._replays:
            future, msg, _ = self._pending[ref]
            self._pending[ref] = (future, msg, deadline)

    def _expire(self) -> None:
        """Fail the pending requests past their deadline with ``TimeoutError``; the timer waits for the next."""
        self._timer, self._timer_at = None, math.inf
        now, later = self._running_loop().time(), math.inf
        for future, _, deadline in list(self._pending.values()):
            if future.done():
                continue
            if deadline <= now:
                future.set_exception(TimeoutError(_NO_REPLY_WHILE_FULL if self._full else "no reply in time"))
            else:
                later = min(later, deadline)
        if later < math.inf:
            self._set_timer(later)

    async def _send(self, msg: ClientMessage) -> None:
        """Send ``msg`` now, or not at all while the connection is down (a request stays pending: the reconnect
        sends it again, ``_restore``; a resync is the reconnect's resume)."""
        ws = self._ws
        if ws is None or not self._connected.is_set():
            return
        frame = codec.encode(msg)
        self._sent_at = time.monotonic()
        if ws.protocol.state is State.OPEN and ws.transport.get_write_buffer_size() <= ws.write_limit_high:
            ws.protocol.send_text(frame)  # the socket keeps up: write now, no await
            ws.send_data()
            return
        with contextlib.suppress(ConnectionClosed):  # the reconnect re-sends what is still pending
            await ws.send(frame, text=True)

    async def _keepalive(self) -> None:
        """A ``ping`` after a third of the server's idle limit without sending anything; nothing (and no wake-up)
        while there is no connection."""
        while self.welcome is not None and self.welcome.limits.idle_seconds:
            if not self._connected.is_set():
                await self._connected.wait()
                continue
            quiet = self.welcome.limits.idle_seconds / 3
            await asyncio.sleep(max(0.01, self._sent_at + quiet - time.monotonic()))
            if time.monotonic() - self._sent_at >= quiet and self._connected.is_set():
                with contextlib.suppress(ConnectionLost):
                    await self._send(Ping())

    async def _retried(self, msg: ClientMessage) -> Any:
        """``_request`` for a command safe to repeat (it carries its id): sent again, with backoff, while the
        server refuses it for a passing reason (``RETRYABLE``, e.g. its store is restarting) for up to
        ``request_timeout``."""
        delay, give_up = self.backoff[0], time.monotonic() + self.request_timeout
        reply = await self._request(msg)
        while _code(reply) in RETRYABLE and time.monotonic() + delay < give_up and not self._closing:
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(self.backoff[1], delay * 2)
            msg.ref = None
            reply = await self._request(msg)
        return reply

    async def _expect(self, msg: ClientMessage, kind: type[Any]) -> Any:
        reply = await (self._retried(msg) if _repeatable(msg) else self._request(msg))
        if isinstance(reply, Error):
            raise ServerError(reply.code, reply.message)
        if not isinstance(reply, kind):
            raise ServerError("internal", f"expected {kind.__name__}, got {type(reply).__name__}")
        return reply

    async def create(
        self,
        game: str,
        seats: int,
        *,
        options: dict[str, Any] | None = None,
        private: bool = False,
        turn_seconds: float | None = None,
        bots: int = 0,
        bot_strategy: str = "greedy",
    ) -> str:
        """Create a table; returns its id.  The creator is not seated: ``join`` next."""
        msg = Create(
            game=game,
            seats=seats,
            options=options or {},
            private=private,
            turn_seconds=turn_seconds,
            bots=bots,
            bot_strategy=bot_strategy,
            cmd=secrets.token_urlsafe(16),  # a create sent again (after a reconnect) makes no second table
        )
        reply: Created = await self._expect(msg, Created)
        return reply.table

    async def list_tables(self, game: str | None = None) -> list[TableInfo]:
        reply: Tables = await self._expect(ListTables(game=game), Tables)
        return reply.tables

    async def join(
        self, table: str, name: str, seat: int | None = None, *, nonce: str | None = None, token: str | None = None
    ) -> Seat:
        """Take a seat (or the first free one); the seat's snapshot then arrives on the iterator.  ``token``: the
        seat's, of the caller's drawing (``secrets.token_urlsafe(16)``), to keep before the join goes out (``hauntd
        bot --state``): a join sent again with it, by any process, answers with the seat it holds; by default
        one drawn here.  ``nonce`` is
        this seat's share of the game's seed (M30): by default 16 random bytes in hex, drawn at this client's first
        join of the table and sent again by every later one, so a server that refuses joins gets no fresh nonce
        to pick among.  Before it leaves, the table's secret commitment and bots are noted (``noted``) from the
        first snapshot of it this client got, else by watching it first (its snapshot, and the updates up to the
        seat's, then arrive on the iterator; a join refused leaves the table watched): ``fairness`` checks the end
        against them."""
        while table not in self.noted:
            try:
                await self.watch(table)  # its snapshot is noted as it arrives (``_dispatch``)
            except ConnectionLost:
                if not self._running or not self.reconnect:
                    raise  # (else asked again once the connection is back: nothing has left yet)
        noted = self.noted[table]
        noted.nonce = nonce if nonce is not None else noted.nonce or secrets.token_hex(16)
        with self._following(table):
            # this client's own token: a join sent again gets the seat it holds, not a second one
            msg = Join(table=table, name=name, seat=seat, token=token or secrets.token_urlsafe(16), nonce=noted.nonce)
            reply: Joined = await self._expect(msg, Joined)
        self.watching.discard(table)  # the server follows it for this connection as the seat from now on
        held = Seat(reply.table, reply.seat, reply.token, noted.nonce)
        self.seats[table] = held
        return held

    def fairness(self, over: GameOver) -> Checks:
        """The end's checks (M30) of a table's ``game_over`` against what this client noted of it (``noted``)."""
        return check(self.noted[over.table], over)

    async def leave(self, table: str) -> int:
        reply: Left = await self._expect(Leave(table=table, token=self._token(table)), Left)
        del self.seats[table]
        return reply.seq

    async def watch(self, table: str) -> Snapshot:
        """Follow a table as a spectator; returns its snapshot (also delivered on the iterator)."""
        msg = Watch(table=table, last_seq=self.last_seq.get(table))
        self.watching.add(table)
        try:
            with self._following(table):
                snapshot: Snapshot = await self._expect(msg, Snapshot)
        except BaseException:
            self.watching.discard(table)
            raise
        return snapshot

    async def start(self, table: str) -> int:
        msg = Start(table=table, token=self._token(table), cmd=f"{self._cmd_prefix}-{next(self._cmds)}")
        reply: Started = await self._expect(msg, Started)
        return reply.seq

    async def nudge(self, table: str, seat: int) -> int:
        """Start a clock on ``seat``'s decision at a table without a time limit that has stood still for the
        server's ``welcome.limits.nudge_after`` seconds (``ServerError`` ``too_early`` before); returns the seq of
        the update that gave it a deadline (the table's, when it had one already: sent again, it moves nothing)."""
        reply: Nudged = await self._expect(Nudge(table=table, token=self._token(table), seat=seat), Nudged)
        return reply.seq

    async def resume(self, table: str, token: str, *, noted: Noted | None = None) -> Snapshot:
        """Take up a seat held elsewhere (its token), from the last seq this client delivered; the seat is no
        longer away (``back``).  ``noted``: what the client that joined noted of the table (``Noted.to_dict``,
        saved with the token, then ``Noted.from_dict``), so that ``fairness`` checks the end against it.  A table
        ``watch``ed first is resumed with no replay of its past updates (a connection that follows a table is sent
        only the snapshot), and is then followed as the seat."""
        if noted is not None:
            self.noted[table] = noted
        with self._following(table):
            snapshot: Snapshot = await self._expect(
                Resume(table=table, token=token, last_seq=self.last_seq.get(table, 0), back=True), Snapshot
            )
        nonce = getattr(self.noted.get(table), "nonce", None) or ""
        self.watching.discard(table)  # (watched first, to be sent no replay: followed as the seat from now on)
        self.seats[table] = Seat(table, snapshot.seat if snapshot.seat is not None else -1, token, nonce)
        return snapshot

    async def rematch(self, table: str) -> Rematched:
        """Play again: the rematch of finished ``table``, where this client holds a seat (made by the first seat to
        ask, the same one for every other); ``join`` its ``rematch`` next (``seat=`` the seat held here, to keep
        it).  The other seats' clients, and a public table's spectators, get it on the iterator, unasked."""
        reply: Rematched = await self._expect(Rematch(table=table, token=self._token(table)), Rematched)
        return reply

    async def act(
        self, table: str, action: Any, *, cmd: str | None = None, seq: int | None = None
    ) -> Accepted | Rejected:
        """Send one engine action (a dict or the engine's struct) for the seat held at ``table``.  ``cmd``
        defaults to a fresh id; the call survives reconnects and refusals for a passing reason (``RETRYABLE``,
        sent again for up to ``request_timeout``) and is applied at most once.  With ``seq`` the server rejects
        the action as ``stale`` unless the table is still at that seq."""
        msg = Act(
            table=table,
            token=self._token(table),
            cmd=cmd or f"{self._cmd_prefix}-{next(self._cmds)}",
            action=to_builtins(action),
            seq=seq,
        )
        reply = await self._retried(msg)
        if isinstance(reply, Error):
            return Rejected(table=table, cmd=msg.cmd, code=reply.code, message=reply.message, ref=reply.ref)
        if not isinstance(reply, (Accepted, Rejected)):
            raise ServerError("internal", f"expected accepted or rejected, got {type(reply).__name__}")
        return reply

    def _token(self, table: str) -> str:
        """The token of the seat held at ``table``; ``NotSeated`` when there is none."""
        held = self.seats.get(table)
        if held is None:
            watched = " (it is only watched)" if table in self.watching else ""
            raise NotSeated(f"this client holds no seat at table {table}{watched}: join it, or resume it, first")
        return held.token

    def drop(self) -> bool:
        """Cut the connection as a network failure would (no close handshake): the client reconnects and
        resumes by itself.  For tests and ``hauntd chaos``; False when there was no connection to cut."""
        if self._ws is None or not self.connected:
            return False
        self._ws.transport.abort()
        return True

    @contextlib.contextmanager
    def _following(self, table: str) -> Iterator[None]:
        """Deliver ``table``'s updates from now on (they are delivered only for tables in ``last_seq``: not for a
        table forgotten while the server still sends); undone if the request fails before any was delivered (a
        replay cut off keeps where it got to: asked again, it goes on from there, not from the start again)."""
        known = table in self.last_seq
        self.last_seq.setdefault(table, 0)
        try:
            yield
        except BaseException:
            if not known and not self.last_seq.get(table):
                self.last_seq.pop(table, None)
            raise

    def forget(self, table: str) -> None:
        """Drop what this client keeps of ``table`` (e.g. once its game is over): its updates are no longer
        delivered and it is not resumed after a reconnect.  (The server lets a table go by itself once its game is
        over: it no longer counts against the connection's limit.)"""
        self.seats.pop(table, None)
        self.noted.pop(table, None)
        self.watching.discard(table)
        self.last_seq.pop(table, None)
        self._over.pop(table, None)

    def intercept(self, handler: Callable[[ServerMsg], bool] | None) -> None:
        """Have ``handler`` take in each table update (and unsolicited error) first, as it arrives, in order
        (those already waiting for ``recv``: at once); only those it returns True for then reach ``recv`` and the
        iterator.  For code that merely watches most updates: those cost it no task switch.  ``handler`` must
        not raise (on the connection's path an exception is taken for an unreadable frame and ends the client).
        ``None``: every update reaches ``recv`` again."""
        self._intercept = handler
        if handler is not None:
            waiting, self._inbox.items = self._inbox.items, deque()
            for item in waiting:
                if isinstance(item, BaseException) or handler(item):
                    self._inbox.items.append(item)
            if self._full:
                self._drained()

    async def say(self, table: str, text: str) -> Said:
        """Say a line of chat at ``table``, where this client holds a seat; returns it as every follower gets it
        (each follower's stream has it too).  Not sent again after a reconnect: a line could come twice."""
        reply: Said = await self._expect(Say(table=table, text=text), Said)
        return reply

    async def ping(self) -> float:
        """Round-trip time in seconds."""
        sent = time.perf_counter()
        await self._expect(Ping(), Pong)
        return time.perf_counter() - sent

    # -- the stream of table updates ---------------------------------------------------------------------
    async def recv(self, timeout: float | None = None) -> ServerMsg:
        """The next table update (or unsolicited error) not kept back by ``intercept``'s handler; raises
        ``TimeoutError`` or what ended the client."""
        inbox = self._inbox
        if inbox.items:
            item = inbox.items.popleft()
        elif timeout is None:
            item = await inbox.get(self._running_loop())
        else:
            async with asyncio.timeout(timeout):
                item = await inbox.get(self._running_loop())
        if self._full:
            self._drained()
        if isinstance(item, BaseException):
            inbox.items.appendleft(item)  # keep raising it
            raise item
        return item

    def __aiter__(self) -> AsyncIterator[ServerMsg]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ServerMsg]:
        while True:
            yield await self.recv()

    # -- reading, reconnecting ---------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            while True:
                ws = self._ws
                assert ws is not None
                await ws.wait_closed()  # meanwhile every frame is dispatched as it arrives (``_on_frame``)
                if self._failure is not None:
                    raise self._failure
                self._connected.clear()
                self._ws = None
                if self._closing or not self.reconnect:
                    raise ConnectionLost("connection closed")
                await self._reconnect()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._fail_pending(exc, everything=True)
            self._inbox.put(exc)

    def _on_frame(self, ws: _Socket, greeted: asyncio.Future[ServerMsg], frame: bytes | bytearray | memoryview) -> None:
        """One text frame from ``ws``: the first answers the hello (``greeted``), the rest are dispatched (or
        held as they came, while the inbox is full: the rest of what the socket's last read carried)."""
        if greeted.done():
            if self._full:
                self._held.append((ws, bytes(frame)))
            else:
                self._take(ws, frame)
            return
        try:
            greeted.set_result(codec.decode_server(frame))
        except Exception as exc:
            greeted.set_exception(exc)

    def _take(self, ws: _Socket, frame: bytes | bytearray | memoryview) -> None:
        try:
            self._dispatch(codec.decode_server(frame))
            if self._high is not None and len(self._inbox.items) > self._high:
                self._pause(ws)
        except codec.UnknownServerType as exc:
            self._skip(exc)
        except Exception as exc:  # the server sent what this client cannot read: it ends the client
            if self._failure is None:
                self._failure = exc
                ws.transport.abort()

    def _skip(self, exc: codec.UnknownServerType) -> None:
        """A message of a type this client does not know: a newer server may send new types within the protocol
        version, which a client ignores (PROTOCOL.md, "Compatibility within a version")."""
        self.skipped += 1
        log.debug("skipped a server message: %s", exc)

    def _dispatch(self, msg: ServerMsg) -> None:
        ref = getattr(msg, "ref", None)
        if ref is not None and ref in self._pending:
            future = self._pending[ref][0]
            if not future.done():
                future.set_result(msg)
        if isinstance(msg, Events) and self._replays:
            self._replaying()
        if isinstance(msg, FOLLOWED) and msg.table not in self.last_seq:
            return  # a table this client does not follow (any more)
        if isinstance(msg, Events):
            last = self.last_seq[msg.table]
            if msg.seq <= last:
                self.repeats += 1
                return  # already delivered
            if msg.seq > last + 1:
                self.gaps += 1
                self._resync(msg.table)
                return
            self.last_seq[msg.table] = msg.seq
            if msg.view is None and self.views and not self.viewing and (msg.prompts or msg.status == "over"):
                self._ask_view(msg.table, msg.seq)
        elif isinstance(msg, Snapshot):
            self.last_seq[msg.table] = max(self.last_seq.get(msg.table, 0), msg.seq)
            noted = self.noted.get(msg.table)
            if noted is None:
                self.noted[msg.table] = Noted.of(msg)
            elif noted.commitment is None:
                noted.commitment = msg.commitment  # the seed's, as first shown (the start's snapshot)
        elif isinstance(msg, GameOver):
            if msg.seq < self.last_seq.get(msg.table, 0) or msg.seq <= self._over.get(msg.table, -1):
                return  # superseded, or delivered already (before a reconnect resumed the finished table)
            self._over[msg.table] = msg.seq
        elif isinstance(msg, Error | Rematched):
            if ref is not None:
                return  # the reply to a request: not an update
            if isinstance(msg, Error) and msg.table is not None and msg.code == "not_found":
                if msg.seq is not None and (msg.table in self.seats or msg.table in self.watching):
                    self._follow_from(msg.table, msg.seq)  # set back: it is there as of ``seq``
                else:
                    self.forget(msg.table)  # the table is gone (expired): nothing more comes, nothing to resume
        elif not isinstance(msg, CHAT):  # (a line said here too: the stream has every line)
            return  # replies (welcome, joined, accepted …) only resolve their request
        self._deliver(msg)

    def _pause(self, ws: _Socket) -> None:
        """The application left more than ``max_queue`` updates unread: stop reading the socket (as websockets'
        own ``max_queue`` does) until it has read down to the low-water mark (``_drained``)."""
        self._full = True
        if self._room.is_set():  # (not when a held frame fills it again: the socket was not read meanwhile)
            self._room.clear()
            self.pauses += 1
        ws.transport.pause_reading()

    def _drained(self) -> None:
        """Called as the application takes updates: at the low-water mark, the frames held are taken in, then
        the socket is read again (unless they filled the inbox again)."""
        if len(self._inbox.items) > self._low:
            return
        self._full = False
        held = self._held
        while held and not self._full:
            ws, frame = held.popleft()
            self._take(ws, frame)
        if self._full:
            return
        self._room.set()
        if self._ws is not None:
            self._ws.transport.resume_reading()  # (nothing if it is not paused, or closing)

    def _deliver(self, msg: ServerMsg) -> None:
        """Hand an update to the application: to ``intercept``'s handler first, then to ``recv``."""
        if self._intercept is None or self._intercept(msg):
            self._inbox.put(msg)

    def _resync(self, table: str) -> None:
        """A gap in a table's seqs (never expected from a correct server): ask for what is missing."""
        seat = self.seats.get(table)
        msg: ClientMessage
        if seat is not None:
            msg = Resume(table=table, token=seat.token, last_seq=self.last_seq.get(table, 0))
        else:
            msg = Watch(table=table, last_seq=self.last_seq.get(table, 0))
        task = asyncio.ensure_future(self._send(msg))
        task.add_done_callback(lambda t: t.exception())

    def _ask_view(self, table: str, seq: int) -> None:
        """An update (``seq``) that a ``views`` connection gets with its view came without (its server, from before
        views, refused them): a snapshot of the table, which holds it, is asked for (``_catch_up_view``)."""
        self._owed_views[table] = seq
        if table not in self._view_asks:
            task = asyncio.ensure_future(self._catch_up_view(table))
            self._view_asks[table] = task
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (refused, dropped: the next asks)

    async def _catch_up_view(self, table: str) -> None:
        """Snapshots of ``table`` (delivered as updates) until one is as new as the last update that came without
        its view; one at a time, ``VIEW_GAP`` apart, as the page asks.  The server sends a connection that follows
        the table the snapshot alone (the ``events`` before it were delivered already).  Ends at a refusal (e.g.
        ``rate_limited``) or a drop: the next update without its view, or the reconnect's resume, brings it."""
        got = 0
        try:
            while self._owed_views.get(table, 0) > got and table in self.last_seq:
                await asyncio.sleep(max(0.0, self._view_asked_at + VIEW_GAP - time.monotonic()))
                seat, last = self.seats.get(table), self.last_seq.get(table, 0)
                msg: ClientMessage
                if seat is not None:
                    msg = Resume(table=table, token=seat.token, last_seq=last)
                else:
                    msg = Watch(table=table, last_seq=last)
                self._view_asked_at = time.monotonic()
                reply = await self._request(msg)
                if not isinstance(reply, Snapshot):
                    return
                got = reply.seq
        finally:
            self._owed_views.pop(table, None)
            del self._view_asks[table]

    async def _reconnect(self) -> None:
        """Open a connection again, waiting longer after each failure; a connection that had lasted less than
        the longest wait counts as one (a server that welcomes, then drops, is not hammered).  Once every server
        in a row refuses this client's protocol ``version`` (they were upgraded past it), no reconnect can help:
        the ``ServerError`` ends the client, as ``recv`` then raises, rather than it trying again for ever."""
        delay = self._delay if time.monotonic() - self._opened_at < self.backoff[1] else self.backoff[0]
        self._fail_pending(ConnectionLost("connection dropped"), everything=False)
        if self._restoring is not None:
            self._restoring.cancel()
        self._at = 0  # the first server again, if it answers
        outgrown = 0  # servers in a row that refused this client's protocol version
        while not self._closing:
            # not while updates wait unread past ``max_queue``: the server would only cut this client off again
            await self._room.wait()
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(self.backoff[1], delay * 2)
            try:
                await self._open()
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError, ServerError) as exc:
                outgrown = outgrown + 1 if isinstance(exc, ServerError) and exc.code == "version" else 0
                if outgrown == len(self.urls):
                    raise
                self._at = (self._at + 1) % len(self.urls)  # that server may be down: try the next one
                continue
            if self._closing:  # (closed while it opened: ``close`` closes it, and nothing is sent on it)
                break
            self.reconnects += 1
            self._delay = delay
            if self._keeper is None or self._keeper.done():  # (the last server closed no idle connection)
                self._keeper = asyncio.create_task(self._keepalive())
            # what is pending now was sent on a connection that dropped, or not at all: ``_restore`` sends it; a
            # request made from here on is sent at once, by its own ``_request``
            unanswered = [msg for future, msg, _ in self._pending.values() if not future.done()]
            self._restoring = asyncio.create_task(self._restore(unanswered))
            return
        raise ConnectionLost("client closed")

    async def _restore(self, unanswered: list[ClientMessage]) -> None:
        """After a reconnect: follow every held seat and watched table again from the last ``seq`` delivered,
        and re-send the requests still unanswered (actions, pings, lists)."""
        follows = [asyncio.ensure_future(self._follow_again(table)) for table in [*self.seats, *self.watching]]
        await asyncio.sleep(0)  # their requests go out first
        try:
            for msg in unanswered:
                pending = self._pending.get(msg.ref or "")
                if pending is not None and not pending[0].done():  # not given up on meanwhile (timed out)
                    await self._send(msg)
            await asyncio.gather(*follows)
        finally:
            for task in follows:
                task.cancel()

    async def _follow_again(self, table: str) -> None:
        """Resume the seat held at ``table`` (or watch it) from the last ``seq`` delivered; asked again while the
        server answers it cannot now (``RESUME_RETRYABLE``), until the connection drops (the next reconnect asks)."""
        delay = self.backoff[0]
        while not self._closing:
            seat, last = self.seats.get(table), self.last_seq.get(table, 0)
            msg: ClientMessage
            if seat is not None:  # (a program that reconnects is there to play: ``back``)
                msg = Resume(table=table, token=seat.token, last_seq=last, back=True)
            elif table in self.watching:
                msg = Watch(table=table, last_seq=last)
            else:
                return  # forgotten meanwhile
            try:
                reply = await self._request(msg)
            except ConnectionLost:
                return
            except TimeoutError:
                continue
            if not isinstance(reply, Error):
                return
            if reply.code == "bad_field" and reply.seq is not None and reply.seq < last:
                reply.table = table  # set back while this client was away: the application is told, and it goes on
                self._deliver(reply)
                self._rewind(table, reply.seq)
                continue
            if reply.code not in RESUME_RETRYABLE:
                if reply.code == "not_found":
                    self.forget(table)  # gone (expired) meanwhile: not resumed again
                    reply.table = table
                self._deliver(reply)  # e.g. the table is gone: the application is told
                return
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(self.backoff[1], delay * 2)

    def _follow_from(self, table: str, seq: int) -> None:
        """Follow ``table`` again from its update ``seq``, where its store set it back (PROTOCOL.md): the updates
        delivered after it are void, and its snapshot there comes next."""
        self._rewind(table, seq)
        if table not in self._set_back:
            task = asyncio.ensure_future(self._follow_again(table))
            self._set_back[table] = task
            task.add_done_callback(lambda _: self._set_back.pop(table, None))

    def _rewind(self, table: str, seq: int) -> None:
        """Take ``table`` back to its update ``seq`` (its store set it back): the next update delivered follows it."""
        self.last_seq[table] = min(self.last_seq.get(table, 0), seq)
        self._over.pop(table, None)

    def _fail_pending(self, exc: BaseException, *, everything: bool) -> None:
        """Fail requests waiting for a reply; those safe to repeat survive a reconnect (they are re-sent)
        unless ``everything``."""
        for future, msg, _ in list(self._pending.values()):
            if not future.done() and (everything or not _repeatable(msg)):
                future.set_exception(exc)


_NO_REPLY_WHILE_FULL = (
    "no reply in time: the socket is not read while max_queue updates wait unread (recv them, or raise max_queue)"
)


def _repeatable(msg: ClientMessage) -> bool:
    """Whether sending ``msg`` again does nothing more than sending it once: reads, a nudge (its deadline never
    moves), a rematch (every ask gets the one rematch), and commands with their ids (an action's ``cmd``, a
    create's or start's ``cmd``, a join's own token)."""
    if isinstance(msg, Act | Ping | ListTables | Nudge | Rematch):
        return True
    if isinstance(msg, Create | Start):
        return msg.cmd is not None
    return isinstance(msg, Join) and msg.token is not None


def _code(reply: Any) -> str | None:
    return reply.code if isinstance(reply, (Error, Rejected)) else None


class _Inbox:
    """What ``recv`` hands out, in arrival order: table updates, unsolicited errors, and last what ended the
    client.  A deque and the futures of the readers waiting: lighter than an ``asyncio.Queue``, which looks the
    running loop up (a system call, for its pid) and keeps count of unfinished tasks on every put and get."""

    def __init__(self) -> None:
        self.items: deque[ServerMsg | BaseException] = deque()
        self._readers: deque[asyncio.Future[None]] = deque()

    def __len__(self) -> int:
        return len(self.items)

    def put(self, item: ServerMsg | BaseException) -> None:
        self.items.append(item)
        self._wake()

    async def get(self, loop: asyncio.AbstractEventLoop) -> ServerMsg | BaseException:
        """The first item, once there is one (``loop``: the one this runs in)."""
        while not self.items:
            reader = loop.create_future()
            self._readers.append(reader)
            try:
                await reader
            except BaseException:
                if reader in self._readers:
                    self._readers.remove(reader)
                elif self.items:  # woken, but leaving (cancelled): the next reader takes the item
                    self._wake()
                raise
        return self.items.popleft()

    def _wake(self) -> None:
        while self._readers:
            reader = self._readers.popleft()
            if not reader.done():
                reader.set_result(None)
                return


class _Socket(ClientConnection):
    """websockets' client connection handing each complete text frame its parser yields straight to
    ``on_frame`` once it is set: no reader task and no message queue between the socket and the client (the hot
    path of every bot).  Every other frame (ping, pong, close, a fragment) is websockets' own business."""

    on_frame: Callable[[bytes | bytearray | memoryview], None] | None = None

    def process_event(self, event: Event) -> None:
        on_frame = self.on_frame
        if on_frame is not None and isinstance(event, Frame) and event.opcode is Opcode.TEXT and event.fin:
            on_frame(event.data)
        else:
            super().process_event(event)
