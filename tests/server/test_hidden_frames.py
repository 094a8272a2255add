"""A cheating player against a real ``hauntd serve`` (logging at debug level), in every game.

Every seat plays over a raw WebSocket that keeps every frame it receives, a spectator watches from the start, and
at random steps the cheater probes: a second connection of a seat resuming from an old seq (the replayed updates
then its snapshot), a spectator watching from an old seq, a resume from a seq not reached yet, random and
mistyped actions, another seat's legal action sent with one's own token, stale seqs, forged tokens, lobby
commands after the start, nudges of other seats (after the table stood still, so their clocks run out and the
rules' defaults come, a duel's two dials together), table chat (a spectator's refused), and at the end a rematch
that every seat and the spectator hear of.  Some tables have server-run bots, some a time limit short enough for
time-outs; about half the connections ask for their view with every update (``hello`` ``views``).

Once the game is over its log is replayed from the revealed seed, and each frame is checked against the state at
its seq: every update holds exactly the engine's redaction of its events for the frame's audience, every view and
list of legal actions is exactly that audience's own (a seat's, or a spectator's), every snapshot names its
audience, the prompts are the engine's; the seed is in no frame before the last update and matches the commitment
every snapshot carried; the table's secret and every seat's nonce (the seed's inputs, M30) are in no frame but
the ``game_over`` (a seat's own nonce aside), and every snapshot, the lobby's included, carries the commitment
to that secret; an error's text is the engine's own refusal, the same as on a copy of the table scrambled
in what the sender cannot see.  Since the engine's views and redactions do not depend on what they hide (each
game's property tests), nor does anything a seat or spectator receives, its size included.  No log line holds a
field other than the few the server logs (never a token, an action, a card, the seed, the secret or a nonce).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect

from clients.leaks import LeakChecker
from engine.contract import Game
from engine.registry import get_game
from protocol import codec
from server.hub import decode_events, prompt_infos
from server.launch import ServerProcess
from server.store import NO_ACTION, NO_EVENTS, NO_PREFIX, TableMeta, decode_batch, decode_meta
from tests.engine.test_hidden_decisions import PROBES, SCRAMBLE, answer
from tests.server.conftest import ServerFactory
from tests.waiting import until

GAMES = ["mansion", "spook", "ghost-at-home"]
ENGINE_CODES = {"illegal_move", "not_your_turn", "game_over"}
# everything the server logs (server/logs.py: "connections, tables, seats, seqs and error codes only")
LOG_FIELDS = {"event", "level", "timestamp", "peer", "client", "table", "game", "seats", "private", "bots", "seat"}
LOG_FIELDS |= {"seq", "last_seq", "code", "cmd", "frames", "seconds", "away", "limit", "host", "ports", "server"}
LOG_FIELDS |= {"games", "store", "key_prefix", "type"}  # (the store's URL, its password hidden; a command's type)
LOG_FIELDS |= {"rematch_of"}  # (a rematch's table_created: the finished table, by id)
LOG_FIELDS |= {"fix", "why", "maxmemory", "maxmemory_policy"}  # (server/preflight.py's warnings about the store)
LOG_FIELDS |= {"count", "busiest", "busiest_count"}  # (the quiet connections' line a minute: server/connection.py)


NUDGE_AFTER = 0.1  # the server's --nudge-after: a probe waits so long before its nudge, half the time
NUDGE_REFUSALS = {"too_early", "not_your_turn", "illegal_move", "game_over"}  # (the table moved on meanwhile)
SAID = ["gg", "I have nothing good", "👻 " * 20, "שלום", "x" * 200]
TALK = {  # the fields of the chat's and the rematch's messages, and of a chat line
    "said": {"type", "table", "n", "seat", "name", "text", "time", "ref"},
    "chat": {"type", "table", "lines"},
    "rematched": {"type", "table", "rematch", "seat", "ref"},
    "line": {"n", "seat", "name", "text", "time"},
}


def wire(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value))


class Tap:
    """A raw connection keeping every frame it receives, as ``audience`` (a seat, or None: a spectator)."""

    def __init__(self, ws: ClientConnection, audience: int | None) -> None:
        self.ws, self.audience = ws, audience
        self.frames: list[str] = []
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.asked = 0
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.ws:
            assert isinstance(frame, str)
            self.frames.append(frame)
            reply = json.loads(frame)
            waiter = self.waiting.pop(reply.get("ref"), None)
            if waiter is not None:
                waiter.set_result(reply)

    async def ask(self, **msg: Any) -> dict[str, Any]:
        self.asked += 1
        msg["ref"] = ref = str(self.asked)
        self.waiting[ref] = asyncio.get_running_loop().create_future()
        await self.ws.send(json.dumps(msg))
        return await asyncio.wait_for(self.waiting[ref], 10)

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.wait_for(self.reader, 5)


async def tap(url: str, audience: int | None, views: bool = False) -> Tap:
    """A connection as ``audience``; ``views``: its hello asks for its view with every update."""
    t = Tap(await connect(url), audience)
    await t.ask(type="hello", version=1, client="cheat", views=views)
    return t


@dataclass
class Probe:
    """An action a seat sent while the table was at ``seq``, and the reply."""

    seq: int
    seat: int
    action: dict[str, Any]
    reply: dict[str, Any]


@dataclass
class Cheat:
    url: str
    sync_redis: redis.Redis
    name: str
    seats: int
    bots: int
    turn_seconds: float | None
    rnd: random.Random
    table: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    mains: dict[int, Tap] = field(default_factory=dict)
    taps: list[Tap] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    nudged: bool = False  # a nudge's clock started: time-outs may move the table between a probe and its answer

    @property
    def game(self) -> Game[Any, Any, Any]:
        return get_game(self.name)

    def stored(self) -> tuple[int, Any]:
        seq, state = self.sync_redis.hmget(NO_PREFIX.record(self.table), "seq", "state")
        return int(seq), self.game.decode_state(bytes(state))

    async def sit(self) -> None:
        lobby = await tap(self.url, None)
        create: dict[str, Any] = {"game": self.name, "seats": self.seats, "bots": self.bots, "bot_strategy": "greedy"}
        if self.turn_seconds is not None:
            create["turn_seconds"] = self.turn_seconds
        self.table = (await lobby.ask(type="create", **create))["table"]
        await lobby.close()
        for seat in range(self.bots, self.seats):
            self.mains[seat] = main = await tap(self.url, seat, self.rnd.random() < 0.5)
            nonce = f"{self.rnd.getrandbits(128):032x}"
            joined = await main.ask(type="join", table=self.table, name=f"P{seat}", seat=seat, nonce=nonce)
            self.tokens[seat] = joined["token"]
            self.taps.append(main)
        spectator = await tap(self.url, None, self.rnd.random() < 0.5)
        await spectator.ask(type="watch", table=self.table, last_seq=0)
        self.taps.append(spectator)
        first = self.bots
        assert (await self.mains[first].ask(type="start", table=self.table, token=self.tokens[first]))["seq"]

    async def act(self, seat: int, action: dict[str, Any], seq: int | None) -> dict[str, Any]:
        extra = {} if seq is None else {"seq": seq}
        cmd = f"{self.rnd.random()}"
        return await self.mains[seat].ask(
            type="act", table=self.table, token=self.tokens[seat], cmd=cmd, action=action, **extra
        )

    async def probe(self, seq: int, state: Any) -> None:
        rnd, game = self.rnd, self.game
        seat = rnd.choice(sorted(self.mains))
        token = self.tokens[seat]
        kind = rnd.randrange(10)
        if kind == 0 or kind == 1:  # a random action, or one another seat may take, as this seat, maybe stale
            prompted = [s for s in game.prompts(state) if s != seat]
            if kind == 0 or not prompted:
                action = wire(PROBES[self.name](rnd))
            else:
                action = wire(rnd.choice(game.legal_actions(state, rnd.choice(prompted))))
            sent = rnd.choice([seq, None, max(0, seq - rnd.randint(1, 3))])  # the table's seq, none, a stale one
            self.probes.append(Probe(seq, seat, action, await self.act(seat, action, sent)))
        elif kind == 2:  # a mistyped action
            action = {k: v if k == "type" else str(v) for k, v in wire(PROBES[self.name](rnd)).items()}
            self.probes.append(Probe(seq, seat, action, await self.act(seat, action, None)))
        elif kind in (3, 4, 5) and len(self.taps) < 12:  # another connection: the seat from an old seq or the
            audience = seat if kind != 4 else None  # future, or a spectator from an old seq; it follows on
            again = await tap(self.url, audience, rnd.random() < 0.5)
            last = rnd.randint(0, seq) if kind != 5 else seq + rnd.randint(1, 9)
            if audience is None:
                reply = await again.ask(type="watch", table=self.table, last_seq=last)
            else:
                reply = await again.ask(type="resume", table=self.table, token=token, last_seq=last)
            # a seq the table has not reached is refused (PROTOCOL): unless bots or time-outs reached it meanwhile
            assert reply["type"] == "snapshot" or (kind == 5 and reply.get("code") == "bad_field"), reply
            self.taps.append(again)
        elif kind == 6:  # a forged token, and another table's token shape
            forged = token[:-1] + ("A" if token[-1] != "A" else "B")
            reply = await self.mains[seat].ask(type="resume", table=self.table, token=forged, last_seq=0)
            assert reply["code"] == "auth", reply
            reply = await self.mains[seat].ask(
                type="act", table=self.table, token=forged, cmd="x", action=wire(PROBES[self.name](rnd))
            )
            assert reply["code"] == "auth", reply
        elif kind == 8:  # a nudge of another seat the table waits on, once it has stood still (or too early)
            others = [s for s in game.prompts(state) if s != seat and s not in range(self.bots)]
            if others:
                await asyncio.sleep(rnd.choice([0, NUDGE_AFTER]))
                reply = await self.mains[seat].ask(type="nudge", table=self.table, token=token, seat=rnd.choice(others))
                assert reply["type"] == "nudged" or reply["code"] in NUDGE_REFUSALS, reply
                self.nudged = self.nudged or reply["type"] == "nudged"
        elif kind == 9:  # a line of chat, and a spectator's, refused
            reply = await self.mains[seat].ask(type="say", table=self.table, text=rnd.choice(SAID))
            assert reply["type"] == "said" or reply["code"] == "rate_limited", reply
            spectator = next(t for t in self.taps if t.audience is None)
            assert (await spectator.ask(type="say", table=self.table, text="psst"))["code"] == "auth"
        else:  # the lobby, after the start
            late = [{"type": "leave", "token": token}, {"type": "join", "name": "X"}, {"type": "start", "token": token}]
            for msg in late:
                assert (await self.mains[seat].ask(table=self.table, **msg))["code"] == "already_started"

    async def play(self) -> None:
        game = self.game
        while True:
            seq, state = self.stored()
            if game.result(state) is not None:
                break
            if self.rnd.random() < 0.3:
                await self.probe(seq, state)
                continue
            mine = sorted(s for s in game.prompts(state) if s in self.mains)
            if not mine or (self.turn_seconds is not None and self.rnd.random() < 0.1):
                await asyncio.sleep(0.01 if not mine else 1.5 * (self.turn_seconds or 0))  # bots, or a time-out
                continue
            seat = self.rnd.choice(mine)
            reply = await self.act(seat, wire(self.rnd.choice(game.legal_actions(state, seat))), seq)
            assert reply["type"] == "accepted" or reply["code"] == "stale", reply  # a bot or a time-out came first
        await asyncio.sleep(0.2)  # the last frames

    async def rematch(self) -> None:
        """Every seat asks for the finished table's rematch: one table, and every follower is told of it."""
        asked = [
            await main.ask(type="rematch", table=self.table, token=self.tokens[s]) for s, main in self.mains.items()
        ]
        assert len({a["rematch"] for a in asked}) == 1, asked
        spectator = self.taps[len(self.mains)]  # (watching from the start: a public table's is told too)
        taps = [*self.mains.values(), spectator]

        def untold() -> list[int | None]:  # (the others' unasked ``rematched`` may still be on its way)
            return [t.audience for t in taps if not any(json.loads(f)["type"] == "rematched" for f in t.frames)]

        assert await until(lambda: not untold(), 5), untold()


