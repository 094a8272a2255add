"""``hauntd verify``: a finished table replays from its log to its stored state; any tampering is found."""

from __future__ import annotations

import json
import random
import secrets
import subprocess
import sys
import time
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio as aioredis

from clients.sdk import Client
from engine.fairness import commitment
from protocol.messages import Snapshot
from server.launch import ROOT
from server.store import NO_PREFIX, Batch, Record, Store, TableMeta, decode_meta, encode
from server.verify import Verdict, replay, verify_table
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.players import Player, close, play, seat_players

Finished = tuple[str, Record, list[Batch]]


# Each game's event for a card drawn (or a die rolled) and its field holding what came out
DRAWS = {"mansion": ("haunt_drawn", "values"), "spook": ("card_drawn", "card"), "ghost-at-home": ("drew", "cards")}


@pytest.fixture(params=sorted(DRAWS))
async def finished(start_server: ServerFactory, store_url: str, request: pytest.FixtureRequest) -> Finished:
    """A table of each game played to its end by four random players, as stored."""
    return await played_out(start_server, store_url, request.param)


async def played_out(start_server: ServerFactory, store_url: str, game: str, seats: int = 4) -> Finished:
    """A table of ``game`` played to its end by random players (seed 4), as stored (they answer every prompt at
    once: a Ghost at Home seat's run of them can pass the default's 50 messages a second)."""
    server = start_server("--rate", "1000", "--burst", "1000")
    table, players = await seat_players([server.url], seats=seats, seed=4, game=game)
    try:
        await play(players)
    finally:
        await close(players)
    client = aioredis.Redis.from_url(store_url)
    try:
        store = Store(client)
        record = await store.load(table)
        return table, record, await store.batches(table, 0, record.seq)
    finally:
        await client.aclose()


def test_a_finished_table_replays_from_its_log(finished: Finished) -> None:
    table, record, batches = finished
    verdict = replay(table, record, batches)
    assert verdict.problems == [] and verdict.ok
    assert verdict.actions == sum(b.seat is not None for b in batches) > 20  # every action replayed
    assert verdict.updates == record.seq


def test_any_tampering_is_found(finished: Finished) -> None:
    table, record, batches = finished
    actions = [i for i, b in enumerate(batches) if b.seat is not None]

    def found(record: Record, batches: list[Batch]) -> list[str]:
        verdict = replay(table, record, batches)
        assert not verdict.ok
        return verdict.problems

    swapped = list(batches)  # two actions logged in the other order
    i, j = actions[3], actions[4]
    swapped[i] = msgspec.structs.replace(batches[i], action=batches[j].action, seat=batches[j].seat)
    swapped[j] = msgspec.structs.replace(batches[j], action=batches[i].action, seat=batches[i].seat)
    assert found(record, swapped)
    forged = list(batches)  # an event altered (say, another card drawn than the seed dictates)
    k = actions[-1]
    events = msgspec.msgpack.decode(batches[k].events)
    forged[k] = msgspec.structs.replace(batches[k], events=msgspec.Raw(encode([*events, events[0]])))
    assert found(record, forged) == [f"update {batches[k].seq}: replaying its action gives other events than logged"]
    assert "every update" in found(record, batches[:-3] + batches[-2:])[0]  # a hole in the log
    state = bytearray(record.state)  # the stored final state altered
    state[-1] ^= 1
    assert found(Record(record.seq, record.meta, bytes(state)), batches)
    meta = msgspec.structs.replace(record.meta, commitment="0" * 64)  # another seed than committed to
    assert "commitment" in found(Record(record.seq, meta, record.state), batches)[0]


async def test_the_command_verifies_tables_in_the_store(finished: Finished, store_url: str) -> None:
    table, _, _ = finished
    command = [sys.executable, "-m", "server.cli", "verify", "--redis-url", store_url, table, "nosuchtable"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1  # one table does not exist
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(v["table"], v["ok"]) for v in lines] == [(table, True), ("nosuchtable", False)]
    assert lines[0]["actions"] > 20 and lines[1]["problems"] == ["no such table"]
    client = aioredis.Redis.from_url(store_url)
    try:
        assert (await verify_table(Store(client), table)) == Verdict(
            table, "over", lines[0]["updates"], lines[0]["actions"]
        )
    finally:
        await client.aclose()


