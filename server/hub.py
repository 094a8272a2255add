"""Fan-out: one ``Hub`` per table this process has followers for, fed by the table's pub/sub channel.

A hub delivers every committed update exactly once and in ``seq`` order to each local follower: a notice with
the next ``seq`` is delivered as it comes; a gap (a lost notice, a reconnect to Redis) is filled from the log
with ``XRANGE`` first.  An update this process committed itself is delivered at once from the objects it has
(``Live``) and its notice, which names this process's store, is skipped.  Each update is redacted by the engine
and encoded once per *audience* (each seat, spectators), never per socket, as one ``events`` frame holding the
prompts during play, and the audience's view when it must decide or a follower of it asked for views (``hello``
``views``: a page drawing the table).  The hub also keeps the latest known record for the commands of this process
(so an action costs one Redis round trip).  Deadlines are not kept here but in Redis (``server/schedule.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, TypeVar

import msgspec
import redis.asyncio as aioredis
import structlog

from engine.contract import Game
from engine.registry import get_game
from protocol import codec
from protocol.errors import Code, ProtocolError
from protocol.messages import Chat, ChatLine, Error, Events, GameOver, PromptInfo, Rematched, Said, Snapshot
from server.guard import TokenBucket
from server.store import (
    NO_EVENTS,
    Batch,
    Missing,
    Record,
    Rematch,
    Store,
    TableMeta,
    TooNew,
    decode_batch,
    decode_meta,
    decode_notice,
    readable,
)
from server.tasks import cancel

log = structlog.get_logger("hauntd.hub")

_REPLAY_PAGE = 500  # updates a replay reads from the log at a time (as many as one XRANGE of ``Store.batches``)

Audience = int | None  # a seat, or None for spectators
_T = TypeVar("_T")


class Follower(Protocol):
    """What a hub needs of a connection: a non-blocking send of one encoded text frame, a wait until what was
    sent has gone out (False: the connection is gone), and word that the hub is done with it (the game is over
    and its ``game_over`` sent, or the table is gone): it stops following."""

    def send(self, frame: bytes) -> None: ...

    async def drain(self) -> bool: ...

    def done(self, hub: Hub) -> None: ...


@cache
def _events_decoder(game_name: str) -> msgspec.msgpack.Decoder[Any]:
    event_type: Any = get_game(game_name).event_type
    return msgspec.msgpack.Decoder(list[event_type])


def decode_events(game_name: str, raw: msgspec.Raw) -> list[Any]:
    events: list[Any] = _events_decoder(game_name).decode(raw)
    return events


@dataclass(slots=True)
class Live:
    """A change as objects, known to the process that made it: the new game state and the full events."""

    state: Any
    events: list[Any]


def prompt_infos(game: Game[Any, Any, Any], state: Any, meta: TableMeta) -> list[PromptInfo]:
    return [
        PromptInfo(seat=seat, kind=p.kind, note=p.note, deadline=meta.deadlines.get(seat))
        for seat, p in sorted(game.prompts(state).items())
    ]


def clock(prompts: list[PromptInfo] | None) -> float | None:
    """The server's time to send beside ``prompts`` when one has a deadline (a client counts down from it, not
    from its own clock, which may be minutes off)."""
    return time.time() if prompts and any(p.deadline is not None for p in prompts) else None


class Hub:
    """The followers of one table in this process, and what this process knows of the table."""

    def __init__(self, table: str, record: Record, store: Store) -> None:
        self.table = table
        self.store = store
        self.game: Game[Any, Any, Any] = get_game(record.meta.game)
        self.followers: dict[Follower, Audience] = {}
        self.behind: list[tuple[list[Follower], list[bytes], bool]] = []  # the spectators' frames held (``_deliver``)
        self.holders: dict[Follower, str] = {}  # a seat follower's token digest: it sees the seat while that holds it
        self.viewers: set[Follower] = set()  # followers whose audience's view goes with every update (``show_views``)
        self.lock = asyncio.Lock()
        self.refs = 0  # followers and commands in flight in this process (``Fanout.hub`` / ``release``)
        self.idle_since = 0.0  # loop time of the last ``release`` that left it unheld
        self.drop_timer: asyncio.TimerHandle | None = None  # ``Fanout`` drops it when it has stayed unheld
        # delivered: what every follower has been sent (the table as of ``seq``)
        self.seq = record.seq
        self.meta = record.meta
        self.state: Any = self.game.decode_state(record.state) if record.state else None
        # latest: the newest record known here (ahead of ``seq`` right after a local commit)
        self.latest = record
        self.gone = False  # the table is no longer in the store (``lost``): this hub is done
        self.rematch = record.rematch  # a finished table's rematch, once it has one
        self.after: dict[Follower, Audience] = {}  # followers let go at the end: told of its rematch, its chat
        self.heard = 0  # chat lines sent to the followers here (``said``): ``attach`` reads the last ones again
        self.chat_rates: dict[int, TokenBucket] = {}  # each seat's chat allowance in this process (``server/chat.py``)
        self.on_gone: Callable[[Hub], None] | None = None  # told once, when the table is found gone (``Fanout``)

    # -- the latest record, for commands -----------------------------------------------------------------
    def note(self, record: Record) -> None:
        if record.seq > self.latest.seq:
            self.latest = record

    async def refresh(self) -> Record:
        self.note(await self.load())
        return self.latest

    async def load(self) -> Record:
        """The stored record; a table no longer stored (it expired) ends the hub (``lost``) and raises ``Missing``."""
        return await self._unless_lost(self.store.load(self.table))

    async def command_seq(self, command: str) -> int | None:
        """The seq ``command`` committed as, if it did; a table no longer stored ends the hub and raises ``Missing``."""
        return await self._unless_lost(self.store.command_seq(self.table, command))

    async def _unless_lost(self, read: Awaitable[_T]) -> _T:
        """``read`` from the store; ``Missing`` (the table expired) ends the hub (``lost``) on its way up."""
        try:
            return await read
        except Missing:
            self.lost()
            raise

    async def _batches(self, after: int, upto: int) -> list[Batch]:
        """The logged updates ``after+1 … upto``: all of them, or ``Missing`` (the log expired with the table;
        entries are never trimmed otherwise)."""
        batches = await self.store.batches(self.table, after, upto)
        if len(batches) != upto - after:
            self.lost()
            raise Missing(self.table)
        return batches

    def lost(self, stored: int | None = None) -> None:
        """The table is gone from the store (its keys expired under a live hub) or, given ``stored`` (the seq the
        store holds, below the hub's), set back: the store came back from an older copy (a snapshot, a replica
        behind its primary) and the updates after ``stored`` are nowhere but in what followers were sent.  Every
        follower is told, with an ``error`` ``not_found`` naming the table, and let go, so that no client keeps a
        view the table no longer has (one that follows it again from the start gets it as stored); the owner
        (``on_gone``) drops the hub.  Once."""
        if self.gone:
            return
        self.gone = True
        self.catch_up_spectators()
        followers = list(self.followers)
        self.followers.clear()
        self.holders.clear()
        self.viewers.clear()
        self.after.clear()
        if stored is None:
            log.info("table_gone", table=self.table, seq=self.seq, followers=len(followers))
            why = "it expired, or its store lost it"  # (a store restarted without persistence loses every table)
        else:
            log.warning(
                "table_set_back", table=self.table, seq=self.latest.seq, stored=stored, followers=len(followers)
            )
            why = f"its store lost the updates after {stored}: follow it again from the start"
        message = f"table {self.table} is gone ({why})"
        notice = codec.encode(Error(code=Code.NOT_FOUND.value, message=message, table=self.table, seq=stored))
        for conn in followers:
            conn.send(notice)
            conn.done(self)
        if self.on_gone is not None:
            self.on_gone(self)

    # -- followers ---------------------------------------------------------------------------------------
    async def attach(
        self,
        conn: Follower,
        audience: Audience,
        last_seq: int | None,
        ref: str | None,
        holder: str | None = None,
        views: bool = False,
    ) -> None:
        """Follow the table as ``audience``: the updates after ``last_seq`` (if given), a snapshot, then live.
        A client that has seen more than this process delivered (from another process) makes the hub catch up
        first, so it gets no snapshot older than what it has, nor updates again.  The follower counts only once
        its backlog is read: when the store cannot be read it is not left receiving live updates past a hole.

        A seat is followed by the digest of the token that holds it (``holder``): as of the update delivered
        now (the hub catches up when it is behind the record the token was checked on), and for as long as the
        token holds the seat (``_advance``), so a seat given back stops showing its hidden values.  ``views``: it
        gets its audience's view with every update that has prompts, and the last (``show_views``).

        The table is read from the store on the way (an existence check, before the lock: the table's updates do
        not wait behind it): a hub can outlive its table (expired), and a table no longer stored raises
        ``Missing`` and ends the hub rather than being followed.  Its rematch is read with it, and its last chat
        lines, sent after the snapshot (read again under the lock only when a line was said here meanwhile: each
        line comes in them or live, ``said``).

        The backlog goes out at the client's pace first (``_replay``), without the lock; what is left of it when
        the lock is taken (what was delivered meanwhile) goes out with the snapshot, before any live update.  A
        connection already following has had every update live: it gets none again, whatever its ``last_seq``."""
        self.catch_up_spectators()
        if last_seq is not None:
            replayed = await self._replay(conn, audience, last_seq, holder)
            if replayed is None:  # the connection is gone
                return
            last_seq = replayed
        heard = self.heard
        glance = await self.store.glance(self.table)
        if glance.seq is None:
            self.lost()
        if glance.rematch is not None:  # (its notice may have been lost: this hub may be kept for ever)
            self.rematched(glance.rematch)
        lines = glance.lines
        async with self.lock:
            if last_seq is not None and last_seq > self.seq:
                await self._advance(await self.load(), None)
                if last_seq > self.seq:  # seen by the client, lost by the store (``lost``), or made up
                    raise ProtocolError(
                        Code.BAD_FIELD,
                        f"last_seq {last_seq} is past the table's last update, {self.seq}: follow it from the start",
                        seq=self.seq,
                    )
            if audience is not None and not self._holds(audience, holder):
                await self._advance(await self.load(), None)
                if not self._holds(audience, holder):
                    raise ProtocolError(Code.AUTH, "that token holds no seat at this table")
            self.catch_up_spectators()
            backlog = []
            if last_seq is not None and last_seq < self.seq and conn not in self.followers:  # (a follower has them)
                backlog = await self._batches(last_seq, self.seq)
            if self.heard != heard:  # a line said here since the read, before this follower hears them: read again
                lines = await self.store.chat(self.table)
            if self.gone:  # (also when found gone meanwhile, by another command or the resync)
                raise Missing(self.table)
            over = self.meta.status == "over"
            if not over:
                self.followers[conn] = audience
                if holder is not None and audience is not None:
                    self.holders[conn] = holder
                else:
                    self.holders.pop(conn, None)
                self.show_views(conn, views)
            for batch in backlog:
                conn.send(self._events_frame(batch, audience, self._full_events(batch)))
            conn.send(self._snapshot_frame(audience, ref))
            if lines:
                conn.send(codec.encode(Chat(table=self.table, lines=lines)))
            if over:  # nothing more will come: the connection need not follow it, but for its rematch and chat
                conn.send(self._game_over_frame())
                self._let_go(conn, audience)

    async def _replay(self, conn: Follower, audience: Audience, after: int, holder: str | None) -> int | None:
        """Send the updates after ``after`` delivered here, read a page at a time, each once ``conn`` has sent
        the one before (``Follower.drain``): a client on a slow link takes a long replay at its own pace, while
        the table's other followers and commands go on.  Returns the seq replayed up to (``attach`` sends the
        rest under the lock), or None once the connection is gone.

        Only while the token holds the seat (checked after every wait: ``attach`` judges it otherwise), and not
        to a connection already following (its live updates must not come between)."""
        while (
            after < self.seq
            and not self.gone
            and conn not in self.followers
            and (audience is None or self._holds(audience, holder))
        ):
            for batch in await self._batches(after, min(self.seq, after + _REPLAY_PAGE)):
                if not await conn.drain():
                    return None
                if audience is not None and not self._holds(audience, holder):
                    break
                conn.send(self._events_frame(batch, audience, self._full_events(batch)))
                after = batch.seq
        return after

    def said(self, line: ChatLine, by: Follower | None = None, ref: str | None = None) -> None:
        """Send a chat line to every follower and everyone kept after the end (``after``; ``by``, who said it, with
        its ``ref``), after what the spectators are still owed.  Called under ``lock``, as ``attach`` reads the last
        lines: a follower gets each line in those or after them (from another process a line may come in both:
        ``n`` tells)."""
        self.catch_up_spectators()
        self.heard += 1
        fields = msgspec.structs.asdict(line)
        frame = codec.encode(Said(table=self.table, **fields))
        for conn in itertools.chain(self.followers, self.after):
            conn.send(frame if conn is not by else codec.encode(Said(table=self.table, ref=ref, **fields)))

    def spectators(self) -> int:
        """How many follow the table here as spectators (a walk: for a ``watch``, not for an update)."""
        return sum(audience is None for audience in self.followers.values())

    def detach(self, conn: Follower) -> None:
        self.followers.pop(conn, None)
        self.holders.pop(conn, None)
        self.viewers.discard(conn)
        self.after.pop(conn, None)

    def _let_go(self, conn: Follower, audience: Audience) -> None:
        """The game is over and ``conn`` was sent its end: it follows no more, but hears of the table's rematch
        (``rematched``) and its seats' talk after the end (``said``) while it keeps the hub (``Follower.done``).
        One kept as a seat stays one when it watches the table too: a private table's rematch is its seats'."""
        kept = self.after.get(conn)
        self.detach(conn)
        self.after[conn] = audience if audience is not None else kept
        conn.done(self)

    def rematched(self, rematch: Rematch) -> None:
        """The finished table has its rematch: tell every follower let go at the end, once.  A private table's
        goes to its seats only (our ruling: its id is an invitation; a public one's, which anyone may watch, to its
        spectators too).  Nothing hidden: two ids and a seat."""
        if self.rematch is not None and self.rematch != rematch:
            return  # (the store keeps the first: a second one cannot be)
        first, self.rematch = self.rematch is None, rematch
        if not first:
            return
        frame = codec.encode(Rematched(table=self.table, rematch=rematch.table, seat=rematch.seat))
        for conn, audience in list(self.after.items()):
            if audience is not None or not self.meta.private:
                conn.send(frame)

    def show_views(self, conn: Follower, views: bool) -> None:
        """Whether follower ``conn`` gets its audience's view with every update that has prompts and with the last
        one (``hello`` ``views``).  The view is then computed for that audience only, once per update, and goes in
        the audience's one frame: a seat's view reaches only the followers of that seat."""
        if views and conn in self.followers:
            self.viewers.add(conn)
        else:
            self.viewers.discard(conn)

    def _holds(self, seat: int, holder: str | None) -> bool:
        return holder is not None and seat < len(self.meta.tokens) and self.meta.tokens[seat] == holder

    def _unseat_strangers(self) -> None:
        """A follower whose token no longer holds its seat (given back, maybe taken by another player, on any
        connection or process) follows on as a spectator: only a seat's holder sees its hidden values."""
        for conn, seat in self.followers.items():
            if seat is not None and not self._holds(seat, self.holders.get(conn)):
                self.followers[conn] = None
                self.holders.pop(conn, None)

    # -- updates -----------------------------------------------------------------------------------------
    async def advance(self, record: Record, batch: Batch | None, live: Live | None = None) -> None:
        """Deliver every update up to ``record.seq`` (``batch`` is its last one when known; ``live`` its state
        and events as objects, when this process made the change, so nothing is decoded again)."""
        async with self.lock:
            await self._advance(record, batch, live)

    async def _advance(self, record: Record, batch: Batch | None, live: Live | None = None) -> None:
        if record.seq <= self.seq:
            return
        upto = record.seq - 1 if batch is not None else record.seq
        batches = await self._batches(self.seq, upto) if upto > self.seq else []
        if batch is not None:
            batches.append(batch)
        self.note(record)
        tokens = self.meta.tokens
        self.seq, self.meta = record.seq, record.meta
        if record.meta.tokens != tokens:
            self._unseat_strangers()
        if live is not None:
            self.state = live.state
        else:
            self.state = self.game.decode_state(record.state) if record.state else None
        self._deliver(batches, live.events if live is not None and batch is not None else None)

    def _deliver(self, batches: list[Batch], last_events: list[Any] | None = None) -> None:
        """One ``events`` frame per update and audience; the newest one, during play, carries the prompts (the
        seat's legal actions and view with them), so an action reaches each audience as a single frame; it carries
        the view also for an audience a follower of which asked for views (``show_views``), and so does the last.
        ``last_events``: the newest update's full events, when already known as objects.

        The seats get it now, the spectators next time round the event loop (``catch_up_spectators``): each
        socket written costs a system call, so hundreds of spectators held back the players' update and the
        answer to the command that made it."""
        self.catch_up_spectators()
        audiences = set(self.followers.values())
        if not audiences:
            return
        started = any(b.status == "playing" for b in batches)
        prompts = self._prompts() if not started else None
        now = clock(prompts)
        viewing = {self.followers[conn] for conn in self.viewers} if self.viewers and not started else ()
        frames: dict[Audience, list[bytes]] = {a: [] for a in audiences}
        last = batches[-1] if batches else None
        for batch in batches:
            full = last_events if batch is last and last_events is not None else self._full_events(batch)
            newest = batch is last
            for audience in audiences:
                frames[audience].append(
                    self._events_frame(
                        batch,
                        audience,
                        full,
                        prompts if newest else None,
                        now if newest else None,
                        newest and audience in viewing,
                    )
                )
        tail = [self._game_over_frame()] if self.meta.status == "over" else []
        for audience in audiences:
            if started:
                frames[audience].append(self._snapshot_frame(audience, None))
            frames[audience].extend(tail)
        spectators = []
        for conn, audience in list(self.followers.items()):
            if audience is None:
                spectators.append(conn)
                continue
            for frame in frames[audience]:
                conn.send(frame)
            if tail:  # the game is over: nothing more will come, so its followers let it go
                self._let_go(conn, audience)
        if spectators:
            if not self.behind:
                asyncio.get_running_loop().call_soon(self.catch_up_spectators)
            self.behind.append((spectators, frames[None], bool(tail)))

    def catch_up_spectators(self) -> None:
        """Send the spectators the updates ``_deliver`` held for them, in order: next time round the event loop,
        and at once before the hub sends anything else (a newer update, a snapshot, a notice that it is gone).
        Not to one let go meanwhile (``detach``: its connection closed), which would be kept after the end."""
        behind, self.behind = self.behind, []
        for spectators, frames, over in behind:
            for conn in spectators:
                if conn not in self.followers:
                    continue
                for frame in frames:
                    conn.send(frame)
                if over:
                    self._let_go(conn, None)

    # -- frames ------------------------------------------------------------------------------------------
    def _full_events(self, batch: Batch) -> list[Any]:
        return decode_events(self.game.name, batch.events) if batch.events != NO_EVENTS else []

    def _events_frame(
        self,
        batch: Batch,
        audience: Audience,
        full: list[Any],
        prompts: list[PromptInfo] | None = None,
        now: float | None = None,
        viewed: bool = False,
    ) -> bytes:
        """Update ``batch`` for ``audience``; with ``prompts`` (the table is at ``batch.seq``), also the
        audience's legal actions and view when it must decide, and the spectators' view; ``viewed`` (the table is
        at ``batch.seq``): the audience's view in any case.  Encoded once for all the audience's followers, rather
        than a snapshot per follower asking for one after each update (as the web page did); and ``now``, the
        server's time (``clock``)."""
        redact = self.game.redact
        events = [r for e in full if (r := redact(e, audience)) is not None]
        legal = self._legal(audience) if prompts and any(p.seat == audience for p in prompts) else []
        shown = legal or viewed or (prompts and audience is None)
        view = self.game.view(self.state, audience) if shown and self.state is not None else None
        return codec.encode(
            Events(
                table=self.table,
                seq=batch.seq,
                events=events,
                seats=batch.seats,
                status=batch.status,
                timeout=batch.seat if batch.timeout else None,
                prompts=prompts or None,
                legal=legal,
                view=view,
                time=now,
            )
        )

    def _legal(self, audience: Audience) -> list[Any]:
        if audience is None or self.state is None or self.meta.status != "playing":
            return []
        return self.game.legal_actions(self.state, audience)

    def _prompts(self) -> list[PromptInfo]:
        if self.state is None or self.meta.status != "playing":
            return []
        return prompt_infos(self.game, self.state, self.meta)

    def _snapshot_frame(self, audience: Audience, ref: str | None) -> bytes:
        meta = self.meta
        prompts = self._prompts()
        rematch = self.rematch if audience is not None or not meta.private else None  # (``rematched``)
        return codec.encode(
            Snapshot(
                table=self.table,
                game=meta.game,
                seq=self.seq,
                status=meta.status,
                seats=meta.seat_infos(),
                private=meta.private,
                seat=audience,
                commitment=meta.commitment,
                secret_commitment=meta.secret_commitment,
                turn_seconds=meta.turn_seconds,
                view=self.game.view(self.state, audience) if self.state is not None else None,
                prompts=prompts,
                legal=self._legal(audience),
                time=clock(prompts),
                rematch=rematch.table if rematch else None,
                rematch_seat=rematch.seat if rematch else None,
                ref=ref,
            )
        )

    def _game_over_frame(self) -> bytes:
        result = self.game.result(self.state) if self.state is not None else None
        meta = self.meta  # the seed's inputs are revealed with it, now that the game is over (M30)
        return codec.encode(
            GameOver(
                table=self.table,
                seq=self.seq,
                commitment=meta.commitment or "",
                result=result,
                secret=meta.secret,
                nonces=meta.nonces or None,
            )
        )


