"""Tables in Redis: one hash (record + encoded state), one Stream (the sequenced log), one hash of command ids.

Keys of table ``ID`` share the hash tag ``{t:ID}`` so one Lua script touches one Cluster slot:

* ``{t:ID}``      hash: ``seq`` (last committed update, 0 = created), ``meta`` (``TableMeta``, MessagePack),
                  ``state`` (``game.encode_state``, absent before the start), ``format`` (``STORE_FORMAT``),
                  ``rematch`` and ``rematch_seat`` once a finished table has its rematch (``Store.create``)
* ``{t:ID}:log``  Stream: entry ``<seq>-0`` holds field ``b``, the update's ``Batch`` (full, unredacted events,
                  who acted and the command key)
* ``{t:ID}:cmd``  hash: command key → the ``seq`` it committed as (at-most-once ``act``)
* ``{t:ID}:chat`` list: the table's last ``CHAT_LINES`` chat lines (``ChatLine``, MessagePack), oldest first;
                  the record's field ``chat`` counts every line said (``Store.say``): no game's, nor in its log

Every change is one ``EVALSHA`` of ``_COMMIT``: compare ``seq`` (the table's version), write record and state,
append the batch, record the command, refresh the expiry and ``PUBLISH`` the ``Notice`` on the table's channel,
all atomically — so a change is persisted before any process sends a byte of it.  The script builds the notice
itself, and only when another process listens on the channel (``PUBSUB NUMSUB``): the process that commits
delivers to its own followers, so a table played on one process costs no notice at all.  For a table in play (its
deadlines: a time limit's, server-run bots', a nudge's) the same step sets its entry in ``due``
(``server/schedule.py``), so the schedule always matches the committed record: that one global key is why the
store wants a single Redis (or primary), not a Cluster.

Every table is stamped with the ``STORE_FORMAT`` of the server that last wrote it, and a server refuses (``TooNew``)
to read or write one stamped newer than its own: after a rollback an older server neither misreads what a newer
one wrote nor writes it back without the fields it does not know.

Every key and channel begins with the deployment's prefix (``Keys``, ``serve --key-prefix NAME``: ``NAME:``, none
by default), so deployments sharing one Redis (staging and production) never touch each other's tables.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import BusyLoadingError, NoScriptError, OutOfMemoryError, ReadOnlyError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from engine.registry import games
from protocol.messages import ChatLine, SeatInfo

# What redis-py raises while the store is unreachable or still loading its data (say, it restarts): a passing
# state, so it is logged without a traceback (``log_failure``) and the client is told to send again.
STORE_DOWN = (RedisConnectionError, RedisTimeoutError, BusyLoadingError)
# What it raises while it refuses writes: full (``maxmemory`` under ``noeviction``) or a replica (its primary
# failed over elsewhere).  The operator's to fix, not a bug: logged without a traceback too.
STORE_REFUSES = (OutOfMemoryError, ReadOnlyError)

STORE_FORMAT = 1
"""The shape of what this version stores: ``TableMeta``, ``Batch``, ``Notice`` and every game's state, actions and
events.  Raise it with any change to them that the version before would misread or drop: msgspec fills a field it
misses from its default (or fails when it has none) and ignores one it does not know, so a renamed, removed or
retyped field, or a new field that matters, is misread, and one the older version writes back is lost.  A version
reads every format up to its own (converting older ones) and refuses newer ones.  A table with no stamp was
written before the stamp was: format 1.  ``tests/server/test_upgrade.py`` fails on any change of these shapes until
the format is decided."""
TABLE_TTL = 7 * 24 * 3600  # seconds a started table outlives its last change (a finished one stays verifiable)
LOBBY_TTL = 24 * 3600  # seconds a table not started outlives its last change: a lobby nobody comes back to
ABANDONED = 15 * 60
"""Seconds after which a public table not started is abandoned when no person is there: nobody sits (its creator
never sat, everyone left; bots alone) or nobody seated has a connection following it (``Keys.present``), since its
last change and the last time one was seen (``serve --abandoned-after``).  It then leaves the lobby's list and its
creator's count of open tables (``_CREATE``); one where nobody sits is gone from the store too (its life,
``Store.lobby_ttl``), one where a seat is taken is kept its day, for its player to come back to (listed again from
then on).  Left a day like any lobby, the tables an address abandoned (a page closed before anyone came)
were listed, and held its cap of open tables, for a day."""
OPEN_LISTED = 200  # the open public tables a lobby read lists
PLAYING_LISTED = 100  # the public tables in play a lobby read lists, the latest started
LISTED_PAGES = 10
"""A lobby read of one game pages through the indexes (of every game) until it has its ``limit`` of that game's
tables, reading at most this many pages of ``limit`` records: 200 newer Spook tables hid every mansion table from
a list of mansion tables.  A read of 2,000 records (``_RECORDS``) cost some 15 ms of the server's core here, once a
second at most for each game (``LOBBY_READ_SECONDS``)."""
LOBBY_READ_SECONDS = 1.0
"""How long ``open_tables`` answers from its last read of the lobby while this process changes nothing there (a
change made through another process shows within it).  A read was 200 tables' records, 25 times a ``ping``'s cost
to the server (half that since ``_RECORDS``), so 16 connections listing at their message rate kept a server's core
busy and every game waiting."""
CHAT_LINES = 50  # a table's chat lines kept, for who joins, watches or resumes later
PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")  # of a NAME


QUIET = 5.0  # seconds between two lines of one failure (an event, at a table) while the store is down or refuses


def failure_kind(exc: BaseException) -> str:
    """``store_down``, ``store_refused`` (``STORE_DOWN``, ``STORE_REFUSES``), ``too_new`` (``TooNew``: a newer
    hauntd's table, met while versions are mixed or after a rollback) or ``error``: anything else, a bug."""
    if isinstance(exc, STORE_DOWN):
        return "store_down"
    if isinstance(exc, TooNew):
        return "too_new"
    return "store_refused" if isinstance(exc, STORE_REFUSES) else "error"


def log_failure(logger: Any, event: str, exc: BaseException, **fields: Any) -> None:
    """Log a failure: a warning without traceback when the store is down or refuses writes (its kind the field
    saying why), an error with its traceback otherwise."""
    kind = failure_kind(exc)
    if kind == "error":
        logger.error(event, exc_info=exc, **fields)
    else:
        logger.warning(event, **{kind: f"{type(exc).__name__}: {exc}"}, **fields)


@dataclass(frozen=True, slots=True)
class Keys:
    """The names of one deployment's keys and channels, each beginning with ``prefix`` (``named("NAME")``:
    ``NAME:``), so that deployments sharing one Redis never meet — a database number (``/1``) alone would not
    part their pub/sub channels, which Redis shares between databases — and an ACL user can be held to
    ``~NAME:*`` and ``&NAME:*``.  The prefix comes before the hash tag ``{t:ID}``, which it leaves whole."""

    prefix: str = ""

    @classmethod
    def named(cls, name: str) -> Keys:
        """The keys of deployment ``name`` (``""``: none, the keys of a server started without a prefix)."""
        if set(name) - PREFIX_CHARS:
            raise ValueError(f"a key prefix is made of letters, digits, '_', '.' and '-': {name!r}")
        return cls(f"{name}:" if name else "")

    def record(self, table: str) -> str:
        return self.prefix + "{t:" + table + "}"

    def log(self, table: str) -> str:
        return self.record(table) + ":log"

    def cmds(self, table: str) -> str:
        return self.record(table) + ":cmd"

    def chat(self, table: str) -> str:
        return self.record(table) + ":chat"

    def created(self, command: str) -> str:
        """Which table a ``create`` command made: keyed by the command's digest, as it is the client's secret."""
        return self.prefix + "hauntd:created:" + hashlib.sha256(command.encode()).hexdigest()

    def channel(self, table: str) -> str:
        return self.record(table) + ":n"

    def table_of(self, channel: str) -> str | None:
        """The table whose channel this is (None: not a table's channel of this deployment)."""
        head = self.prefix + "{t:"
        return channel[len(head) : -3] if channel.startswith(head) and channel.endswith("}:n") else None

    @property
    def open(self) -> str:
        """Sorted set of public lobby tables with a free seat (score: its last change); a hint, re-checked."""
        return self.prefix + "hauntd:open"

    @property
    def waiting(self) -> str:
        """The tables of ``open`` where a person sits (``TableMeta.waiting``), scored alike; a hint, re-checked."""
        return self.prefix + "hauntd:waiting"

    @property
    def playing(self) -> str:
        """Sorted set of public tables in play (score: their start), kept by the commits that start a game and
        end it (``Store.commit``); a hint, re-checked (a table may expire in play)."""
        return self.prefix + "hauntd:playing"

    @property
    def present(self) -> str:
        """Sorted set of the public lobby tables where a seated person's connection was last seen following (score:
        when), renewed by every process (``server/presence.py``, ``Store.present``); a hint, re-checked."""
        return self.prefix + "hauntd:present"

    def opened(self, address: str) -> str:
        """Sorted set of the public tables a client address (``guard.counted_as``) created that may still be open
        (score: its creation), to cap them (``Store.create``)."""
        return self.prefix + "hauntd:opened:" + address

    @property
    def due(self) -> str:
        """Sorted set of tables by their earliest deadline (see server/schedule.py)."""
        return self.prefix + "hauntd:due"

    @property
    def hello(self) -> str:
        """The channel every process subscribes to first, so that its pub/sub connection can listen at once."""
        return self.prefix + "hauntd:hello"


NO_PREFIX = Keys()  # the keys of a deployment without a prefix


class TableMeta(msgspec.Struct, kw_only=True):
    """Everything about a table except the game state.  ``tokens`` are SHA-256 hex digests of seat tokens;
    ``bots`` maps a server-run seat to its strategy; ``away`` lists the seats that let a deadline pass (never a bot's);
    ``deadlines`` holds, per prompted seat, when the server decides for it.  ``secret`` (hex, drawn at creation,
    revealed only at the end) and ``nonces`` (each seat's, sent at join) make the seed (M30,
    ``engine.fairness.derive_seed``); ``secret_commitment`` is published from the creation on.  A table made
    before seeds were derived has neither (its seed was drawn at the start)."""

    game: str
    seats: int
    private: bool = False
    turn_seconds: float | None = None
    options: dict[str, Any] = {}
    created: float = 0.0
    status: str = "lobby"  # lobby | playing | over
    names: list[str | None] = []
    tokens: list[str | None] = []
    commitment: str | None = None
    deadlines: dict[int, float] = {}
    bots: dict[int, str] = {}
    away: list[int] = []
    secret: str | None = None
    secret_commitment: str | None = None
    nonces: list[str] = []

    def seat_infos(self) -> list[SeatInfo]:
        return [SeatInfo(seat=i, name=n, bot=i in self.bots, away=i in self.away) for i, n in enumerate(self.names)]

    def seated(self, seat: int, name: str | None, token: str | None, nonce: str = "") -> TableMeta:
        """This record with ``seat`` taken (its name, token digest and nonce) or given back (None, None, "")."""
        names, tokens, nonces = list(self.names), list(self.tokens), list(self.nonces)
        names[seat], tokens[seat] = name, token
        if nonces:  # (none at a table made before seeds were derived)
            nonces[seat] = nonce
        return msgspec.structs.replace(self, names=names, tokens=tokens, nonces=nonces)

    @property
    def waiting(self) -> bool:
        """Whether a person sits at the table (a seat taken by a ``join``, not by a server-run bot)."""
        return any(name is not None and seat not in self.bots for seat, name in enumerate(self.names))

    @property
    def scheduled(self) -> bool:
        """Whether the server may decide for a seat of the table now or at its next change: a time limit,
        server-run bots, a deadline already set (a nudge's, ``service.nudge``) or a seat away."""
        return self.turn_seconds is not None or bool(self.bots) or bool(self.deadlines) or bool(self.away)

    @property
    def paused(self) -> bool:
        """Whether every person at the table (each seat not a server-run bot) is away: the server then decides
        for none of them until one comes back (``service.deadlines``)."""
        return len(self.away) + len(self.bots) == self.seats

    def due(self) -> float | None:
        """The earliest deadline, while the game is being played."""
        return min(self.deadlines.values()) if self.status == "playing" and self.deadlines else None


NO_EVENTS = msgspec.Raw(b"\x90")  # an empty MessagePack array: an update with no events (a lobby change)
NO_ACTION = msgspec.Raw(b"\xc0")  # MessagePack nil: an update no action made


class Batch(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One committed update as logged: the full events (the game's own MessagePack), and what changed."""

    seq: int
    at: float
    events: msgspec.Raw = NO_EVENTS
    seats: list[SeatInfo] | None = None
    status: str | None = None
    seat: int | None = None  # who acted (None: a lobby change or the start)
    action: msgspec.Raw = NO_ACTION  # the action applied, for replays
    timeout: bool = False  # the action was the rules' default after a time-out
    cmd: str | None = None  # the command key it committed under (``c:<seat>:<cmd id>``, ``bot:<seq>`` …), if any


class Notice(msgspec.Struct, array_like=True):
    """What the commit publishes: enough for every process to fan the update out without reading Redis, which
    process made the change (that one has delivered it already) and in which ``STORE_FORMAT`` (1 when left out,
    by a version before the stamp).  A finished table's rematch is published as a notice of its last update again
    (which a version before ``rematch`` delivered already, so skips) naming the new table and the seat that asked."""

    batch: bytes
    meta: bytes
    state: bytes
    origin: str = ""
    format: int = 1
    rematch: str = ""
    rematch_seat: int = 0


class ChatNotice(TypedDict):
    """What ``Store.say`` publishes on the table's channel beside the commits' ``Notice`` (a map, not an array, so
    the one decoder tells them apart): the line, and which process said it (that one has delivered it already)."""

    line: ChatLine
    origin: str


class Playing(NamedTuple):
    """A public table in play as the lobby lists it: its id, last ``seq``, record and start (the index's score)."""

    table: str
    seq: int
    meta: TableMeta
    started: float


class Lobby(NamedTuple):
    """One read of the lobby: the open tables (``read_open_tables``) and those in play (``read_playing_tables``)."""

    open: list[tuple[str, int, TableMeta]]
    playing: list[Playing]


class Rematch(NamedTuple):
    """A finished table's rematch: the new table and the seat that asked for it."""

    table: str
    seat: int


class Source(NamedTuple):
    """The finished table a ``create`` is the rematch of, as the new table is stored and the rematch published:
    its id and the seat asking."""

    table: str
    seat: int


class Glance(NamedTuple):
    """What a follower is sent besides the hub's record (``Store.glance``): the table's ``seq`` (None: it is gone),
    its rematch (a notice of it may have been lost) and its last chat lines."""

    seq: int | None
    rematch: Rematch | None
    lines: list[ChatLine]


@dataclass(slots=True)
class Record:
    """A table as read from Redis: its last ``seq``, record and encoded state (``b""`` before the start), and its
    rematch once it has one."""

    seq: int
    meta: TableMeta
    state: bytes
    rematch: Rematch | None = None


class Conflict(Exception):
    """The table moved on (its ``seq`` is no longer the expected one)."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"table is at seq {seq}")
        self.seq = seq


class Missing(Exception):
    """No such table."""


class Crowded(Exception):
    """The creator's address has as many open public tables as it may (``Store.create``'s ``cap``)."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"{cap} open tables")
        self.cap = cap


class TooNew(Exception):
    """The table was last written by a newer hauntd: in a format this one does not read (``STORE_FORMAT``), or of a
    game this one does not have.  It is neither read nor written here.  The message names the table and what this
    server lacks, nothing of the game in play."""

    def __init__(self, table: str, format: int, game: str | None = None) -> None:
        lacks = (
            f"of game {game!r}, which this server does not have"
            if game is not None
            else f"stored in format {format}, newer than this server's {STORE_FORMAT}"
        )
        super().__init__(f"table {table} is {lacks}: a newer hauntd serves it")
        self.table, self.format, self.game = table, format, game


def readable(table: str, format: bytes | int | None) -> None:
    """Raise ``TooNew`` unless this version reads a table stamped ``format`` (None: not stamped, format 1)."""
    if format is not None and int(format) > STORE_FORMAT:
        raise TooNew(table, int(format))


_encoder = msgspec.msgpack.Encoder()
_meta_decoder = msgspec.msgpack.Decoder(TableMeta)
_batch_decoder = msgspec.msgpack.Decoder(Batch)
_notice_decoder = msgspec.msgpack.Decoder(Notice | ChatNotice)
_chat_decoder = msgspec.msgpack.Decoder(ChatLine)


def encode(obj: Any) -> bytes:
    """MessagePack of what is stored: a record, a batch, or a game's events and action within a batch."""
    return _encoder.encode(obj)


def decode_meta(data: bytes) -> TableMeta:
    return _meta_decoder.decode(data)


def decode_batch(data: bytes) -> Batch:
    return _batch_decoder.decode(data)


def _rematch(table: bytes | None, seat: bytes | None) -> Rematch | None:
    """A finished table's rematch, from its record's fields (``Store.create``)."""
    return Rematch(table.decode(), int(seat)) if table is not None and seat is not None else None


def _lines(raw: list[bytes]) -> list[ChatLine]:
    return [_chat_decoder.decode(line) for line in raw]


def decode_notice(data: bytes) -> Notice | ChatNotice:
    notice: Notice | ChatNotice = _notice_decoder.decode(data)
    return notice


# KEYS: record, log, cmds, chat [, due [, playing]]: never '', which a store's ACL holding a deployment to its prefix
# refuses.  ARGV: expected seq, meta, state ('' keeps it), batch, command key ('' none), channel, origin, listeners
# of the channel that need no notice (0 or 1: the committing process), ttl, format [, table id, due score ('' removes
# the table from due) [, playing score ('' removes it)]].
# Returns {1, seq} committed, {0, seq} conflict, {-1, seq} command already committed, {-2, 0} no such table,
# {-3, format} the table is stored in a newer format.
# The log, the commands and the chat live as long as the record (a lobby's lines as long as the game after it).
# The notice is a MessagePack array of three bin fields, a str and a positive fixint: ``Notice``.
_COMMIT = r"""
local cur, fmt = unpack(redis.call('HMGET', KEYS[1], 'seq', 'format'))
if not cur then return {-2, 0} end
if fmt and tonumber(fmt) > tonumber(ARGV[10]) then return {-3, tonumber(fmt)} end
cur = tonumber(cur)
if ARGV[5] ~= '' then
  local prev = redis.call('HGET', KEYS[3], ARGV[5])
  if prev then return {-1, tonumber(prev)} end
end
if cur ~= tonumber(ARGV[1]) then return {0, cur} end
local seq = cur + 1
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'seq', seq, 'meta', ARGV[2], 'state', ARGV[3], 'format', ARGV[10])
else
  redis.call('HSET', KEYS[1], 'seq', seq, 'meta', ARGV[2], 'format', ARGV[10])
end
redis.call('XADD', KEYS[2], seq .. '-0', 'b', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[5], seq) end
local ttl = tonumber(ARGV[9])
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ttl) end
if KEYS[5] then
  if ARGV[12] ~= '' then redis.call('ZADD', KEYS[5], ARGV[12], ARGV[11]) else redis.call('ZREM', KEYS[5], ARGV[11]) end
end
if KEYS[6] then
  if ARGV[13] ~= '' then redis.call('ZADD', KEYS[6], ARGV[13], ARGV[11]) else redis.call('ZREM', KEYS[6], ARGV[11]) end
end
if redis.call('PUBSUB', 'NUMSUB', ARGV[6])[2] > tonumber(ARGV[8]) then
  local function bin(s) return '\198' .. struct.pack('>I4', #s) .. s end
  local function str(s) return '\217' .. string.char(#s) .. s end
  local format = string.char(tonumber(ARGV[10]))
  redis.call('PUBLISH', ARGV[6], '\149' .. bin(ARGV[4]) .. bin(ARGV[2]) .. bin(ARGV[3]) .. str(ARGV[7]) .. format)
end
return {1, seq}
"""

# KEYS: record, chat.  ARGV: the line's MessagePack map without its header nor ``n`` (its 4 other fields), lines
# kept, channel, origin.  Numbers the line (the record's ``chat`` field), appends it to the list, keeps its last
# lines and gives it the record's time to live, publishes a ``ChatNotice`` when another process listens on the
# channel.  Returns the line's number, 0 when there is no such table.
_SAY = r"""
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'chat', 1)
local line = '\133\161n\206' .. struct.pack('>I4', n) .. ARGV[1]
redis.call('RPUSH', KEYS[2], line)
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
if redis.call('PUBSUB', 'NUMSUB', ARGV[3])[2] > 1 then
  redis.call('PUBLISH', ARGV[3], '\130\164line' .. line .. '\166origin\217' .. string.char(#ARGV[4]) .. ARGV[4])
end
return n
"""

# KEYS: record, open index, the create command's key or the record of the finished table this is the rematch of
# (the record's again: none), the creator's open tables (the record's again: no cap), present index [, a rematch's:
# the finished table's log]; never '', which a store's ACL holding a deployment to its prefix refuses.  ARGV: meta,
# ttl, table id, its score in the open index ('' private: not listed), the cap, the oldest score still open, format,
# the oldest change or presence not abandoned (``ABANDONED``), the life of the creator's set (a day, as long as the
# longest-lived of its tables: an empty one's life would forget the others) [, a rematch's: the seat asking, the
# finished table's channel, the origin].
# Returns 1 created, 0 the id is taken, -1 the creator has its cap of open tables, -2 no finished table to rematch,
# or the id of the table the same create command (the same finished table's rematch) made before.  A table still at
# seq 0 holding this very meta (its ``created`` time included) was made by this very call: run again after its
# reply was lost, it answers 1 again.  The creator's open tables are those it made still in the open index, changed
# within a day, and within ``ABANDONED`` or with a seated person seen there since: the others (started, full,
# expired, abandoned) leave its set as they are counted, so that it stays as small as the cap (a table its player
# comes back to is not counted again: that takes a connection following it).  A rematch is set on the finished table
# and published on its channel as a ``Notice`` of its last update again, as logged and stored (a version before the
# rematch delivers it as that update: skipped when it had it, its end when it had missed it), then the new id and
# the seat.
_CREATE = r"""
if KEYS[3] ~= KEYS[1] then
  local made
  if ARGV[10] then
    made = redis.call('HGET', KEYS[3], 'rematch')
    local seq = redis.call('HGET', KEYS[3], 'seq')
    if not seq or not redis.call('XRANGE', KEYS[6], seq .. '-0', seq .. '-0')[1] then return -2 end
  else
    made = redis.call('GET', KEYS[3])
  end
  if made then return made end
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  local seq, meta = unpack(redis.call('HMGET', KEYS[1], 'seq', 'meta'))
  if seq == '0' and meta == ARGV[1] then return 1 end
  return 0
end
local ttl = tonumber(ARGV[2])
if KEYS[4] ~= KEYS[1] then
  local open = 0
  for _, table in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    local score = tonumber(redis.call('ZSCORE', KEYS[2], table) or '0')
    local seen = tonumber(redis.call('ZSCORE', KEYS[5], table) or '0')
    if score >= tonumber(ARGV[6]) and math.max(score, seen) >= tonumber(ARGV[8]) then
      open = open + 1
    else
      redis.call('ZREM', KEYS[4], table)
    end
  end
  if open >= tonumber(ARGV[5]) then return -1 end
end
redis.call('HSET', KEYS[1], 'seq', 0, 'meta', ARGV[1], 'format', ARGV[7])
redis.call('EXPIRE', KEYS[1], ttl)
if ARGV[10] then
  redis.call('HSET', KEYS[3], 'rematch', ARGV[3], 'rematch_seat', ARGV[10])
  local function bin(s) return '\198' .. struct.pack('>I4', #s) .. s end
  local function str(s) return '\217' .. string.char(#s) .. s end
  local seq, meta, state = unpack(redis.call('HMGET', KEYS[3], 'seq', 'meta', 'state'))
  local last = redis.call('XRANGE', KEYS[6], seq .. '-0', seq .. '-0')[1][2][2]
  local tail = string.char(tonumber(ARGV[7])) .. str(ARGV[3]) .. string.char(tonumber(ARGV[10]))
  redis.call('PUBLISH', ARGV[11], '\151' .. bin(last) .. bin(meta) .. bin(state or '') .. str(ARGV[12]) .. tail)
elseif KEYS[3] ~= KEYS[1] then
  redis.call('SET', KEYS[3], ARGV[3], 'EX', ttl)
end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
  if KEYS[4] ~= KEYS[1] then
    redis.call('ZADD', KEYS[4], ARGV[4], ARGV[3])
    redis.call('EXPIRE', KEYS[4], ARGV[9])
  end
end
return 1
"""

# KEYS: waiting, present.  ARGV: the oldest change not expired, the oldest change or presence not abandoned.  Counts
# the tables where someone sits that changed before that and whose seated person was seen since: ``read_open_tables``'
# test, as ``count_lobby`` needs it without reading each record.
_QUIET_SEEN = """
local n = 0
for _, table in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '(' .. ARGV[2])) do
  local seen = redis.call('ZSCORE', KEYS[2], table)
  if seen and tonumber(seen) >= tonumber(ARGV[2]) then n = n + 1 end
end
return n
"""

# KEYS: records.  Returns each one's seq, meta and format (nil: none), as one reply: a lobby read is a page of 200
# records, and redis-py's reply to each of 200 HMGETs of a pipeline cost the server 20 µs of its core to parse.
_RECORDS = """
local rows = {}
for i, key in ipairs(KEYS) do rows[i] = redis.call('HMGET', key, 'seq', 'meta', 'format') end
return rows
"""


# KEYS: present, open, waiting.  ARGV: now, the oldest presence kept (a day ago), table ids.  Marks each table
# present now, and back in ``waiting`` at its last change (the open index's score) if still open: a read that found
# nobody there had taken it out.
_PRESENT = """
for i = 3, #ARGV do
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[i])
  local changed = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if changed then redis.call('ZADD', KEYS[3], changed, ARGV[i]) end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
"""


class GroupCommit:
    """Runs one Lua script for many callers: the calls made while a round trip is in flight go together in the
    next pipeline, so a busy server pays one round trip, one socket write and one read for many commits.
    Each call is still its own atomic script run; only the transport is shared."""

    def __init__(self, client: aioredis.Redis, script: str, timed: Callable[[float], None] = lambda s: None) -> None:
        self.redis = client
        self.timed = timed  # told the seconds of each round trip
        self.script = client.register_script(script)
        self.queue: list[tuple[list[Any], asyncio.Future[Any]]] = []
        self.busy = False
        self.tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queue.append(([len(keys), *keys, *args], future))
        if not self.busy:
            self.busy = True
            task = asyncio.create_task(self._drain())
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return await future

    async def _drain(self) -> None:
        try:
            while self.queue:
                calls, self.queue = self.queue, []
                started = time.perf_counter()
                try:
                    results = await self._run([argv for argv, _ in calls])
                except Exception as exc:
                    results = [exc] * len(calls)
                self.timed(time.perf_counter() - started)
                for (_, future), result in zip(calls, results, strict=True):
                    if future.done():
                        continue
                    if isinstance(result, Exception):
                        future.set_exception(result)
                    else:
                        future.set_result(result)
        finally:
            self.busy = False

    async def _run(self, calls: list[list[Any]]) -> list[Any]:
        results = await self._pipeline(calls)
        missing = [i for i, result in enumerate(results) if isinstance(result, NoScriptError)]
        if missing:  # the store lost its scripts (a restart): load it, run again what did not run at all
            await self.redis.script_load(self.script.script)
            for i, result in zip(missing, await self._pipeline([calls[i] for i in missing]), strict=True):
                results[i] = result
        return results

    async def _pipeline(self, calls: list[list[Any]]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for argv in calls:
                pipe.evalsha(self.script.sha, *argv)
            results: list[Any] = await pipe.execute(raise_on_error=False)
        return results


class Store:
    """The Redis side of tables: create, read, commit, log ranges, the open-table index."""

    def __init__(self, client: aioredis.Redis, keys: Keys = NO_PREFIX, abandoned_after: int = ABANDONED) -> None:
        self.redis: Any = client  # redis-py's reply types are too loose to be useful here
        self.keys = keys
        self.abandoned_after = abandoned_after  # (``ABANDONED``)
        self.origin = secrets.token_hex(8)  # names this store's commits in their notices
        self._commit = GroupCommit(client, _COMMIT, self._timed)
        self._create = client.register_script(_CREATE)
        self._records = client.register_script(_RECORDS)
        self._say = client.register_script(_SAY)
        self._present = client.register_script(_PRESENT)
        self._quiet_seen = client.register_script(_QUIET_SEEN)
        self.on_due: Callable[[float], None] | None = None  # told each deadline this process commits
        self.on_failure: Callable[[str, str], None] | None = None  # told each failure: its event and kind
        self.on_commit: Callable[[float], None] | None = None  # told each round trip of commits: its seconds
        self._quiet: dict[tuple[str, Any], tuple[float, int]] = {}  # failure -> when logged, how many left out since
        self._lobby: dict[str | None, tuple[float, asyncio.Task[Lobby]]] = {}  # ``lobby``, by game

    def _timed(self, seconds: float) -> None:
        if self.on_commit is not None:
            self.on_commit(seconds)

    def failed(self, logger: Any, event: str, exc: BaseException, **fields: Any) -> None:
        """``log_failure``, and ``on_failure`` told of each (the server counts them in ``hauntd_failures_total``).
        While the store is down or refuses writes the same failure comes from every poll and every retry, many
        times a second: a line of each (event, at a table) every ``QUIET`` seconds, the next saying how many
        were ``left_out``."""
        kind = failure_kind(exc)
        if self.on_failure is not None:
            self.on_failure(event, kind)
        if kind != "error":
            now, which = time.monotonic(), (event, fields.get("table"))
            logged, left_out = self._quiet.get(which, (-QUIET, 0))
            if now - logged < QUIET:
                self._quiet[which] = (logged, left_out + 1)
                return
            if len(self._quiet) > 1000:  # (one a table: those quiet for a while go, their counts with them)
                self._quiet = {k: v for k, v in self._quiet.items() if now - v[0] < QUIET}
            self._quiet[which] = (now, 0)
            if left_out:
                fields["left_out"] = left_out
        log_failure(logger, event, exc, **fields)

    def lobby_ttl(self, meta: TableMeta) -> int:
        """The life of a table not started past its last change: ``abandoned_after`` for a public one where no
        person sits (``ABANDONED``), a day (``LOBBY_TTL``) otherwise."""
        return LOBBY_TTL if meta.private or meta.waiting else self.abandoned_after

    async def create(
        self,
        table: str,
        meta: TableMeta,
        command: str | None = None,
        cap: tuple[str, int] | None = None,
        source: Source | None = None,
    ) -> tuple[str, bool] | None:
        """Store a new table at ``seq`` 0, public ones in the open index: ``(table, True)``; None when the id is
        already taken.  A ``command`` (stored hashed: it is a client's secret) that made a table before gets
        ``(that table, False)``, and so does the rematch of finished table ``source`` once it has one: the first
        one made is set on it and published on its channel (``Notice.rematch``) in the same atomic step, so every
        ask, on any process, gets that one.  ``cap``: the creator's address and the open tables it may have
        (``Crowded`` past it), counted here in the store, so across every process.  Raises ``Missing`` when
        ``source`` is gone."""
        record = self.keys.record(table)
        counted = record if cap is None or meta.private else self.keys.opened(cap[0])
        once = self.keys.record(source.table) if source else record if command is None else self.keys.created(command)
        keys = [record, self.keys.open, once, counted, self.keys.present]
        listed = "" if meta.private else repr(meta.created)
        limit = cap[1] if cap is not None else 0
        now = time.time()
        args: list[bytes | str | float] = [encode(meta), self.lobby_ttl(meta), table, listed, limit]
        args += [now - LOBBY_TTL, STORE_FORMAT, now - self.abandoned_after, LOBBY_TTL]
        if source is not None:
            keys.append(self.keys.log(source.table))
            args += [source.seat, self.keys.channel(source.table), self.origin]
        created = await self._create(keys=keys, args=args)
        if created == 0:
            return None
        if created == -1:
            raise Crowded(limit)
        if created == -2 and source is not None:
            raise Missing(source.table)
        if not meta.private:
            self._lobby.clear()
        return (table, True) if created == 1 else (bytes(created).decode(), False)

    async def load(self, table: str) -> Record:
        """The stored record.  Raises ``Missing``, or ``TooNew`` for a table a newer hauntd wrote (its format, or
        its game, unknown here)."""
        seq, meta, state, format, rematch, seat = await self.redis.hmget(
            self.keys.record(table), "seq", "meta", "state", "format", "rematch", "rematch_seat"
        )
        if seq is None or meta is None:
            raise Missing(table)
        readable(table, format)
        record = Record(int(seq), decode_meta(meta), state or b"", _rematch(rematch, seat))
        if record.meta.game not in games():
            raise TooNew(table, int(format or 1), record.meta.game)
        return record

    async def commit(
        self,
        table: str,
        expected: int,
        meta: TableMeta,
        state: bytes | None,
        batch: Batch,
        command: str | None = None,
        *,
        local: bool = True,
    ) -> tuple[int, bool]:
        """Commit ``batch`` as update ``expected + 1``.  Returns ``(seq, fresh)``: ``fresh`` is False when
        ``command`` had already committed (as ``seq``).  Raises ``Conflict``, ``Missing`` or ``TooNew`` (a newer
        hauntd wrote the table since this process read it: nothing is written over what it does not know).
        ``local``: the caller holds the table's hub (so this process listens on its channel) and delivers the update
        to this process's followers itself: a notice goes out only for other processes, and tells this one to skip
        it.  Otherwise this process's fan-out delivers it from the notice like any other.  A public table's start and
        end (the batch's ``status``: no other update changes it) enter it in ``Keys.playing`` and take it out, in the
        same atomic step, so the index follows the committed record on every process at no extra round trip."""
        meta_bytes = encode(meta)
        batch.cmd = command  # logged with the update, so the log alone shows each command committed once
        batch_bytes = encode(batch)
        keys = [self.keys.record(table), self.keys.log(table), self.keys.cmds(table), self.keys.chat(table)]
        args: list[bytes | str | int] = [
            expected,
            meta_bytes,
            state if state is not None else b"",
            batch_bytes,
            command or "",
            self.keys.channel(table),
            self.origin if local else "",
            1 if local else 0,
            TABLE_TTL if meta.status != "lobby" else self.lobby_ttl(meta),
            STORE_FORMAT,
        ]
        due = meta.due()
        listed = batch.status is not None and not meta.private  # (status "playing": the start; "over": the end)
        if meta.status != "lobby":  # (any table in play may have a deadline, a nudge's; a lobby never has)
            keys.append(self.keys.due)
            args += [table, repr(due) if due is not None else ""]
        if listed:
            keys.append(self.keys.playing)
            args.append(repr(batch.at) if batch.status == "playing" else "")
        status, seq = await self._commit(keys, args)
        if status == 1:
            if listed:
                self._lobby.clear()
            if due is not None and self.on_due is not None:
                self.on_due(due)
            return int(seq), True
        if status == -1:
            return int(seq), False
        if status == 0:
            raise Conflict(int(seq))
        if status == -3:
            raise TooNew(table, int(seq))
        raise Missing(table)

    async def say(self, table: str, seat: int, name: str, text: str) -> ChatLine:
        """Add a line to the table's chat (the last ``CHAT_LINES`` are kept, as long as the table is) and tell the
        other processes following it.  Raises ``Missing``.  The record's ``seq`` and state are not touched."""
        line = ChatLine(n=0, seat=seat, name=name, text=text, time=time.time())
        rest = encode({"seat": line.seat, "name": line.name, "text": line.text, "time": line.time})[1:]
        keys = [self.keys.record(table), self.keys.chat(table)]
        line.n = await self._say(keys=keys, args=[rest, CHAT_LINES, self.keys.channel(table), self.origin])
        if not line.n:
            raise Missing(table)
        return line

    async def chat(self, table: str) -> list[ChatLine]:
        """The table's last chat lines, oldest first."""
        return _lines(await self.redis.lrange(self.keys.chat(table), 0, -1))

    async def glance(self, table: str) -> Glance:
        """What ``Hub.attach`` reads of the table, in one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(self.keys.record(table), "seq", "rematch", "rematch_seat")
            pipe.lrange(self.keys.chat(table), 0, -1)
            (seq, rematch, seat), lines = await pipe.execute()
        return Glance(int(seq) if seq is not None else None, _rematch(rematch, seat), _lines(lines))

    async def seqs(self, tables: list[str]) -> list[int | None]:
        """The current ``seq`` of each table (None: gone), in one pipeline."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for table in tables:
                pipe.hget(self.keys.record(table), "seq")
            rows = await pipe.execute()
        return [int(r) if r is not None else None for r in rows]

    async def command_seq(self, table: str, command: str) -> int | None:
        """The seq a command committed as, if it did.  Raises ``Missing`` (no key of the table is left: it
        expired), read in the same round trip, as a command refused on the record in memory asks this."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self.keys.cmds(table), command)
            pipe.exists(self.keys.record(table))
            seq, exists = await pipe.execute()
        if not exists:
            raise Missing(table)
        return int(seq) if seq is not None else None

    async def batches(self, table: str, after: int, upto: int) -> list[Batch]:
        """The logged updates ``after+1 … upto`` in order."""
        out: list[Batch] = []
        start = after + 1
        while start <= upto:
            entries = await self.redis.xrange(self.keys.log(table), f"{start}-0", f"{upto}-0", count=500)
            if not entries:
                break
            out.extend(decode_batch(fields[b"b"]) for _, fields in entries)
            start = out[-1].seq + 1
        return out

    async def set_open(self, table: str, meta: TableMeta) -> None:
        """Keep the open-table indexes in step with a lobby change (hints: ``open_tables`` re-checks), scored by
        the time of the change.  A private table is never in them."""
        if meta.private:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            if meta.status == "lobby" and None in meta.names:
                pipe.zadd(self.keys.open, {table: time.time()})
                if meta.waiting:
                    pipe.zadd(self.keys.waiting, {table: time.time()})
                else:
                    pipe.zrem(self.keys.waiting, table)
            else:
                pipe.zrem(self.keys.open, table)
                pipe.zrem(self.keys.waiting, table)
            await pipe.execute()
        self._lobby.clear()

    async def present(self, tables: list[str]) -> None:
        """Note that a seated person's connection follows each of these public lobby tables now (``ABANDONED``)."""
        if tables:
            now = time.time()
            await self._present(
                keys=[self.keys.present, self.keys.open, self.keys.waiting], args=[now, now - LOBBY_TTL, *tables]
            )

    async def lobby(self, game: str | None = None) -> Lobby:
        """``read_open_tables`` and ``read_playing_tables`` of ``game`` (None: every game; one this server has not
        lists none, unread), read again only ``LOBBY_READ_SECONDS`` after the last read of that game or once this
        process changed the lobby or a public table's status; the callers meanwhile share one read (a failed one is
        not kept)."""
        if game is not None and game not in games():
            return Lobby([], [])
        now = time.monotonic()
        last = self._lobby.get(game)
        if last is None or now - last[0] >= LOBBY_READ_SECONDS:
            task = asyncio.ensure_future(self._read_lobby(game))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (retrieved: its callers may be gone)
            last = self._lobby[game] = (now, task)
        read = last[1]
        try:
            return await asyncio.shield(read)
        except Exception:
            if self._lobby.get(game, last)[1] is read:
                self._lobby.pop(game, None)
            raise

    async def _read_lobby(self, game: str | None) -> Lobby:
        open, playing = await asyncio.gather(self.read_open_tables(game=game), self.read_playing_tables(game=game))
        return Lobby(open, playing)

    async def read_open_tables(
        self, limit: int = OPEN_LISTED, game: str | None = None
    ) -> list[tuple[str, int, TableMeta]]:
        """Public lobby tables with a free seat, of ``game`` (None: of every game): those where a person sits
        waiting first, then the empty ones; each the most lately changed first.  So tables people are gathering
        at come before those left waiting, which sink out of the ``limit`` and expire (``LOBBY_TTL``: their index
        entries go then too, so the index stays as small as the lobby), and no number of empty tables hides one
        where someone waits.  Drops stale index entries; leaves out the abandoned (``ABANDONED``): one where nobody
        sits is stale (gone, but for one an older hauntd kept a day), one where nobody seated is present leaves
        ``waiting`` until its player is back (``present``)."""
        now = time.time()
        expired, abandoned = now - LOBBY_TTL, now - self.abandoned_after
        async with self.redis.pipeline(transaction=False) as pipe:
            for index in (self.keys.open, self.keys.waiting):
                pipe.zremrangebyscore(index, "-inf", expired)
            await pipe.execute()
        found: list[tuple[str, int, TableMeta]] = []
        stale: list[str] = []
        pages = _Pages(limit, game)
        for index in (self.keys.waiting, self.keys.open):  # (``waiting`` is in ``open`` too: each id read once)
            async for table, seq, meta in pages.read(self, index, lambda: len(found) >= limit):
                if (
                    meta is None
                    or meta.status != "lobby"
                    or None not in meta.names
                    or (not meta.waiting and pages.scores[table] < abandoned)
                ):
                    stale.append(table)
                elif game is None or meta.game == game:
                    found.append((table, seq, meta))
        quiet = [table for table, _, _ in found if pages.scores[table] < abandoned]  # (someone sits: were they seen?)
        seen = await self.redis.zmscore(self.keys.present, quiet) if quiet else []
        away = {table for table, at in zip(quiet, seen, strict=True) if at is None or at < abandoned}
        if stale or away:
            async with self.redis.pipeline(transaction=False) as pipe:
                if stale:
                    pipe.zrem(self.keys.open, *stale)
                pipe.zrem(self.keys.waiting, *stale, *away)
                await pipe.execute()
        found = [row for row in found if row[0] not in away]
        found.sort(key=lambda row: not row[2].waiting)  # (the record, not the hint, says who waits; stable)
        return found[:limit]

    async def count_lobby(self, now: float) -> int:
        """The lobby's size as ``read_open_tables`` would list it, from the indexes alone (``hauntd_lobby_tables``):
        the tables changed within ``abandoned_after``, and the older not yet expired where someone sits and was
        seen within it; not the abandoned, which stay in the indexes until a list drops them."""
        abandoned = now - self.abandoned_after
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zcount(self.keys.open, repr(abandoned), "+inf")
            await self._quiet_seen(
                [self.keys.waiting, self.keys.present], [repr(now - LOBBY_TTL), repr(abandoned)], pipe
            )
            recent, waiting = await pipe.execute()
        return int(recent) + int(waiting)

    async def read_playing_tables(self, limit: int = PLAYING_LISTED, game: str | None = None) -> list[Playing]:
        """Public tables in play, of ``game`` (None: of every game), the latest started first.  Drops stale index
        entries (a table over, or gone: it expired ``TABLE_TTL`` after its last change); those started more than
        ``TABLE_TTL`` ago, which may have expired unread, are checked at each read too (``limit`` of them), so the
        index stays as small as the play."""
        aged = await self.redis.zrangebyscore(self.keys.playing, "-inf", time.time() - TABLE_TTL, start=0, num=limit)
        found: list[Playing] = []
        stale: list[str] = []
        for table, _, meta in await self._listed([table.decode() for table in aged]):
            if meta is None or meta.status != "playing":
                stale.append(table)
        pages = _Pages(limit, game)
        async for table, seq, meta in pages.read(self, self.keys.playing, lambda: len(found) >= limit):
            if meta is None or meta.status != "playing":
                stale.append(table)
            elif game is None or meta.game == game:
                found.append(Playing(table, seq, meta, pages.scores[table]))
        if stale:
            await self.redis.zrem(self.keys.playing, *stale)
        return found[:limit]

    async def _listed(self, ids: list[str]) -> list[tuple[str, int, TableMeta | None]]:
        """Tables ``ids`` as a lobby read sees them: each one's ``seq`` and record (None: gone, its index entry
        stale), but for those a newer hauntd wrote (``readable``), left out: the servers that read them list them."""
        if not ids:
            return []
        rows = await self._records(keys=[self.keys.record(table) for table in ids])
        listed: list[tuple[str, int, TableMeta | None]] = []
        for table, (seq, raw, format) in zip(ids, rows, strict=True):
            if format is not None and int(format) > STORE_FORMAT:
                continue
            meta = decode_meta(raw) if raw is not None and seq is not None else None
            if meta is None or meta.game in games():
                listed.append((table, int(seq or 0), meta))
        return listed


class _Pages:
    """A lobby read's walk through its indexes, newest first, ``limit`` ids a page, each id read once however many
    indexes hold it: a page of each index for every game's tables, and for one game's (``Store.lobby``) as many
    as it takes, up to ``LISTED_PAGES`` pages in all."""

    def __init__(self, limit: int, game: str | None) -> None:
        self.limit = limit
        self.game = game
        self.left = LISTED_PAGES  # pages one game's read may still read
        self.seen: set[str] = set()
        self.scores: dict[str, float] = {}  # each id's score in the index it was read from

    async def read(
        self, store: Store, index: str, enough: Callable[[], bool]
    ) -> AsyncIterator[tuple[str, int, TableMeta | None]]:
        """The tables of ``index`` not yet read, as ``Store._listed`` reads them, page after page until ``enough``
        or the index ends, or the pages allowed are read."""
        start = 0
        while not enough() and (start == 0 if self.game is None else self.left > 0):
            self.left -= 1
            page = await store.redis.zrevrange(index, start, start + self.limit - 1, withscores=True)
            start += self.limit
            ids = [table.decode() for table, _ in page if table.decode() not in self.seen]
            self.seen.update(ids)
            self.scores.update((table.decode(), score) for table, score in page)
            for row in await store._listed(ids):
                yield row
            if len(page) < self.limit:
                return