async def test_a_game_still_played_is_not_verified_yet(server: ServerProcess, store_url: str) -> None:
    table, players = await seat_players([server.url], seed=5)
    try:
        await play(players, stop_at=12)
    finally:
        await close(players)
    client = aioredis.Redis.from_url(store_url)
    try:
        verdict = await verify_table(Store(client), table)
    finally:
        await client.aclose()
    assert not verdict.ok and verdict.problems == ["the game is playing: its seed is revealed only at the end"]


async def test_a_tampered_secret_or_nonce_is_found(finished: Finished, store_url: str, sync_redis: redis.Redis) -> None:
    """The seed's inputs (M30) as stored are doctored: the secret, a seat's nonce, or a secret picked after the
    fact together with a commitment to match; verify finds each."""
    table, record, _ = finished
    meta = record.meta
    assert meta.secret is not None and len(meta.nonces) == 4 and "" not in meta.nonces
    other = secrets.token_hex(32)
    nonces = [meta.nonces[0], "mine now", *meta.nonces[2:]]
    wrong_secret = "the revealed secret does not match the commitment published at the table's creation"
    wrong_seed = "the seed is not the one derived from the table's secret and the seats' nonces"
    doctored: list[tuple[dict[str, Any], str]] = [
        ({"secret": other}, wrong_secret),
        ({"nonces": nonces}, wrong_seed),
        ({"secret": other, "secret_commitment": commitment(bytes.fromhex(other), table)}, wrong_seed),
    ]
    client = aioredis.Redis.from_url(store_url)
    try:
        for change, problem in doctored:
            sync_redis.hset(NO_PREFIX.record(table), "meta", encode(msgspec.structs.replace(meta, **change)))
            verdict = await verify_table(Store(client), table)
            assert not verdict.ok and verdict.problems == [problem], change
        sync_redis.hset(NO_PREFIX.record(table), "meta", encode(meta))
        assert (await verify_table(Store(client), table)).ok
    finally:
        await client.aclose()


async def test_a_table_made_before_seeds_were_derived_starts_and_verifies(
    server: ServerProcess, store_url: str, sync_redis: redis.Redis
) -> None:
    """A table created by the server before this change (its record has no secret, no nonces) lives on across an
    upgrade: it is joined, started with a seed drawn at the start, played and verified as before."""
    table = "old" + secrets.token_hex(4)
    meta = TableMeta(game="mansion", seats=2, created=time.time(), names=[None, None], tokens=[None, None])
    old = {k: v for k, v in msgspec.to_builtins(meta).items() if k not in ("secret", "secret_commitment", "nonces")}
    sync_redis.hset(NO_PREFIX.record(table), mapping={"seq": 0, "meta": msgspec.msgpack.encode(old)})
    clients = [Client(server.url) for _ in range(2)]
    for client in clients:
        await client.connect()
        await client.join(table, "P")
    await clients[0].start(table)
    players = [Player(c, table, seat, random.Random(seat)) for seat, c in enumerate(clients)]
    try:
        await play(players)
    finally:
        await close(players)
    over = players[0].result
    assert over is not None and over.secret is None and over.nonces is None
    assert all(m.secret_commitment is None for p in players for m in p.received if isinstance(m, Snapshot))
    client = aioredis.Redis.from_url(store_url)
    try:
        verdict = await verify_table(Store(client), table)
    finally:
        await client.aclose()
    assert verdict.ok, verdict.problems


