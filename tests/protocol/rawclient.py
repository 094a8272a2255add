"""A third-party client of the hauntd wire protocol, written from ``protocol/PROTOCOL.md`` alone.

It imports nothing of the project (no ``server``, ``clients``, ``engine`` or ``protocol`` module): plain
``websockets`` and ``json``, as an outsider would write it.  Every frame it receives is checked against the
document as it arrives (:func:`check_frame`: message types, their fields and the fields' types, nothing the
document does not name, nothing at its default) and against the sequencing rules (:class:`TableTrack`: one
``events`` per ``seq``, contiguous per table, ``prompts`` / ``legal`` / ``view`` only where the document puts
them).  A breach raises :class:`ProtocolViolation` at once, naming the frame.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
import secrets
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

VERSION = 1


class ProtocolViolation(AssertionError):
    """A frame that the document does not allow."""


# ---------------------------------------------------------------------------------------------------------------
# The document's message catalogue ("Server → client"): for each type its required fields and the optional ones
# (left out at their default), each with the JSON type the document gives it.

STR, INT, NUM, BOOL, LIST, OBJ, ANY = "string", "integer", "number", "boolean", "array", "object", "any"


def _is(value: Any, kind: str) -> bool:
    if kind == ANY:
        return True
    if kind == STR:
        return isinstance(value, str)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == NUM:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == LIST:
        return isinstance(value, list)
    if kind == OBJ:
        return isinstance(value, dict)
    raise ValueError(kind)


Shape = tuple[dict[str, str], dict[str, str]]

SERVER_MESSAGES: dict[str, Shape] = {
    "welcome": ({"version": INT, "server": STR, "games": LIST, "limits": OBJ}, {"ref": STR}),
    "tables": ({"tables": LIST}, {"playing": LIST, "ref": STR}),
    "created": ({"table": STR}, {"ref": STR}),
    "joined": ({"table": STR, "seat": INT, "token": STR, "seq": INT}, {"ref": STR}),
    "left": ({"table": STR, "seq": INT}, {"ref": STR}),
    "started": ({"table": STR, "seq": INT}, {"ref": STR}),
    "nudged": ({"table": STR, "seq": INT}, {"ref": STR}),
    "accepted": ({"table": STR, "cmd": STR, "seq": INT}, {"ref": STR}),
    "rejected": ({"table": STR, "cmd": STR, "code": STR, "message": STR}, {"ref": STR}),
    "events": (
        {"table": STR, "seq": INT},
        {
            "events": LIST,
            "seats": LIST,
            "status": STR,
            "timeout": INT,
            "prompts": LIST,
            "legal": LIST,
            "view": ANY,
            "time": NUM,
        },
    ),
    "snapshot": (
        {"table": STR, "game": STR, "seq": INT, "status": STR, "seats": LIST},
        {
            "seat": INT,
            "commitment": STR,
            "secret_commitment": STR,
            "view": ANY,
            "prompts": LIST,
            "legal": LIST,
            "ref": STR,
            "private": BOOL,
            "turn_seconds": NUM,
            "time": NUM,
            "rematch": STR,
            "rematch_seat": INT,
        },
    ),
    "game_over": ({"table": STR, "seq": INT, "commitment": STR, "result": OBJ}, {"secret": STR, "nonces": LIST}),
    "rematched": ({"table": STR, "rematch": STR, "seat": INT}, {"ref": STR}),
    "pong": ({"time": NUM}, {"ref": STR}),
    "said": ({"table": STR, "n": INT, "seat": INT, "name": STR, "text": STR, "time": NUM}, {"ref": STR}),
    "chat": ({"table": STR, "lines": LIST}, {}),
    "error": ({"code": STR, "message": STR}, {"ref": STR, "table": STR, "seq": INT}),
}

GAME_INFO: Shape = ({"name": STR, "title": STR, "min_seats": INT, "max_seats": INT}, {})
LIMITS: Shape = (
    {"max_frame_bytes": INT, "messages_per_second": NUM, "burst": INT, "max_tables_per_connection": INT},
    {
        "idle_seconds": NUM,
        "tables_per_minute": NUM,
        "open_tables": INT,
        "watch_places": INT,
        "nudge_after": NUM,
        "nudge_seconds": NUM,
        "abandoned_after": INT,
    },
)
TABLE_INFO: Shape = (  # as schema.json gives it: what a game in play adds is optional there
    {"table": STR, "game": STR, "seats": INT, "taken": INT, "status": STR},
    {"turn_seconds": NUM, "names": LIST, "bots": LIST, "seq": INT, "started": NUM},
)
OPEN_INFO: Shape = (TABLE_INFO[0], {"turn_seconds": NUM, "bots": LIST})  # an open table (``tables.tables``)
PLAYING_INFO: Shape = (  # a game in play (``tables.playing``)
    {**TABLE_INFO[0], "names": LIST, "seq": INT, "started": NUM},
    {"turn_seconds": NUM, "bots": LIST},
)
SEAT_INFO: Shape = ({"seat": INT}, {"name": STR, "bot": BOOL, "away": BOOL})
CHAT_LINE: Shape = ({"n": INT, "seat": INT, "name": STR, "text": STR, "time": NUM}, {})
PROMPT: Shape = ({"seat": INT, "kind": STR}, {"deadline": NUM, "note": STR})
RESULT: Shape = ({"scores": LIST, "winners": LIST, "seed": STR, "reveal": OBJ}, {})

# The error catalogue ("Error codes").
ERROR_CODES = frozenset(
    {
        "malformed", "unknown_type", "bad_field", "version", "auth", "not_your_turn", "illegal_move", "stale",
        "table_full", "not_found", "already_started", "not_started", "game_over", "not_over", "bad_option",
        "rate_limited", "too_large", "limit", "busy", "internal", "too_early",
    }
)  # fmt: skip
STATUSES = frozenset({"lobby", "playing", "over"})
# The replies that carry the request's ``ref`` ("Rules that hold for every message").
REPLIES = frozenset(
    {
        "welcome", "tables", "created", "joined", "left", "started", "nudged", "accepted", "rejected", "snapshot",
        "rematched", "pong", "said", "error",
    }
)  # fmt: skip


# Optional fields whose empty value means something, so is sent: ``events.prompts: []`` is "nobody decides".
SENT_EMPTY = frozenset({("events", "prompts")})


def _check_object(where: str, obj: Any, shape: Shape) -> None:
    required, optional = shape
    if not isinstance(obj, dict):
        raise ProtocolViolation(f"{where}: not an object: {obj!r}")
    for name, kind in required.items():
        if name not in obj:
            raise ProtocolViolation(f"{where}: required field {name!r} missing: {obj!r}")
        if not _is(obj[name], kind):
            raise ProtocolViolation(f"{where}: field {name!r} is not {kind}: {obj!r}")
    for name, value in obj.items():
        if name in required or name == "type":
            continue
        if name not in optional:
            raise ProtocolViolation(f"{where}: field {name!r} is not in the document: {obj!r}")
        if (value is None or value == [] or value is False) and (where, name) not in SENT_EMPTY:
            raise ProtocolViolation(f"{where}: field {name!r} sent at its default {value!r}: {obj!r}")
        if not _is(value, optional[name]):
            raise ProtocolViolation(f"{where}: field {name!r} is not {optional[name]}: {obj!r}")


def check_frame(msg: Any) -> None:
    """Raise :class:`ProtocolViolation` unless ``msg`` is a server message exactly as the document gives it."""
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolViolation(f"not a typed object: {msg!r}")
    kind = msg["type"]
    if kind not in SERVER_MESSAGES:
        raise ProtocolViolation(f"undocumented message type {kind!r}: {msg!r}")
    _check_object(kind, msg, SERVER_MESSAGES[kind])
    if kind == "welcome":
        if msg["version"] != VERSION:
            raise ProtocolViolation(f"welcome of version {msg['version']}")
        for game in msg["games"]:
            _check_object("welcome.games[]", game, GAME_INFO)
        _check_object("welcome.limits", msg["limits"], LIMITS)
    elif kind == "tables":
        for info in msg["tables"]:
            _check_object("tables.tables[]", info, OPEN_INFO)
            if info["status"] != "lobby":
                raise ProtocolViolation(f"tables: an open table of status {info['status']!r}")
        for info in msg.get("playing", []):
            _check_object("tables.playing[]", info, PLAYING_INFO)
            if info["status"] != "playing" or not all(isinstance(name, str) for name in info["names"]):
                raise ProtocolViolation(f"tables: a game in play as {info!r}")
    elif kind == "chat":
        for line in msg["lines"]:
            _check_object("chat.lines[]", line, CHAT_LINE)
    elif kind in ("error", "rejected"):
        if msg["code"] not in ERROR_CODES:
            raise ProtocolViolation(f"{kind}: undocumented code {msg['code']!r}: {msg!r}")
    elif kind in ("events", "snapshot"):
        for seat in msg.get("seats", []):
            _check_object(f"{kind}.seats[]", seat, SEAT_INFO)
        for prompt in msg.get("prompts", []):
            _check_object(f"{kind}.prompts[]", prompt, PROMPT)
        if "status" in msg and msg["status"] not in STATUSES:
            raise ProtocolViolation(f"{kind}: status {msg['status']!r}")
        for event in msg.get("events", []):
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                raise ProtocolViolation(f"{kind}: an event that is not a tagged object: {event!r}")
        for action in msg.get("legal", []):
            if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                raise ProtocolViolation(f"{kind}: a legal action that is not a tagged object: {action!r}")
    elif kind == "game_over":
        result = msg["result"]
        _check_object("game_over.result", result, RESULT)
        if not all(_is(score, NUM) for score in result["scores"]):
            raise ProtocolViolation(f"game_over: scores {result['scores']!r}")
        if not all(_is(w, INT) and 0 <= w < len(result["scores"]) for w in result["winners"]):
            raise ProtocolViolation(f"game_over: winners {result['winners']!r}")
        seed = bytes.fromhex(result["seed"])
        if hashlib.sha256(seed + msg["table"].encode()).hexdigest() != msg["commitment"]:
            raise ProtocolViolation(f"game_over: the seed does not match the commitment: {msg!r}")
        if "secret" in msg and derived_seed(msg["secret"], msg["nonces"]) != seed:
            raise ProtocolViolation(f"game_over: the seed is not derived from the secret and nonces: {msg!r}")


def derived_seed(secret: str, nonces: list[str]) -> bytes:
    """The seed as the document derives it ("Checking a game"): SHA-256 of the tag, the secret, then each
    nonce in seat order, its UTF-8 length in 4 big-endian bytes before it."""
    data = b"hauntd/seed/v1\x00" + bytes.fromhex(secret)
    for nonce in nonces:
        data += len(nonce.encode()).to_bytes(4, "big") + nonce.encode()
    return hashlib.sha256(data).digest()


# ---------------------------------------------------------------------------------------------------------------
# What one connection knows of one table, and the sequencing rules it checks ("Sequence numbers").


@dataclass
class TableTrack:
    table: str
    seat: int | None = None  # None: a spectator, or not seated yet
    last: int = 0  # the last seq handled
    from_snapshot: bool = False  # ``last`` came from a snapshot (an events at that seq may follow once)
    synced: bool = False  # a snapshot was received: events are expected from now on
    applied: list[int] = field(default_factory=list)  # every events seq applied, in order
    status: str = "lobby"
    prompts: list[dict[str, Any]] | None = None
    legal: list[dict[str, Any]] = field(default_factory=list)
    view: Any = None
    basis: int = 0  # the seq the current prompts / legal are as of
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    frames: list[dict[str, Any]] = field(default_factory=list)  # every events applied (for the tests to read)
    game_over: dict[str, Any] | None = None
    commitment: str | None = None
    secret_commitment: str | None = None  # as every snapshot carries it from the lobby on
    nonce: str | None = None  # the one this connection sent with its join
    catching_up: bool = False  # between a resume / watch with last_seq and its snapshot
    views: bool = False  # the connection's hello asked for its view with every update

    def owes(self) -> bool:
        return self.seat is not None and any(p["seat"] == self.seat for p in self.prompts or [])

    def _check_prompts(self, msg: dict[str, Any]) -> None:
        prompts = msg.get("prompts")
        mine = self.seat is not None and any(p["seat"] == self.seat for p in prompts or [])
        # ``legal`` (and in an ``events``, ``view``) exactly when this connection's seat owes a decision; an
        # ``events`` with ``prompts`` holds a spectator's ``view`` too, and so does every one with ``prompts`` and
        # the last one (``status`` over) when the connection's hello asked for ``views`` (or another connection's
        # following as the same audience did: they share its frames).
        watching = self.seat is None and prompts is not None
        live = msg["type"] == "events" and not self.catching_up
        viewable = live and (prompts is not None or msg.get("status") == "over")
        viewing = self.views and viewable
        if "legal" in msg and not mine:
            raise ProtocolViolation(f"legal for a connection that owes no decision: {msg!r}")
        if "view" in msg and msg["type"] == "events" and not mine and not watching and not viewable:
            raise ProtocolViolation(f"an events' view for a seat that owes no decision: {msg!r}")
        if viewing and "view" not in msg:
            raise ProtocolViolation(f"no view in an update, though the hello asked for views: {msg!r}")
        if watching and msg["type"] == "events" and "view" not in msg:
            raise ProtocolViolation(f"a spectator's events with prompts but no view: {msg!r}")
        if mine and "legal" not in msg:
            raise ProtocolViolation(f"prompted seat {self.seat} got no legal actions: {msg!r}")
        if mine and msg["type"] == "events" and "view" not in msg:
            raise ProtocolViolation(f"prompted seat {self.seat} got no view: {msg!r}")
        seats = [p["seat"] for p in prompts or []]
        if len(seats) != len(set(seats)):
            raise ProtocolViolation(f"a seat prompted twice: {msg!r}")

    def on_events(self, msg: dict[str, Any]) -> bool:
        """Check and apply an ``events``; False when it is the one the last snapshot already holds."""
        seq = msg["seq"]
        if not self.synced:
            raise ProtocolViolation(f"events before the table's snapshot: {msg!r}")
        if seq <= self.last:
            if self.from_snapshot and seq == self.last:
                self.from_snapshot = False
                return False
            raise ProtocolViolation(f"events seq {seq} again (last handled {self.last}): {msg!r}")
        if seq != self.last + 1:
            raise ProtocolViolation(f"events seq {seq} after {self.last}: a gap: {msg!r}")
        self.last, self.from_snapshot = seq, False
        self.applied.append(seq)
        self.frames.append(msg)
        if "status" in msg:
            self.status = msg["status"]
        self._check_prompts(msg)
        if "prompts" in msg:
            if self.status == "lobby" or "status" in msg:
                raise ProtocolViolation(f"prompts in a lobby update, the start's or the last: {msg!r}")
            if self.catching_up:
                raise ProtocolViolation(f"prompts in an update caught up after a resume: {msg!r}")
            self.prompts = msg["prompts"]
            self.legal = msg.get("legal", [])
            self.view = msg.get("view", self.view)
            self.basis = seq
        elif self.status == "playing" and not self.catching_up and "status" not in msg:
            raise ProtocolViolation(f"a live update during play without prompts: {msg!r}")
        return True

    def on_snapshot(self, msg: dict[str, Any]) -> None:
        seq = msg["seq"]
        if seq < self.last:
            raise ProtocolViolation(f"snapshot as of {seq} after events {self.last} were handled: {msg!r}")
        if self.seat is not None and msg.get("seat") != self.seat:
            raise ProtocolViolation(f"snapshot for seat {msg.get('seat')}, ours is {self.seat}: {msg!r}")
        if self.seat is None and "seat" in msg:
            raise ProtocolViolation(f"a spectator's snapshot names a seat: {msg!r}")
        self._check_prompts(msg)
        if msg["status"] == "lobby" and ("view" in msg or "prompts" in msg):
            raise ProtocolViolation(f"a lobby snapshot with a view or prompts: {msg!r}")
        if msg["status"] != "lobby" and "commitment" not in msg:
            raise ProtocolViolation(f"a snapshot after the start without the commitment: {msg!r}")
        if self.commitment is not None and msg.get("commitment", self.commitment) != self.commitment:
            raise ProtocolViolation(f"the commitment changed: {msg!r}")
        self.commitment = msg.get("commitment", self.commitment)
        if self.secret_commitment is not None and msg.get("secret_commitment") != self.secret_commitment:
            raise ProtocolViolation(f"the secret commitment changed: {msg!r}")
        self.secret_commitment = msg.get("secret_commitment")
        self.from_snapshot = seq > self.last or self.from_snapshot
        self.last = seq
        self.synced = True
        self.catching_up = False
        self.status = msg["status"]
        self.prompts = msg.get("prompts", [])
        self.legal = msg.get("legal", [])
        self.view = msg.get("view")
        self.basis = seq
        self.snapshots.append(msg)

    def on_game_over(self, msg: dict[str, Any]) -> None:
        if self.game_over is not None:
            raise ProtocolViolation(f"a second game_over: {msg!r}")
        if msg["seq"] != self.last:
            raise ProtocolViolation(f"game_over as of {msg['seq']}, last events handled {self.last}: {msg!r}")
        if self.status != "over":
            raise ProtocolViolation(f"game_over before an events with status over: {msg!r}")
        if self.commitment is not None and msg["commitment"] != self.commitment:
            raise ProtocolViolation(f"game_over commitment is not the start's: {msg!r}")
        if self.secret_commitment is not None:
            opened = hashlib.sha256(bytes.fromhex(msg["secret"]) + self.table.encode()).hexdigest()
            if opened != self.secret_commitment:
                raise ProtocolViolation(f"game_over secret does not match the lobby's commitment: {msg!r}")
            if self.seat is not None and self.nonce is not None and msg["nonces"][self.seat] != self.nonce:
                raise ProtocolViolation(f"game_over nonces do not hold ours ({self.nonce}): {msg!r}")
        self.game_over = msg


# ---------------------------------------------------------------------------------------------------------------
# The connection.


def new_secret() -> str:
    """A secret as the document asks for ``create.cmd`` / ``join.token``: 16 random bytes in base64url."""
    return base64.urlsafe_b64encode(secrets.token_bytes(16)).rstrip(b"=").decode()


class Closed(Exception):
    def __init__(self, code: int | None, reason: str) -> None:
        super().__init__(f"closed {code} {reason!r}")
        self.code = code
        self.reason = reason


class RawClient:
    """One WebSocket connection, speaking JSON text frames; every frame received is checked on arrival."""

    def __init__(self, ws: ClientConnection, name: str = "raw") -> None:
        self.ws = ws
        self.name = name
        self.pending: deque[dict[str, Any]] = deque()
        self.tables: dict[str, TableTrack] = {}
        self.received: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.views = False  # its hello asked for views (a second hello may change it, for every table)
        self._refs = 0

    @classmethod
    async def open(cls, url: str, name: str = "raw", **kwargs: Any) -> RawClient:
        ws = await connect(url, max_size=None, open_timeout=5, **kwargs)
        return cls(ws, name)

    async def close(self) -> None:
        await self.ws.close()

    def abort(self) -> None:
        """Drop the connection without a closing handshake, as a lost network would."""
        self.ws.transport.abort()

    # -- sending ----------------------------------------------------------------------------------------------

    def ref(self, prefix: str = "r") -> str:
        self._refs += 1
        return f"{prefix}{self._refs}"

    async def send(self, msg: dict[str, Any]) -> None:
        if msg.get("type") == "watch" and isinstance(msg.get("table"), str):
            self.track(msg["table"]).seat = None  # a connection follows a table once: now as a spectator
        if msg.get("type") == "hello":
            self.views = msg.get("views") is True
            for track in self.tables.values():
                track.views = self.views
        await self.ws.send(json.dumps(msg))

    async def send_raw(self, data: str | bytes) -> None:
        await self.ws.send(data)

    # -- receiving --------------------------------------------------------------------------------------------

    @property
    def limits(self) -> dict[str, Any]:
        assert self.welcome is not None, "no welcome yet"
        return self.welcome["limits"]  # type: ignore[no-any-return]

    def track(self, table: str) -> TableTrack:
        if table not in self.tables:
            self.tables[table] = TableTrack(table, views=self.views)
        return self.tables[table]

    def _handle(self, msg: dict[str, Any]) -> None:
        check_frame(msg)
        self.received.append(msg)
        kind = msg["type"]
        if kind == "welcome":
            self.welcome = msg
        elif kind == "joined":
            self.track(msg["table"]).seat = msg["seat"]
        elif kind == "events":
            self.track(msg["table"]).on_events(msg)
        elif kind == "snapshot":
            self.track(msg["table"]).on_snapshot(msg)
        elif kind == "game_over":
            self.track(msg["table"]).on_game_over(msg)

    async def _read(self, timeout: float) -> dict[str, Any]:
        try:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
        except ConnectionClosed as exc:
            rcvd = exc.rcvd
            raise Closed(rcvd.code if rcvd else None, rcvd.reason if rcvd else "") from None
        if not isinstance(data, str):
            raise ProtocolViolation(f"a binary frame from the server: {data!r}")
        msg = json.loads(data)
        self._handle(msg)
        return msg  # type: ignore[no-any-return]

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        if self.pending:
            return self.pending.popleft()
        return await self._read(timeout)

    async def expect(self, kind: str, timeout: float = 5.0, **fields: Any) -> dict[str, Any]:
        """The next frame, which must be of ``kind`` (and hold ``fields``)."""
        msg = await self.recv(timeout)
        if msg["type"] != kind or any(msg.get(k) != v for k, v in fields.items()):
            raise AssertionError(f"{self.name}: expected {kind} {fields or ''}, got {msg!r}")
        return msg

    async def wait_for(self, kind: str, timeout: float = 5.0, **fields: Any) -> dict[str, Any]:
        """The first frame of ``kind`` (holding ``fields``); the frames before it stay queued for :meth:`recv`."""
        return await self._first(
            lambda msg: msg["type"] == kind and all(msg.get(k) == v for k, v in fields.items()), timeout
        )

    async def request(self, msg: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
        """Send ``msg`` with a fresh ``ref`` and return the reply carrying it (other frames stay queued)."""
        msg = {**msg, "ref": msg.get("ref") or self.ref(msg["type"][0])}
        await self.send(msg)
        reply = await self.wait_for_ref(msg["ref"], timeout)
        return reply

    async def wait_for_ref(self, ref: str, timeout: float = 5.0) -> dict[str, Any]:
        msg = await self._first(lambda msg: msg.get("ref") == ref, timeout)
        if msg["type"] not in REPLIES:
            raise ProtocolViolation(f"ref {ref!r} on a {msg['type']}, which is no reply: {msg!r}")
        return msg

    async def _first(self, match: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first frame, queued or new, that ``match``es; the others stay queued for :meth:`recv`."""
        for i, msg in enumerate(self.pending):
            if match(msg):
                del self.pending[i]
                return msg
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            msg = await self._read(max(0.01, deadline - loop.time()))
            if match(msg):
                return msg
            self.pending.append(msg)

    async def quiet(self, seconds: float = 0.2) -> list[dict[str, Any]]:
        """Every frame that arrives within ``seconds`` (and the ones already queued)."""
        got = list(self.pending)
        self.pending.clear()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while (left := deadline - loop.time()) > 0:
            try:
                got.append(await self._read(left))
            except TimeoutError:
                break
        return got

    async def closed(self, timeout: float = 5.0) -> Closed:
        """Read until the server closes the connection; every frame before stays in :attr:`received`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                await self._read(max(0.01, deadline - loop.time()))
            except Closed as closed:
                return closed

    # -- the steps of the document ----------------------------------------------------------------------------

    async def hello(self, **extra: Any) -> dict[str, Any]:
        reply = await self.request({"type": "hello", "version": VERSION, "client": "rawclient/1", **extra})
        assert reply["type"] == "welcome", reply
        return reply

    async def create(self, game: str, seats: int, **extra: Any) -> str:
        reply = await self.request({"type": "create", "game": game, "seats": seats, **extra})
        assert reply["type"] == "created", reply
        return reply["table"]  # type: ignore[no-any-return]

    async def join(self, table: str, name: str, **extra: Any) -> dict[str, Any]:
        """Take a seat, with a fresh nonce of our own unless ``extra`` gives one."""
        extra.setdefault("nonce", secrets.token_hex(16))
        reply = await self.request({"type": "join", "table": table, "name": name, **extra})
        assert reply["type"] == "joined", reply
        self.track(table).nonce = extra["nonce"]
        await self.wait_for("snapshot", table=table)
        return reply

    async def watch(self, table: str, **extra: Any) -> dict[str, Any]:
        if extra.get("last_seq") is not None:
            self.track(table).catching_up = True
            self.track(table).synced = True
            self.track(table).last = extra["last_seq"]
        reply = await self.request({"type": "watch", "table": table, **extra})
        assert reply["type"] == "snapshot", reply
        return reply

    async def resume(self, table: str, token: str, seat: int, last_seq: int) -> dict[str, Any]:
        track = self.track(table)
        track.seat, track.last, track.synced, track.catching_up = seat, last_seq, True, True
        reply = await self.request({"type": "resume", "table": table, "token": token, "last_seq": last_seq})
        assert reply["type"] == "snapshot", reply
        return reply


# ---------------------------------------------------------------------------------------------------------------
# A player: one seat on its own connection, choosing uniformly among the legal actions it is offered.


@dataclass
class Player:
    client: RawClient
    table: str
    seat: int
    token: str
    rng: random.Random
    acts: int = 0
    acted_on: int = -1  # the basis seq of the last act sent
    in_flight: dict[str, Any] | None = None
    accepted: list[int] = field(default_factory=list)
    stale: int = 0
    rate_limited: int = 0

    @property
    def track(self) -> TableTrack:
        return self.client.tables[self.table]

    def decision(self) -> dict[str, Any] | None:
        """The ``act`` this seat sends now, or None when it owes nothing (or has sent it already)."""
        track = self.track
        if self.in_flight is not None or track.game_over is not None or track.status != "playing":
            return None
        if not track.owes() or track.basis <= self.acted_on:
            return None
        if not track.legal:
            raise ProtocolViolation(f"seat {self.seat} prompted at {track.basis} with no legal action")
        self.acts += 1
        self.acted_on = track.basis
        self.in_flight = {
            "type": "act",
            "table": self.table,
            "token": self.token,
            "cmd": f"s{self.seat}-{self.acts}",
            "action": self.rng.choice(track.legal),
            "seq": track.basis,
            "ref": f"a{self.seat}-{self.acts}",
        }
        return self.in_flight

    def on_reply(self, msg: dict[str, Any]) -> None:
        sent = self.in_flight
        assert sent is not None and msg.get("cmd") == sent["cmd"], (msg, sent)
        assert msg["table"] == self.table and msg.get("ref") == sent["ref"], (msg, sent)
        self.in_flight = None
        if msg["type"] == "accepted":
            if msg["seq"] <= sent["seq"]:
                raise ProtocolViolation(f"accepted as seq {msg['seq']}, sent at seq {sent['seq']}: {msg!r}")
            self.accepted.append(msg["seq"])
        elif msg["code"] == "stale":
            self.stale += 1
        elif msg["code"] == "rate_limited":  # "slow down; the message was dropped": send it again later
            self.rate_limited += 1
            self.acted_on = -1
            self.acts -= 1
        else:
            raise AssertionError(f"seat {self.seat}: a legal action offered was refused: {sent!r} → {msg!r}")

    async def step(self, timeout: float = 10.0) -> dict[str, Any]:
        """Act if this seat owes a decision, then handle one frame."""
        act = self.decision()
        if act is not None:
            if self.rate_limited:
                await asyncio.sleep(1 / self.client.limits["messages_per_second"])
            await self.client.send(act)
        msg = await self.client.recv(timeout)
        if msg["type"] in ("accepted", "rejected"):
            self.on_reply(msg)
        return msg

    async def play(self, until: int | None = None, timeout: float = 10.0) -> None:
        """Play until the game is over (or this seat has handled update ``until``)."""
        while self.track.game_over is None and (until is None or self.track.last < until):
            await self.step(timeout)


# ---------------------------------------------------------------------------------------------------------------
# HTTP, with the standard library.


@dataclass
class HttpReply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def http_get(url: str, headers: dict[str, str] | None = None) -> HttpReply:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return HttpReply(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read())
    except urllib.error.HTTPError as error:
        return HttpReply(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())
