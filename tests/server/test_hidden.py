"""Hidden information over the wire: each seat receives exactly the engine's redaction for it, never another
seat's Haunt values or an unrevealed duel bid; a spectator receives neither; no log line holds a token."""

from __future__ import annotations

import asyncio
import json
import secrets
import urllib.request
from typing import Any

import msgspec
import redis
from websockets.asyncio.client import connect

from clients.sdk import Client
from protocol.messages import Events, GameOver, Snapshot
from server.hub import decode_events
from server.store import NO_PREFIX, decode_batch, decode_meta
from tests.server.conftest import ServerProcess
from tests.server.drive import GAME
from tests.server.players import close, play, seat_players

PRIVATE = {"haunt_drawn": "values", "haunt_discarded": "value", "dial_set": "bid"}


def logged_events(sync_redis: redis.Redis, table: str) -> dict[int, list[Any]]:
    out = {}
    for _, fields in sync_redis.xrange(NO_PREFIX.log(table)):
        batch = decode_batch(fields[b"b"])
        out[batch.seq] = decode_events("mansion", batch.events)
    return out


def assert_nothing_hidden(messages: list[Any], seat: int | None) -> int:
    """Checks every received event and view; returns how many private events of others were seen (redacted)."""
    others = 0
    for msg in messages:
        if isinstance(msg, Events):
            for event in msg.events:
                field = PRIVATE.get(event["type"])
                if field is not None and event["seat"] != seat:
                    assert event[field] is None, (seat, event)
                    others += 1
        if isinstance(msg, Snapshot | Events) and msg.view is not None and msg.view["phase"] != "over":
            assert msg.view["seat"] == seat
            for owner, hand in enumerate(msg.view["haunt"]):
                assert hand is None or owner == seat, (seat, msg.view["haunt"])
            duel = msg.view["duel"]
            assert duel is None or set(duel) == {"challenger", "defender", "card", "challenger_set", "defender_set"}
    return others


async def test_each_seat_sees_only_its_own_secrets(server: ServerProcess, sync_redis: redis.Redis) -> None:
    table, players = await seat_players([server.url], seed=8)
    spectator = Client(server.url)
    await spectator.connect()
    await spectator.watch(table)
    try:
        await play(players)
        watched = []
        while not watched or not isinstance(watched[-1], GameOver):
            watched.append(await spectator.recv(timeout=10))
    finally:
        await close(players)
        await spectator.close()
    logged = logged_events(sync_redis, table)
    for p in players:
        assert assert_nothing_hidden(p.received, p.seat) > 0  # other seats' draws happened, all redacted
        assert any(isinstance(m, Events) and m.view is not None for m in p.received)
        for msg in p.received:
            if isinstance(msg, Events):  # exactly the engine's redaction of the logged events, nothing more
                expected = [GAME.redact(e, p.seat) for e in logged[msg.seq]]
                assert msg.events == msgspec.to_builtins([e for e in expected if e is not None])
    assert assert_nothing_hidden(watched, None) > 0
    for msg in watched:
        if isinstance(msg, Events):
            expected = [GAME.redact(e, None) for e in logged[msg.seq]]
            assert msg.events == msgspec.to_builtins([e for e in expected if e is not None])
    # the end reveals everything, to everyone alike
    assert watched[-1].result == players[0].result.result  # type: ignore[union-attr]
    assert all(hand is not None for hand in watched[-1].result["reveal"]["haunt"])
    log_text = server.log_path.read_text()
    assert '"event": "seat_taken"' in log_text
    for p in players:
        assert p.client.seats[table].token not in log_text