@pytest.mark.parametrize(
    ("steer", "problem"),
    [
        ("not at all", None),
        ("past the seats", "the table holds 3 nonces for its 2 seats"),
        ("for its bot", "seat 0, a server-run bot's, brought a nonce to the seed"),
        ("for its bot, unmarked after", "the seating logged shows server-run bots at seats [0], the record at []"),
    ],
)
async def test_a_seed_steered_by_a_nonce_the_server_picked_is_found(
    server: ServerProcess, store_url: str, sync_redis: redis.Redis, steer: str, problem: str | None
) -> None:
    """A cheating server adds a share of the seed of its own, picked after every player's nonce: a nonce past the
    seats, or one for its bot's seat (its record then made to say there was no bot).  The game is dealt from the
    seed so derived, so every hash matches and the log replays; only the nonces themselves, and the seating the
    players were shown, show that the server could steer the seed (M30)."""
    async with Client(server.url) as creator:
        table = await creator.create("mansion", 2, bots=1)
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    if steer != "not at all":
        nonces = [*meta.nonces, "picked last"] if steer == "past the seats" else ["picked last", *meta.nonces[1:]]
        sync_redis.hset(NO_PREFIX.record(table), "meta", encode(msgspec.structs.replace(meta, nonces=nonces)))
    client = Client(server.url)
    await client.connect()
    held = await client.join(table, "Ada")
    await client.start(table)
    players = [Player(client, table, held.seat, random.Random(3))]
    try:
        await play(players)
    finally:
        await close(players)
    if steer == "for its bot, unmarked after":
        over = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        sync_redis.hset(NO_PREFIX.record(table), "meta", encode(msgspec.structs.replace(over, bots={})))
    client = aioredis.Redis.from_url(store_url)
    try:
        verdict = await verify_table(Store(client), table)
    finally:
        await client.aclose()
    assert verdict.problems == ([problem] if problem else []) and verdict.ok == (problem is None)


def store(sync_redis: redis.Redis, table: str, meta: TableMeta, state: bytes, batches: list[Batch]) -> None:
    """Write a table's record and log to the store as given: what an operator with access to it could do."""
    sync_redis.hset(NO_PREFIX.record(table), mapping={"seq": batches[-1].seq, "meta": encode(meta), "state": state})
    sync_redis.delete(NO_PREFIX.log(table))
    for batch in batches:
        sync_redis.xadd(NO_PREFIX.log(table), {"b": encode(batch)}, id=f"{batch.seq}-0")


def redrawn(game: str, batches: list[Batch]) -> tuple[int, list[Batch]]:
    """The log with the first card the game drew (or die it rolled) changed; the index of the update changed."""
    tag, field = DRAWS[game]
    for i, batch in enumerate(batches):
        events = msgspec.msgpack.decode(batch.events)
        drawn = next((e for e in events if e["type"] == tag), None)
        if drawn is None:
            continue
        assert encode(events) == bytes(batch.events)  # so only the draw differs below
        value = drawn[field][0] if isinstance(drawn[field], list) else drawn[field]
        other = value ^ 1 if isinstance(value, int) else ("2C" if value != "2C" else "3C")
        drawn[field] = [other, *drawn[field][1:]] if isinstance(drawn[field], list) else other
        return i, [*batches[:i], msgspec.structs.replace(batch, events=msgspec.Raw(encode(events))), *batches[i + 1 :]]
    raise AssertionError(f"{game}: nothing drawn in the whole game")


