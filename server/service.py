"""The table service: every command that changes a table, as one compare-and-set commit in Redis.

Each change reads the latest record this process knows (the hub keeps it), builds the new record, state and
logged batch, and commits them with the expected ``seq``.  When another change got there first the commit
fails with ``Conflict`` and the change is rebuilt on the newer record (read again unless this process committed
it and so holds it already), a few times at most.  So two actions for
the same table can never both commit against the same state, wherever they were received.  The server's own
decisions (a time-out's default, a bot's move: ``decide``) take the same path.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

import msgspec
import structlog

from engine.contract import Game, IllegalAction, Prompt
from engine.fairness import commitment, derive_seed
from engine.registry import games, get_game
from protocol.errors import Code, ProtocolError
from protocol.messages import Act, Create, Join, TableInfo
from server.bots import bot_action, check_strategy
from server.hub import Hub, Live
from server.ids import new_table_id
from server.metrics import Metrics
from server.store import Batch, Conflict, Crowded, Missing, Record, Rematch, Source, Store, TableMeta, encode

log = structlog.get_logger("hauntd.table")


class Change(NamedTuple):
    """What a command commits: the new record, the new encoded state (None: unchanged), the logged update,
    and (for an action or the start) the new state and events as objects, for this process's own followers."""

    meta: TableMeta
    state: bytes | None
    batch: Batch
    live: Live | None = None


By = Literal["player", "timeout", "bot"]  # who decided an action
_ATTEMPTS = 8
LOBBY_UPDATES = 200
"""The seat changes a table takes before its start: past them a ``leave`` is refused ``limit`` (a seat taken is then
kept until the start), a ``join`` never is.  Each is logged and renews the lobby's day of life, so a client joining
and leaving in a loop grew the table's log without end; people gathering at a table take a few dozen at most.  With
joins refused instead, that loop locked anyone's table in seconds: listed as open, never to be filled or started."""
NUDGE_AFTER = 120.0
"""Seconds an untimed table stands still before a seated player may ``nudge`` a seat it waits on: long enough for
a hard decision taken at leisure, short enough that a player who walked away does not hold three others for long."""
NUDGE_SECONDS = 60.0
"""Seconds a nudge gives the decisions the table waits on: a player still there, called back, has time to decide."""
# How the table refuses a command it has already applied, when the command is sent again.
_REFUSED_ON_RETRY = frozenset({Code.NOT_YOUR_TURN, Code.ILLEGAL_MOVE, Code.GAME_OVER, Code.STALE, Code.ALREADY_STARTED})


class _Seated(Exception):
    """A join sent again: its token already holds ``seat`` (the table is at ``seq``); nothing to commit."""

    def __init__(self, seat: int, seq: int) -> None:
        super().__init__(seat, seq)
        self.seat, self.seq = seat, seq


class _Present(Exception):
    """A seat resumed that is not away (any more): nothing to commit."""


class _Timed(Exception):
    """A seat nudged whose decision has a deadline already (nudged before, or away) at ``seq``: nothing moves."""

    def __init__(self, seq: int) -> None:
        super().__init__(seq)
        self.seq = seq


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_holding(meta: TableMeta, digest: str) -> int | None:
    """The seat whose token has this digest, if any.  Compares every digest in constant time."""
    found = None
    for seat, stored in enumerate(meta.tokens):
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


def seat_of(meta: TableMeta, token: str) -> int:
    """The seat ``token`` holds at this table; ``auth`` otherwise."""
    seat = seat_holding(meta, token_digest(token))
    if seat is None:
        raise ProtocolError(Code.AUTH, "that token holds no seat at this table")
    return seat


_DEALT: set[tuple[str, int, bytes]] = set()  # settings known to deal: tables are mostly created with a few


def _options_problem(game_name: str, seats: int, options: bytes) -> str | None:
    """Why a game cannot be dealt with these options and seats (None: it can).  Found by dealing one (the
    rules decide what is valid).  Settings that deal are remembered (a bounded few); refused ones are not, so
    no client can fill the memory with them."""
    if (game_name, seats, options) in _DEALT:
        return None
    game = get_game(game_name)
    try:
        game.setup(seats, bytes(32), game.decode_options(msgspec.json.decode(options)), "check")
    except IllegalAction as exc:
        return exc.detail
    if len(_DEALT) < 256:
        _DEALT.add((game_name, seats, options))
    return None