async def test_a_seat_given_back_is_no_longer_shown_to_its_old_tokens_other_connections(server: ServerProcess) -> None:
    """A seat held on two connections (a second tab, a reconnect) and given back on one: the other no longer
    holds the seat, so once someone else takes it it must get that seat's hidden information no more."""

    async def ask(ws: Any, **msg: Any) -> dict[str, Any]:
        await ws.send(json.dumps(msg))
        while True:
            reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
            if reply.get("ref") == msg["ref"]:
                return reply

    async with (
        connect(server.url) as tab1,
        connect(server.url) as tab2,
        connect(server.url) as newcomer,
        connect(server.url) as other,
    ):
        for ws in (tab1, tab2, newcomer, other):
            await ask(ws, type="hello", version=1, ref="h")
        table = (await ask(tab1, type="create", game="mansion", seats=2, ref="c"))["table"]
        token = (await ask(tab1, type="join", table=table, name="Ada", seat=0, ref="j"))["token"]
        resumed = await ask(tab2, type="resume", table=table, token=token, ref="r")
        assert resumed["type"] == "snapshot" and resumed["seat"] == 0
        assert (await ask(tab1, type="leave", table=table, token=token, ref="l"))["type"] == "left"
        assert (await ask(newcomer, type="join", table=table, name="Cy", seat=0, ref="j"))["seat"] == 0
        other_token = (await ask(other, type="join", table=table, name="Bo", seat=1, ref="j"))["token"]
        assert (await ask(other, type="start", table=table, token=other_token, ref="s"))["type"] == "started"
        while True:  # tab2 follows the table still, as what it now is: a spectator
            frame = json.loads(await asyncio.wait_for(tab2.recv(), 5))
            if frame["type"] == "snapshot" and frame["status"] == "playing":
                break
        assert "seat" not in frame and not frame.get("legal"), frame  # not seat 0's prompt, legal actions …
        assert frame["view"]["seat"] is None and frame["view"]["haunt"] == [None, None]  # … nor its Haunt cards


async def test_the_seed_inputs_stay_hidden_in_the_lobby(server: ServerProcess, sync_redis: redis.Redis) -> None:
    """Before the end the table's secret is nowhere (frames, error texts, the lobby list, HTTP, the log) and a
    seat's nonce reaches no other connection; the lobby shows only the commitment to the secret (M30)."""

    async def ask(ws: Any, frames: list[str], **msg: Any) -> dict[str, Any]:
        await ws.send(json.dumps(msg))
        while True:
            frames.append(await asyncio.wait_for(ws.recv(), 5))
            reply: dict[str, Any] = json.loads(frames[-1])
            if reply.get("ref") == msg["ref"]:
                return reply

    nonces = ["ada-" + secrets.token_hex(16), "bo-" + secrets.token_hex(16)]
    seen: list[list[str]] = [[], [], []]  # what Ada's, Bo's and a spectator's connections received
    async with connect(server.url) as ada, connect(server.url) as bo, connect(server.url) as spectator:
        conns = (ada, bo, spectator)
        for ws, frames in zip(conns, seen, strict=True):
            await ask(ws, frames, type="hello", version=1, ref="h")
        table = (await ask(spectator, seen[2], type="create", game="mansion", seats=3, ref="c"))["table"]
        await ask(spectator, seen[2], type="watch", table=table, ref="w")
        token = (await ask(ada, seen[0], type="join", table=table, name="Ada", nonce=nonces[0], ref="j"))["token"]
        await ask(bo, seen[1], type="join", table=table, name="Bo", nonce=nonces[1], ref="j")
        refused = [
            await ask(bo, seen[1], type="join", table=table, name="Bo", seat=0, ref="x"),  # taken
            await ask(ada, seen[0], type="start", table=table, token=token, ref="s"),  # a seat still free
            await ask(bo, seen[1], type="join", table=table, name="Bo", nonce="n" * 65, ref="y"),  # too long
        ]
        assert [r["code"] for r in refused] == ["table_full", "not_started", "bad_field"]
        await ask(spectator, seen[2], type="list", ref="l")
        await asyncio.sleep(0.2)  # the updates of the joins
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    assert meta.secret is not None and meta.nonces == [*nonces, ""]
    lobby = [json.loads(f) for f in seen[2] if '"snapshot"' in f]
    assert lobby and all(s["secret_commitment"] == meta.secret_commitment for s in lobby)
    http = [
        urllib.request.urlopen(f"{server.http}/{path}", timeout=5).read().decode() for path in ("metrics", "healthz")
    ]
    everything = "".join(seen[0] + seen[1] + seen[2] + http) + server.log_path.read_text()
    assert meta.secret not in everything
    assert nonces[1] not in "".join(seen[0] + seen[2]) and nonces[0] not in "".join(seen[1] + seen[2])
    assert not any(nonce in server.log_path.read_text() for nonce in nonces)