async def test_every_tampering_with_the_store_is_found_and_named(
    finished: Finished, store_url: str, sync_redis: redis.Redis
) -> None:
    """A finished table's record, state and log doctored in the store, one way at a time (M30 and its kin):
    ``verify`` fails on each, naming what it found, and passes again on the table as it was played."""
    table, record, batches = finished
    meta, state = record.meta, record.state
    assert meta.secret is not None
    actions = [i for i, b in enumerate(batches) if b.seat is not None]
    drawn, draw_changed = redrawn(meta.game, batches)
    k = next(i for i in actions if len(msgspec.msgpack.decode(batches[i].events)) > 1)  # (update k + 1)
    events = msgspec.msgpack.decode(batches[k].events)
    a = actions[3]
    b = next(i for i in actions[4:] if batches[i].action != batches[a].action)
    start = next(i for i, batch in enumerate(batches) if batch.status == "playing")
    other = secrets.token_hex(32)

    def log(i: int, **change: Any) -> list[Batch]:
        return [*batches[:i], msgspec.structs.replace(batches[i], **change), *batches[i + 1 :]]

    def inputs(**change: Any) -> TableMeta:
        return msgspec.structs.replace(meta, **change)

    events_of = "update {}: replaying its action gives other events than logged"
    derived = "the seed is not the one derived from the table's secret and the seats' nonces"
    opened = "the revealed secret does not match the commitment published at the table's creation"
    doctored: dict[str, tuple[TableMeta, bytes, list[Batch], str]] = {
        "a card drawn": (meta, state, draw_changed, events_of.format(batches[drawn].seq)),
        "an event dropped": (meta, state, log(k, events=msgspec.Raw(encode(events[1:]))), events_of.format(k + 1)),
        "an update dropped": (meta, state, batches[:k] + batches[k + 1 :], "the log does not hold every update"),
        "an action changed": (meta, state, log(a, action=batches[b].action), f"update {a + 1}: "),
        "an action by another seat": (meta, state, log(a, seat=(batches[a].seat or 0) + 1), f"update {a + 1}: "),
        "events at the start": (meta, state, log(start, events=batches[k].events), f"update {start + 1} logs events"),
        "a nonce changed": (inputs(nonces=[meta.nonces[0] + "0", *meta.nonces[1:]]), state, batches, derived),
        "another secret, its commitment made anew": (
            inputs(secret=other, secret_commitment=commitment(bytes.fromhex(other), table)),
            state,
            batches,
            derived,
        ),
        "another secret": (inputs(secret=other), state, batches, opened),
        "a secret not in hex": (inputs(secret="zz"), state, batches, opened),
        "the secret withheld": (inputs(secret=None), state, batches, "the table published a secret commitment"),
        "another seed committed to": (inputs(commitment="0" * 64), state, batches, "the revealed seed does not match"),
        "a final state not the log's": (meta, state[:-1] + bytes([state[-1] ^ 1]), batches, ""),
        "a final state in no format": (meta, b"\xc1", batches, "the stored final state does not decode"),
    }
    client = aioredis.Redis.from_url(store_url)
    try:
        for name, (doctored_meta, doctored_state, doctored_log, problem) in doctored.items():
            store(sync_redis, table, doctored_meta, doctored_state, doctored_log)
            verdict = await verify_table(Store(client), table)
            assert not verdict.ok and len(verdict.problems) == 1, (name, verdict)
            assert verdict.problems[0].startswith(problem), (name, verdict.problems)
        sync_redis.hset(NO_PREFIX.record(table), "meta", b"\xc1")
        assert (await verify_table(Store(client), table)).problems[0].startswith("the table's record or log does not")
        # the table as played, copied under another id: its commitments bind it to the table it was dealt for
        copy = "copy" + secrets.token_hex(4)
        store(sync_redis, copy, meta, state, batches)
        assert (await verify_table(Store(client), copy)).problems == [
            "the revealed seed does not match the commitment published at the start"
        ]
        store(sync_redis, table, meta, state, batches)
        assert (await verify_table(Store(client), table)).ok
    finally:
        await client.aclose()


async def test_a_table_stored_before_its_state_gained_a_field_verifies(
    start_server: ServerFactory, store_url: str
) -> None:
    """Spook's state gained ``let_go`` with a default (3039b14): a table finished before that stored its state
    without it, and ``verify`` compared the stored bytes with the replay's, so once the server was upgraded it found
    every such game unfair ("does not reach the stored final state").  The game played here is one whose end
    leaves no hunt let go: one in ten end on a turn that let one go, a state that version never had (without the
    field it is another state, and was found so)."""
    for _ in range(8):
        table, record, batches = await played_out(start_server, store_url, "spook", seats=2)
        state = msgspec.msgpack.decode(record.state)
        if not state["let_go"]:
            break
    assert state.pop("let_go") == []  # as the version before 3039b14 stored it
    verdict = replay(table, Record(record.seq, record.meta, msgspec.msgpack.encode(state)), batches)
    assert verdict.problems == [] and verdict.ok