def _illegal(exc: IllegalAction) -> ProtocolError:
    return ProtocolError(Code(exc.code), exc.detail)


def deadlines(
    game: Game[Any, Any, Any],
    meta: TableMeta,
    before: dict[int, Prompt],
    state: Any,
    now: float,
    grace: float,
    actor: int | None = None,
) -> dict[int, float]:
    """When the server decides for each prompted seat.  A seat that waits on while another (``actor``) acts keeps
    its deadline (a nudge's too); any other decision is new (the actor's next step too, even a prompt equal to the
    last one) and falls due at once for a bot, after ``grace`` for an away seat (at most ``turn_seconds``), after
    ``turn_seconds`` for anyone else, or never without a time limit — nor while the table is paused, every person
    at it away (the bots play on up to a person's decision): the server plays for an absent person, not a whole
    table of them, for ever.  An away seat's decision asked together with a present person's of the same kind (a
    duel's two dials, M17) falls due no sooner than theirs: its default, applied first, would tell them its bid."""
    out: dict[int, float] = {}
    if not meta.scheduled:
        return out
    paused = meta.paused
    prompts = game.prompts(state)
    for seat, prompt in prompts.items():
        if paused and seat not in meta.bots:
            continue
        due: float | None = None
        if seat in meta.bots:
            due = now
        elif seat in meta.away:
            due = now + min(grace, meta.turn_seconds if meta.turn_seconds is not None else math.inf)
        elif meta.turn_seconds is not None:
            due = now + meta.turn_seconds
        kept = meta.deadlines.get(seat)
        if kept is not None and seat != actor and before.get(seat) == prompt:
            due = kept if due is None else min(kept, due)  # (an away seat's, put off for a present one's: its own)
        if due is not None:
            out[seat] = due
    present = [seat for seat in prompts if seat not in meta.bots and seat not in meta.away]
    for seat in meta.away:
        if seat in out:
            kind = prompts[seat].kind
            latest = max((out.get(p, math.inf) for p in present if prompts[p].kind == kind), default=-math.inf)
            if latest == math.inf:
                del out[seat]
            else:
                out[seat] = max(out[seat], latest)
    return out