def replay(sync_redis: redis.Redis, table: str) -> tuple[TableMeta, dict[int, bytes], dict[int, list[Any]], str]:
    """The table's meta, its state after each update of play, each update's full events, the revealed seed."""
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    game = get_game(meta.game)
    result = game.result(game.decode_state(bytes(sync_redis.hget(NO_PREFIX.record(table), "state"))))
    assert result is not None
    state = game.setup(meta.seats, bytes.fromhex(result.seed), game.decode_options(meta.options), table)
    states: dict[int, bytes] = {}
    events: dict[int, list[Any]] = {}
    for _, fields in sync_redis.xrange(NO_PREFIX.log(table)):
        batch = decode_batch(fields[b"b"])
        events[batch.seq] = decode_events(meta.game, batch.events) if batch.events != NO_EVENTS else []
        if batch.action != NO_ACTION:
            assert batch.seat is not None
            game.apply(state, batch.seat, msgspec.msgpack.decode(batch.action, type=game.action_type))
        if batch.status == "playing" or states:
            states[batch.seq] = game.encode_state(state)
    return meta, states, events, result.seed


def assert_nothing_but_their_own(cheat: Cheat) -> int:
    """Checks every frame every tap received; returns how many frames were checked against a state."""
    game, table = cheat.game, cheat.table
    meta, states, events, seed = replay(cheat.sync_redis, table)
    final = max(states)
    commitment = hashlib.sha256(bytes.fromhex(seed) + table.encode()).hexdigest()
    assert meta.secret is not None and all(meta.nonces[seat] for seat in cheat.tokens)  # (each player sent one)
    assert all(meta.nonces[seat] == "" for seat in meta.bots)  # a bot's seat adds nothing the server could pick
    secret_commitment = hashlib.sha256(bytes.fromhex(meta.secret) + table.encode()).hexdigest()
    checked = 0
    for t in cheat.taps:
        audience = t.audience
        leaks = LeakChecker(cheat.name, audience)
        unseen = [meta.secret, *(nonce for seat, nonce in enumerate(meta.nonces) if seat != audience and nonce)]
        for frame in t.frames:
            msg = json.loads(frame)
            assert not leaks.check(codec.decode_server(frame)), (audience, frame)
            assert seed not in frame or msg.get("seq") == final, (audience, frame)
            assert msg["type"] == "game_over" or not any(s in frame for s in unseen), (audience, frame)
            if msg["type"] in ("said", "chat", "rematched"):  # what a seat said, or two ids: nothing of the game
                assert set(msg) <= TALK[msg["type"]], (audience, msg)
                assert all(set(line) == TALK["line"] for line in msg.get("lines", [])), (audience, msg)
            if msg["type"] == "snapshot":
                assert msg.get("seat") == audience and msg.get("commitment") in (None, commitment), (audience, msg)
                assert msg["secret_commitment"] == secret_commitment, (audience, msg)
            if msg["type"] not in ("events", "snapshot") or msg["seq"] not in states:
                continue
            state = game.decode_state(states[msg["seq"]])
            if msg["type"] == "events":
                redacted = [game.redact(e, audience) for e in events[msg["seq"]]]
                assert msg.get("events", []) == wire([e for e in redacted if e is not None]), (audience, msg)
            if game.result(state) is not None:
                continue  # the end reveals everything, to everyone alike
            if "view" in msg:
                assert msg["view"] == wire(game.view(state, audience)), (audience, msg["seq"])
            if "legal" in msg:
                assert audience is not None and msg["legal"] == wire(game.legal_actions(state, audience)), msg
            if "prompts" in msg:
                public = [{k: v for k, v in p.items() if k != "deadline"} for p in msg["prompts"]]
                engine = [msgspec.structs.replace(p, deadline=None) for p in prompt_infos(game, state, meta)]
                assert public == wire(engine), (audience, msg["seq"])
            checked += 1
    for probe in cheat.probes:  # the server adds nothing to the engine's refusal, which hides what it must
        reply = probe.reply
        moved = cheat.bots or cheat.turn_seconds or cheat.nudged
        if reply["type"] != "rejected" or reply["code"] not in ENGINE_CODES or moved:
            continue  # (with bots or time-outs the table may have moved on between the probe and its answer)
        state = game.decode_state(states[probe.seq])
        action = game.action_from_builtins(probe.action)
        code, detail = answer(game, state, probe.seat, action)
        assert (reply["code"], reply["message"]) == (code, detail or code), probe  # (an empty detail: the code)
        scrambled = SCRAMBLE[cheat.name](state, probe.seat, random.Random(probe.seq))
        if not (cheat.name == "spook" and probe.action["type"] == "hunt"):  # S11: see test_hidden_decisions
            assert answer(game, scrambled, probe.seat, action) == answer(game, state, probe.seat, action), probe
    return checked