_background: set[asyncio.Task[None]] = set()
_FINISHED_EVERY = 30  # resync rounds between two looks at the hubs of finished tables (about a minute)


def _spawn(coro: Awaitable[None]) -> None:
    task: asyncio.Task[None] = asyncio.ensure_future(coro)
    _background.add(task)
    task.add_done_callback(_background.discard)


class Fanout:
    """This process's hubs and its one pub/sub connection.  ``hub()`` subscribes before it reads the table,
    so no update falls between the read and the first notice; a periodic resync covers lost notices."""

    def __init__(
        self,
        store: Store,
        client: aioredis.Redis,
        *,
        idle_seconds: float = 30.0,
        resync_seconds: float = 2.0,
        on_count: Callable[[int], None] = lambda hubs: None,
        on_lag: Callable[[float], None] = lambda seconds: None,
        on_catchup: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.on_count = on_count  # told the number of hubs whenever it changes
        self.on_lag = on_lag  # told each notice's seconds from its commit (another process's) to its delivery here
        self.on_catchup = on_catchup  # told each hub the resync found behind the store (a notice lost or late)
        self.pubsub = client.pubsub()
        self.hubs: dict[str, Hub] = {}
        self._pending: dict[str, asyncio.Future[Hub]] = {}
        self._idle = idle_seconds
        self._resync = resync_seconds
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        await self.pubsub.subscribe(self.store.keys.hello)  # a subscribed connection, so ``listen`` can start at once
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._resync_loop())]

    async def close(self) -> None:
        await cancel(*self._tasks)
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()  # type: ignore[no-untyped-call]

    async def hub(self, table: str) -> Hub:
        """The table's hub, subscribed and loaded; takes a reference (``release`` it).  Raises ``Missing``, or
        ``TooNew`` for a table a newer hauntd wrote (``Store.load``)."""
        hub = self.hubs.get(table)
        if hub is None:
            pending = self._pending.get(table)
            if pending is None:
                pending = asyncio.get_running_loop().create_future()
                self._pending[table] = pending
                try:
                    hub = await self._open(table)
                except BaseException as exc:
                    pending.set_exception(exc)
                    pending.exception()  # mark retrieved: waiters re-raise it
                    # the traceback holds this frame: without the future in it, no cycle keeps the caller's
                    # connection alive until the (relaxed) cyclic collector runs
                    del pending
                    raise
                else:
                    pending.set_result(hub)
                finally:
                    del self._pending[table]
            else:
                hub = await asyncio.shield(pending)
        hub.refs += 1
        return hub

    async def _open(self, table: str) -> Hub:
        await self.pubsub.subscribe(self.store.keys.channel(table))
        try:
            record = await self.store.load(table)
        except BaseException:
            await self.pubsub.unsubscribe(self.store.keys.channel(table))
            raise
        hub = Hub(table, record, self.store)
        hub.on_gone = self._bury
        self.hubs[table] = hub
        self.on_count(len(self.hubs))
        return hub

    def retain(self, hub: Hub) -> None:
        hub.refs += 1

    def release(self, hub: Hub) -> None:
        """Drop a reference; a hub nobody holds is dropped once it has stayed so for ``idle_seconds``.  One timer
        per hub, moved on when it fires early, rather than one per release: a client sending commands about
        tables it does not follow would otherwise pile up a timer per command."""
        hub.refs -= 1
        if hub.refs <= 0:
            loop = asyncio.get_running_loop()
            hub.idle_since = loop.time()
            if hub.drop_timer is None:
                hub.drop_timer = loop.call_later(self._idle, self._drop_if_idle, hub)

    def _drop_if_idle(self, hub: Hub) -> None:
        hub.drop_timer = None
        if hub.refs > 0 or self.hubs.get(hub.table) is not hub:
            return
        loop = asyncio.get_running_loop()
        left = hub.idle_since + self._idle - loop.time()
        if left > 0:  # released again since the timer was set
            hub.drop_timer = loop.call_later(left, self._drop_if_idle, hub)
            return
        del self.hubs[hub.table]
        self.on_count(len(self.hubs))
        _spawn(self._unsubscribe(hub.table))

    def _bury(self, hub: Hub) -> None:
        """A hub whose table is gone (``Hub.lost``, its followers told already): dropped at once, whatever
        commands still hold it (they meet ``Missing``; a later one opens a hub anew and finds no table)."""
        if self.hubs.get(hub.table) is hub:
            del self.hubs[hub.table]
            self.on_count(len(self.hubs))
            _spawn(self._unsubscribe(hub.table))

    async def _unsubscribe(self, table: str) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.unsubscribe(self.store.keys.channel(table))
            if table in self.hubs or table in self._pending:
                # opened again meanwhile: its subscribe may have gone out before this unsubscribe.  The commit
                # script counts this process among the channel's listeners, so it must listen.
                await self.pubsub.subscribe(self.store.keys.channel(table))

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self.pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    table = self.store.keys.table_of(message["channel"].decode())
                    hub = self.hubs.get(table) if table is not None else None
                    if hub is not None:
                        await self._on_notice(hub, message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.store.failed(log, "pubsub_failed", exc)
                await asyncio.sleep(0.5)

    async def _on_notice(self, hub: Hub, data: bytes) -> None:
        try:
            notice = decode_notice(data)
            if isinstance(notice, dict):  # a chat line (``Store.say``)
                if notice["origin"] != self.store.origin:
                    async with hub.lock:
                        hub.said(notice["line"])
                return
            if notice.origin and notice.origin == self.store.origin:
                return  # this process made the change and delivers it itself
            if notice.rematch:
                hub.rematched(Rematch(notice.rematch, notice.rematch_seat))
                return
            readable(hub.table, notice.format)  # (a newer hauntd's: not delivered from here)
            batch = decode_batch(notice.batch)
            record = Record(batch.seq, decode_meta(notice.meta), notice.state)
            await hub.advance(record, batch)
            self.on_lag(time.time() - batch.at)
        except Missing:
            pass  # the table's log is gone (expired): the hub has told its followers (``Hub.lost``)
        except Exception as exc:
            self.store.failed(log, "notice_failed", exc, table=hub.table)

    async def _resync_loop(self) -> None:
        for rounds in itertools.count(1):
            await asyncio.sleep(self._resync)
            await self.resync(finished=rounds % _FINISHED_EVERY == 0)

    async def resync(self, *, finished: bool = True) -> None:
        """Catch every hub up with the store (a lost notice), and end those whose table is gone (expired) or set
        back (``Hub.lost``).  A finished table never changes, so its hub is only looked at with ``finished``."""
        hubs = [hub for hub in self.hubs.values() if finished or hub.meta.status != "over"]
        if not hubs:
            return
        known = [hub.latest.seq for hub in hubs]  # (committed, so stored, before the store is read)
        try:
            seqs = await self.store.seqs([hub.table for hub in hubs])
            for hub, seen, seq in zip(hubs, known, seqs, strict=True):
                if seq is None:
                    hub.lost()
                elif seq < seen:
                    hub.lost(stored=seq)
                elif seq > hub.seq and hub.meta.status != "over":  # (a finished table is final)
                    self.on_catchup()
                    try:
                        await hub.advance(await hub.load(), None)
                    except Missing:
                        pass  # gone since: ``lost`` has run
                    except TooNew as exc:  # one table a newer hauntd now serves: the others are caught up still
                        self.store.failed(log, "resync_failed", exc, table=hub.table)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.store.failed(log, "resync_failed", exc)