class TableService:
    def __init__(
        self,
        store: Store,
        metrics: Metrics,
        away_grace: float = 2.0,
        nudge_after: float = NUDGE_AFTER,
        nudge_seconds: float = NUDGE_SECONDS,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.away_grace = away_grace  # how long the server waits before deciding for an away seat
        self.nudge_after = nudge_after  # how long an untimed table stands still before a seat may be nudged
        self.nudge_seconds = nudge_seconds  # the time a nudge gives the decisions the table waits on

    # -- lobby -------------------------------------------------------------------------------------------
    async def create(self, msg: Create, cap: tuple[str, int] | None = None) -> str:
        """Store a new table; ``cap``: the creator's address and the open public tables it may have
        (``Guard.open_cap``), past which a public one is refused ``open_limit``."""
        table, _ = await self._create(msg, cap)
        return table

    async def _create(self, msg: Create, cap: tuple[str, int] | None, source: Source | None = None) -> tuple[str, bool]:
        """``create``: the table, and False when ``msg.cmd`` made it before (or ``source``, a finished table, has
        its rematch already: that one, ``Store.create``)."""
        game = games().get(msg.game)
        if game is None:
            raise ProtocolError(Code.BAD_OPTION, f"no game {msg.game!r}; games: {', '.join(games())}")
        if not game.min_seats <= msg.seats <= game.max_seats:
            raise ProtocolError(Code.BAD_OPTION, f"{msg.game} seats {game.min_seats}–{game.max_seats}")
        if msg.bots:
            if msg.bots >= msg.seats:
                raise ProtocolError(Code.BAD_OPTION, f"at most {msg.seats - 1} bots: a person must sit down too")
            check_strategy(msg.game, msg.bot_strategy)
        problem = _options_problem(msg.game, msg.seats, msgspec.json.encode(msg.options))
        if problem is not None:
            raise ProtocolError(Code.BAD_OPTION, problem)
        secret = secrets.token_bytes(32)  # the server's share of the seed (M30), never shown before the end
        meta = TableMeta(
            game=msg.game,
            seats=msg.seats,
            private=msg.private,
            turn_seconds=msg.turn_seconds,
            options=msg.options,
            created=time.time(),
            names=[f"bot-{seat}" if seat < msg.bots else None for seat in range(msg.seats)],
            tokens=[None] * msg.seats,
            bots=dict.fromkeys(range(msg.bots), msg.bot_strategy),
            secret=secret.hex(),
            nonces=[""] * msg.seats,  # a bot's seat adds nothing: a nonce the server drew could be picked late
        )
        while True:
            table = new_table_id(msg.private)
            published = msgspec.structs.replace(meta, secret_commitment=commitment(secret, table))
            try:
                made = await self.store.create(table, published, msg.cmd, cap, source)
            except Crowded as crowded:
                raise ProtocolError(
                    Code.OPEN_LIMIT,
                    f"{crowded.cap} open public tables from your address already: start or fill one (a table leaves "
                    "the count once started or full, or once nobody is at it for a while), or create a private one",
                ) from None
            if made is not None:
                break
        table, fresh = made
        if not fresh:
            return made  # a create sent again: the table it made the first time
        self.metrics.tables_created.inc()
        again = {"rematch_of": source.table} if source is not None else {}
        log.info(
            "table_created", table=table, game=msg.game, seats=msg.seats, private=msg.private, bots=msg.bots, **again
        )
        return made

    async def rematch(
        self, hub: Hub, seat: int, cap: tuple[str, int] | None, may_create: Callable[[], None]
    ) -> tuple[Rematch, bool]:
        """The rematch of ``hub``'s finished table, asked for by ``seat`` (``not_over`` before the end): made
        (``create``, from the table's own settings, once ``may_create`` let it: the asker's limits) by the first to
        ask, on any process, and found by every later ask; and whether this ask made it.  Its followers let go at
        the end are told (``Hub.rematched``)."""
        record = hub.latest if hub.latest.meta.status == "over" else await hub.refresh()
        meta = record.meta
        if meta.status != "over":
            raise ProtocolError(Code.NOT_OVER, "the game is not over: a rematch is asked for once it is")
        fresh = False
        if hub.rematch is None:
            may_create()
            again = Create(
                game=meta.game,
                seats=meta.seats,
                options=meta.options,
                private=meta.private,
                turn_seconds=meta.turn_seconds,
                bots=len(meta.bots),
                bot_strategy=next(iter(meta.bots.values()), "greedy"),
            )
            table, fresh = await self._create(again, cap, Source(hub.table, seat))
            made = Rematch(table, seat) if fresh else (await hub.load()).rematch  # (another's: who asked first)
            hub.rematched(made or Rematch(table, seat))
        assert hub.rematch is not None  # (set just above, or before)
        return hub.rematch, fresh

    async def list_tables(self, game: str | None) -> tuple[list[TableInfo], list[TableInfo]]:
        """The open public tables and those in play (``Store.lobby``), of ``game`` or all.  What is listed of a game
        in play is what any spectator sees of it: its seats' names, its bots' seats, its ``seq``, its start; of an
        open table, its bots' seats (so its seats taken by people are told from those a bot holds)."""
        lobby = await self.store.lobby(game)
        listed = [
            TableInfo(
                table=table,
                game=meta.game,
                seats=meta.seats,
                taken=sum(n is not None for n in meta.names),
                status=meta.status,
                turn_seconds=meta.turn_seconds,
                bots=sorted(meta.bots),
            )
            for table, _, meta in lobby.open
        ]
        playing = [
            TableInfo(
                table=table,
                game=meta.game,
                seats=meta.seats,
                taken=meta.seats,
                status=meta.status,
                turn_seconds=meta.turn_seconds,
                names=[name or "" for name in meta.names],
                bots=sorted(meta.bots),
                seq=seq,
                started=started,
            )
            for table, seq, meta, started in lobby.playing
        ]
        return listed, playing

    async def join(self, hub: Hub, msg: Join) -> tuple[int, str, int]:
        """Seat ``msg.name``; returns the seat, its token (shown once, stored hashed) and the update's seq.
        The token may already hold a seat (a join sent again): that seat, as of the table's current seq.  The
        client's own token held it from a first try; a token drawn here (128 random bits), from this very join's
        commit, when the store ran it but its reply was lost and the store client sent it again."""
        token = msg.token or secrets.token_urlsafe(16)
        digest = token_digest(token)
        chosen: list[int] = []

        def build(record: Record) -> Change:
            meta = record.meta
            held = seat_holding(meta, digest)
            if held is not None:
                raise _Seated(held, record.seq)
            _lobby_only(meta)
            if msg.seat is not None:
                if msg.seat >= meta.seats:
                    raise ProtocolError(Code.BAD_FIELD, f"seats are 0–{meta.seats - 1}")
                if meta.names[msg.seat] is not None:
                    raise ProtocolError(Code.TABLE_FULL, f"seat {msg.seat} is taken")
                seat = msg.seat
            elif None in meta.names:
                seat = meta.names.index(None)
            else:
                raise ProtocolError(Code.TABLE_FULL, "every seat is taken")
            new = meta.seated(seat, msg.name, digest, msg.nonce)
            chosen[:] = [seat]
            return Change(new, None, Batch(seq=record.seq + 1, at=time.time(), seats=new.seat_infos()))

        try:
            seq, _ = await self._change(hub, build)
        except _Seated as seated:
            return seated.seat, token, seated.seq
        await self.store.set_open(hub.table, hub.latest.meta)
        return chosen[0], token, seq

    async def leave(self, hub: Hub, token: str) -> int:
        def build(record: Record) -> Change:
            meta = record.meta
            _lobby_only(meta)
            seat = seat_of(meta, token)
            if record.seq >= LOBBY_UPDATES:  # (the lobby's every update is a seat change)
                raise ProtocolError(Code.LIMIT, f"{LOBBY_UPDATES} seat changes already: seats are kept until the start")
            new = meta.seated(seat, None, None)
            return Change(new, None, Batch(seq=record.seq + 1, at=time.time(), seats=new.seat_infos()))

        seq, _ = await self._change(hub, build)
        await self.store.set_open(hub.table, hub.latest.meta)
        return seq

    async def start(self, hub: Hub, token: str, cmd: str | None = None) -> int:
        """Deal the game (any seated player may, once every seat is taken) and publish the seed commitment.
        A start sent again with the same ``cmd`` and token gets the seq it committed as (the command key names
        the token, as an action's names its seat: another token reusing the ``cmd`` is told ``already_started``)."""

        def build(record: Record) -> Change:
            meta = record.meta
            _lobby_only(meta)
            seat_of(meta, token)
            if None in meta.names:
                raise ProtocolError(Code.NOT_STARTED, "every seat must be taken first")
            game = get_game(meta.game)
            seed = _seed(meta)
            try:
                state = game.setup(meta.seats, seed, game.decode_options(meta.options), hub.table)
            except IllegalAction as exc:
                raise ProtocolError(Code.BAD_OPTION, exc.detail) from None
            new = msgspec.structs.replace(meta, status="playing", commitment=commitment(seed, hub.table))
            new.deadlines = deadlines(game, new, {}, state, time.time(), self.away_grace)
            batch = Batch(seq=record.seq + 1, at=time.time(), status="playing")
            return Change(new, game.encode_state(state), batch, Live(state, []))

        command = f"start:{token_digest(token)[:16]}:{cmd}" if cmd is not None else None
        seq, fresh = await self._once(hub, build, command)
        await self.store.set_open(hub.table, hub.latest.meta)
        if fresh:
            log.info("table_started", table=hub.table, game=hub.latest.meta.game, seq=seq)
        return seq

    # -- play --------------------------------------------------------------------------------------------
    async def act(self, hub: Hub, seat: int, msg: Act) -> int:
        """Apply one action for ``seat`` at most once (``cmd``); returns the seq it committed as.  Counted (the
        ``hauntd_actions`` metric) when it commits, not when it is sent again."""
        if msg.seq is not None and msg.seq > hub.latest.seq:
            await hub.refresh()
        game = hub.game
        try:
            action = game.action_from_builtins(msg.action)
        except msgspec.ValidationError as exc:
            raise ProtocolError(Code.BAD_FIELD, f"not a {game.name} action: {exc}") from None
        command = f"c:{seat}:{msg.cmd}"

        def build(record: Record) -> Change:
            if msg.seq is not None and msg.seq != record.seq:
                why = f": seat {seat}'s time ran out, the server decided for it" if seat in record.meta.away else ""
                raise ProtocolError(Code.STALE, f"the table is at seq {record.seq}, not {msg.seq}{why}")
            return self._apply(game, record, seat, action)

        seq, fresh = await self._once(hub, build, command)
        if fresh:
            self.metrics.actions.inc()
            if hub.latest.seq == seq and hub.latest.meta.status == "over":
                log.info("table_over", table=hub.table, seq=seq)
        return seq

    async def back(self, hub: Hub, seat: int) -> None:
        """``seat``'s player says it is back (``resume`` with ``back``): an away mark is cleared (an update with
        the new seating), so it gets full decisions again and a table paused with every person away goes on.  A
        decision whose deadline has passed stays due: its default is coming, as for a late ``act`` (``stale``)."""

        def build(record: Record) -> Change:
            meta = record.meta
            if meta.status != "playing" or seat not in meta.away:
                raise _Present
            new = msgspec.structs.replace(meta, away=[s for s in meta.away if s != seat])
            state = hub.game.decode_state(record.state)
            prompts = hub.game.prompts(state)
            now = time.time()
            renewed = seat if meta.deadlines.get(seat, math.inf) > now else None  # (None: every deadline kept)
            new.deadlines = deadlines(hub.game, new, prompts, state, now, self.away_grace, renewed)
            batch = Batch(seq=record.seq + 1, at=time.time(), seats=new.seat_infos())
            return Change(new, record.state, batch)  # (the state, unchanged, for other processes' notices)

        if seat in hub.latest.meta.away:
            with contextlib.suppress(_Present):
                await self._change(hub, build)

    async def nudge(self, hub: Hub, token: str, seat: int) -> int:
        """Start a clock on ``seat``'s decision at a table without a time limit that has stood still (no update)
        for ``nudge_after`` seconds, so that each decision it waits on has been pending that long: every seat it
        waits on without a deadline gets ``nudge_seconds``, through the deadlines of a timed table (kept while
        others act, the default and the away mark when it passes, nothing once the seat has acted).  Every one,
        not the seat alone: a duel's dials then fall due together, as at a timed table, where the nudged one
        defaulted first would show the other its bid (a dial 0).  Returns the seq of the update that set them,
        or the table's seq when the seat has a deadline already (nudged before, or away): none moves."""
        latest = await hub.refresh()  # (the stillness is judged on the stored record, not on a late notice)
        logged = await self.store.batches(hub.table, latest.seq - 1, latest.seq)
        still_since = logged[-1].at if logged else math.inf

        def build(record: Record) -> Change:
            meta = record.meta
            if meta.status == "lobby":
                raise ProtocolError(Code.NOT_STARTED, "the game has not started")
            if meta.status == "over":
                raise ProtocolError(Code.GAME_OVER, "the game is over")
            nudger = seat_of(meta, token)
            if seat >= meta.seats:
                raise ProtocolError(Code.BAD_FIELD, f"seats are 0–{meta.seats - 1}")
            if meta.turn_seconds is not None:
                raise ProtocolError(Code.ILLEGAL_MOVE, "this table's decisions have their time limit already")
            if seat == nudger:
                raise ProtocolError(Code.ILLEGAL_MOVE, "you cannot nudge your own seat: decide")
            if seat in meta.bots:
                raise ProtocolError(Code.ILLEGAL_MOVE, f"seat {seat} is a server-run bot: it never waits")
            prompts = hub.game.prompts(hub.game.decode_state(record.state))
            if seat not in prompts:
                raise ProtocolError(Code.NOT_YOUR_TURN, f"seat {seat} owes no decision now")
            if seat in meta.deadlines:
                raise _Timed(record.seq)
            if meta.paused:
                raise ProtocolError(Code.ILLEGAL_MOVE, "every player is away and the table waits: say you are back")
            now = time.time()
            still = now - (still_since if record.seq == latest.seq else now)  # (a newer update: it just came)
            if still < self.nudge_after:
                raise ProtocolError(
                    Code.TOO_EARLY,
                    f"the table has stood still {still:.0f} s; a seat may be nudged after {self.nudge_after:g} s",
                )
            due = now + self.nudge_seconds
            new = msgspec.structs.replace(meta, deadlines={**{s: due for s in prompts}, **meta.deadlines})
            return Change(new, record.state, Batch(seq=record.seq + 1, at=now))  # (the state, for the notices)

        try:
            seq, fresh = await self._change(hub, build, refreshed=True)
        except _Timed as timed:
            return timed.seq
        if fresh:
            log.info("seat_nudged", table=hub.table, seat=seat, seq=seq, seconds=self.nudge_seconds)
        return seq

    def _apply(self, game: Game[Any, Any, Any], record: Record, seat: int, action: Any, by: By = "player") -> Change:
        """The change ``action`` makes.  A time-out marks the seat away; the seat's own action clears that.  A
        player's action once its deadline has passed is refused ``stale``: the server's default is coming."""
        meta = record.meta
        if meta.status == "lobby":
            raise ProtocolError(Code.NOT_STARTED, "the game has not started")
        if meta.status == "over":
            raise ProtocolError(Code.GAME_OVER, "the game is over")
        if by == "player" and meta.deadlines.get(seat, math.inf) <= time.time():
            # (else a seat whose deadline passed with another's, as a duel's two dials do, saw the other's default
            # applied first, a hidden bid now known, and answered it before the server decided its own)
            raise ProtocolError(Code.STALE, f"seat {seat}'s time is up: the server decides for it")
        state = game.decode_state(record.state)
        before = game.prompts(state) if meta.deadlines else {}  # (only a deadline set may be kept)
        try:
            events = game.apply(state, seat, action)
        except IllegalAction as exc:
            raise _illegal(exc) from None
        now = time.time()
        over = game.result(state) is not None
        away = set(meta.away)
        if by == "timeout":
            away.add(seat)
        elif by == "player":
            away.discard(seat)
        new = msgspec.structs.replace(meta, status="over" if over else "playing", away=sorted(away))
        new.deadlines = {} if over else deadlines(game, new, before, state, now, self.away_grace, seat)
        batch = Batch(
            seq=record.seq + 1,
            at=now,
            events=msgspec.Raw(encode(events)),
            seats=new.seat_infos() if new.away != meta.away else None,
            status="over" if over else None,
            seat=seat,
            action=msgspec.Raw(encode(action)),
            timeout=by == "timeout",
        )
        return Change(new, game.encode_state(state), batch, Live(state, events))

    async def decide(self, table: str, record: Record, seat: int) -> None:
        """``seat``'s deadline passed at ``record``: commit its bot's move or the rules' default (a time-out),
        exactly once whichever process gets there (a racing change makes the compare-and-set fail)."""
        meta = record.meta
        game = get_game(meta.game)
        state = game.decode_state(record.state)
        by: By = "bot" if seat in meta.bots else "timeout"
        action = bot_action(game, state, meta, seat) if by == "bot" else game.timeout_action(state, seat)
        try:
            new, state_bytes, batch, _ = self._apply(game, record, seat, action, by)
            seq, fresh = await self.store.commit(
                table, record.seq, new, state_bytes, batch, f"{by}:{record.seq}", local=False
            )
        except (Conflict, Missing):
            return  # the table moved on meanwhile: that commit scheduled what comes next
        if not fresh:
            return
        self.metrics.actions.inc()
        if by == "timeout":
            log.info("turn_timed_out", table=table, seat=seat, seq=seq, away=new.away)
        if new.status == "over":
            log.info("table_over", table=table, seq=seq)

    # -- the compare-and-set loop ------------------------------------------------------------------------
    async def _once(self, hub: Hub, build: Callable[[Record], Change], command: str | None) -> tuple[int, bool]:
        """``_change`` for a command sent with an id: a retry of one that already committed is refused by
        the table as it is now (the turn passed, the game started …), so it gets its original seq instead."""
        try:
            return await self._change(hub, build, command)
        except ProtocolError as exc:
            if command is not None and exc.code in _REFUSED_ON_RETRY:
                done = await hub.command_seq(command)  # (raises ``Missing`` when the table is gone)
                if done is not None:
                    await self._caught_up(hub, done)
                    return done, False
            raise

    async def _change(
        self, hub: Hub, build: Callable[[Record], Change], command: str | None = None, *, refreshed: bool = False
    ) -> tuple[int, bool]:
        """Commit the change ``build`` makes of the latest record, at most once, under ``command`` (the
        client's command key), or else a key drawn for this call alone.  Either way the commit is recorded under
        a key: when the store ran the script but its reply was lost, the store client sends the very same script
        again (``App``'s ``Retry``), which finds the key and answers with the seq it committed as, instead of
        a conflict that would judge the change again on the table it made itself (a leave answered ``auth``, a
        start ``already_started``).  No other call knows the drawn key, so no other call is answered with it.
        ``refreshed``: the caller read ``hub.latest`` from the store just now, so a refusal is not judged again.
        Returns the seq and whether this call committed it (False: a command found committed already)."""
        command = command if command is not None else f"once:{secrets.token_hex(8)}"
        record = hub.latest
        for _ in range(_ATTEMPTS):
            try:
                change = build(record)
            except ProtocolError as exc:
                # The record this process knows may be behind (its notices are late, or were lost while the store
                # restarted): a refusal (not your turn, a seat not yet known, not every seat taken …) is
                # judged again on the stored record once.  ``stale`` is exact: it compares with a seq in the past.
                if refreshed or exc.code is Code.STALE:
                    raise
                latest, refreshed = await hub.refresh(), True
                if latest.seq == record.seq:
                    raise
                record = latest
                continue
            meta, state, batch, live = change
            try:
                seq, fresh = await self.store.commit(hub.table, record.seq, meta, state, batch, command)
            except Conflict as conflict:
                if conflict.seq < record.seq:  # the store is behind what was committed: it came back set back
                    hub.lost(stored=conflict.seq)
                    raise Missing(hub.table) from None
                # another change got there first; this process usually committed it itself and knows it already
                record = hub.latest if hub.latest.seq >= conflict.seq else await hub.refresh()
                refreshed = True
                continue
            except Missing:
                hub.lost()  # expired under a live hub: its followers are told, and the hub is dropped
                raise
            if fresh:  # this process's followers get the update now, not when its own notice comes back
                committed = Record(seq, meta, state if state is not None else record.state)
                hub.note(committed)
                try:
                    await hub.advance(committed, batch, live)
                except Exception as exc:  # committed all the same: the hub's resync delivers it once the store answers
                    self.store.failed(log, "fanout_deferred", exc, table=hub.table, seq=seq)
            else:
                await self._caught_up(hub, seq)
            return seq, fresh
        raise ProtocolError(Code.BUSY, "the table kept changing; nothing was applied")

    async def _caught_up(self, hub: Hub, seq: int) -> None:
        """A command found committed already (as ``seq``: its reply lost, or sent again) may be news to this
        process, whose followers get it and whose commands see it now rather than at the next resync."""
        if hub.seq >= seq:
            return
        try:
            await hub.advance(await hub.load(), None)
        except Missing:
            pass  # gone since (expired): the hub has told its followers
        except Exception as exc:  # committed all the same: the resync delivers it once the store answers
            self.store.failed(log, "fanout_deferred", exc, table=hub.table, seq=seq)


def _seed(meta: TableMeta) -> bytes:
    """The game's seed (M30): derived from the table's secret and every seat's nonce; drawn here for a table
    made before seeds were derived (it has no secret)."""
    if meta.secret is None:
        return secrets.token_bytes(32)
    return derive_seed(bytes.fromhex(meta.secret), meta.nonces)


def _lobby_only(meta: TableMeta) -> None:
    if meta.status != "lobby":
        raise ProtocolError(Code.ALREADY_STARTED, "the game has already started")