@pytest.fixture
def debug_server(start_server: ServerFactory) -> ServerProcess:
    nudges = ("--nudge-after", str(NUDGE_AFTER), "--nudge-seconds", "0.2")  # (a nudged clock runs out in play)
    return start_server("--log-level", "debug", "--rate", "1e6", "--burst", "1000000", *nudges)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), with_bots=st.booleans(), timed=st.booleans())
async def test_a_cheating_player_learns_nothing_hidden_from_any_frame(
    debug_server: ServerProcess, sync_redis: redis.Redis, name: str, seed: int, with_bots: bool, timed: bool
) -> None:
    rnd = random.Random(seed)
    game = get_game(name)
    seats = rnd.randint(max(2, game.min_seats), game.max_seats)
    bots = rnd.randrange(1, seats) if with_bots else 0
    cheat = Cheat(debug_server.url, sync_redis, name, seats, bots, 0.05 if timed else None, rnd)
    await cheat.sit()
    try:
        await asyncio.wait_for(cheat.play(), 60)
        await cheat.rematch()
    finally:
        for t in cheat.taps:
            await t.close()
    assert assert_nothing_but_their_own(cheat) > 0
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(cheat.table), "meta"))
    unlogged = {*cheat.tokens.values(), meta.secret or "?", *filter(None, meta.nonces)}
    for line in debug_server.log_path.read_text().splitlines():
        entry = json.loads(line)
        assert set(entry) <= LOG_FIELDS, entry
        assert not any(s in line for s in unlogged), line
