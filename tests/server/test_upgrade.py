"""Upgrades and rollbacks: a table written by a newer hauntd (its ``format`` stamp past ``STORE_FORMAT``) is
neither misread nor written over by an older one; a table written before the stamp existed is read as format 1.

A newer hauntd is simulated by what it would leave in the store: the stamp raised, and a record whose shape the
older code cannot take (a required field renamed: msgspec fails on it, where a field it merely does not know would
be dropped without a word)."""

from __future__ import annotations

import asyncio
import hashlib
import re
import signal
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
import redis

from engine.registry import games
from protocol.messages import Create, Join
from server.store import NO_PREFIX, STORE_FORMAT, Batch, Notice, TableMeta, TooNew, decode_meta, encode
from server.verify import verify_table
from tests.server.conftest import ServerFactory
from tests.server.players import close, play, seat_players
from tests.server.test_expiry import ask, expire, in_process, raw

NEWER = STORE_FORMAT + 1


def as_newer(sync_redis: redis.Redis, table: str) -> dict[bytes, bytes]:
    """Leave ``table`` as a newer hauntd would have: stamped ``NEWER``, a required field of its record renamed.
    Returns its hash, which an older server must leave as it is."""
    meta = msgspec.msgpack.decode(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    meta["players"] = meta.pop("seats")
    sync_redis.hset(NO_PREFIX.record(table), mapping={"format": NEWER, "meta": msgspec.msgpack.encode(meta)})
    return sync_redis.hgetall(NO_PREFIX.record(table))


@pytest.fixture
def newer(sync_redis: redis.Redis) -> Iterator[Callable[[str], dict[bytes, bytes]]]:
    """``newer(table)``: ``as_newer``, and the table gone after the test; left in the store the tests share, its
    deadline would be refused by every later server there, a warning every lease (one test's log check met it)."""
    made: list[str] = []

    def make(table: str) -> dict[bytes, bytes]:
        made.append(table)
        return as_newer(sync_redis, table)

    yield make
    for table in made:
        expire(sync_redis, table)
        sync_redis.zrem(NO_PREFIX.due, table)


async def test_an_older_server_refuses_a_newer_ones_table_typed_logged_and_unchanged(
    start_server: ServerFactory, sync_redis: redis.Redis, newer: Callable[[str], dict[bytes, bytes]]
) -> None:
    """After a rollback: every command about the table, and its deadline, is refused with a message naming the
    two formats (no traceback, no error line, nothing of the game), and the table stays as the newer one left it.
    Before the stamp the older server failed in msgspec: an ``internal`` "server fault" and a traceback for each
    command, and one every lease (5 s) from every process for its deadline, for ever."""
    first = start_server()
    table, players = await seat_players([first.url], seed=7)
    token = players[0].client.seats[table].token
    try:
        await play(players, stop_at=10)
    finally:
        await close(players)
    first.kill(signal.SIGTERM)  # (rolled back: the newer server is gone)
    stored = newer(table)
    sync_redis.zadd(NO_PREFIX.due, {table: 0})  # a deadline falls due: the older server's autoplay claims it
    older = start_server()  # (a process that never read the table)
    ws = await raw(older.url)
    try:
        resumed, _ = await ask(ws, {"type": "resume", "table": table, "token": token, "last_seq": 0}, "r")
        acted, _ = await ask(ws, {"type": "act", "table": table, "token": token, "cmd": "x", "action": {}}, "a")
    finally:
        await ws.close()
    said = f"table {table} is stored in format {NEWER}, newer than this server's {STORE_FORMAT}: a newer hauntd "
    assert resumed["type"] == "error" and resumed["code"] == "internal"
    assert resumed["message"] == said + "serves it: send it again"
    assert acted["type"] == "rejected" and acted["code"] == "internal" and acted["message"] == resumed["message"]
    await asyncio.sleep(1.0)  # the autoplay's polls (every 0.25 s)
    assert sync_redis.hgetall(NO_PREFIX.record(table)) == stored
    lines = older.log_lines()
    assert [line for line in lines if line.get("level") == "error" or "exception" in line] == []
    refused = [line for line in lines if "too_new" in line]
    assert {line["event"] for line in refused} == {"command_failed", "deadline_failed"}
    assert all(line["level"] == "warning" and line["table"] == table for line in refused)


async def test_a_commit_over_a_newer_ones_table_is_refused(
    store_url: str, sync_redis: redis.Redis, newer: Callable[[str], dict[bytes, bytes]]
) -> None:
    """An older process holding the table as it read it (its hub) while a newer one commits to it: the
    compare-and-set on ``seq`` alone would let its next commit through when it caught up from the newer one's
    notice, writing the record back without what it does not know."""
    async with in_process(store_url) as (fanout, service):
        table = await service.create(Create(game="mansion", seats=2))
        record = await service.store.load(table)
        stored = newer(table)
        meta = msgspec.structs.replace(record.meta, names=["Ada", None])
        with pytest.raises(TooNew) as refused:
            await service.store.commit(table, record.seq, meta, None, Batch(seq=1, at=0.0))
        assert refused.value.format == NEWER
        assert sync_redis.hgetall(NO_PREFIX.record(table)) == stored
        with pytest.raises(TooNew):
            await service.store.load(table)
        assert fanout.hubs == {}
        verdict = await verify_table(service.store, table)
        assert verdict.problems == [f"{refused.value}: verify it with that version"] and not verdict.ok


async def test_a_newer_ones_notice_is_not_delivered_by_an_older_process(
    store_url: str, sync_redis: redis.Redis
) -> None:
    """A newer process committed and published its notice: an older one following the table read its record as
    its own (and its next commit was built on it), delivering to its followers what it does not know."""
    async with in_process(store_url) as (fanout, service):
        table = await service.create(Create(game="mansion", seats=2))
        hub = await fanout.hub(table)
        record = await service.store.load(table)
        seated = msgspec.structs.replace(record.meta, names=["Ada", None])
        batch = Batch(seq=1, at=0.0, seats=seated.seat_infos())
        notice = [encode(batch), encode(seated), b"", "newer", NEWER]  # (``Notice``, its format last)
        assert sync_redis.publish(NO_PREFIX.channel(table), msgspec.msgpack.encode(notice)) == 1
        await asyncio.sleep(0.3)
        assert hub.seq == 0 and hub.latest.seq == 0
        fanout.release(hub)


async def test_a_table_of_a_game_only_a_newer_one_has_is_refused(store_url: str, sync_redis: redis.Redis) -> None:
    """Rolled back past a release that added a game: its tables were a ``KeyError`` and a traceback in every
    command and deadline, and listed in the lobby by a server that could not seat anyone at them."""
    async with in_process(store_url) as (_, service):
        table = await service.create(Create(game="mansion", seats=2))
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        sync_redis.hset(NO_PREFIX.record(table), "meta", encode(msgspec.structs.replace(meta, game="haunted-attic")))
        with pytest.raises(TooNew) as refused:
            await service.store.load(table)
        said = f"table {table} is of game 'haunted-attic', which this server does not have: a newer hauntd serves it"
        assert str(refused.value) == said
        assert table not in [t for t, _, _ in await service.store.read_open_tables()]


async def test_a_newer_ones_lobby_table_is_not_listed_by_an_older_server(
    store_url: str, sync_redis: redis.Redis, newer: Callable[[str], dict[bytes, bytes]]
) -> None:
    async with in_process(store_url) as (_, service):
        table = await service.create(Create(game="mansion", seats=2))
        assert table in [t for t, _, _ in await service.store.read_open_tables()]
        newer(table)
        assert table not in [t for t, _, _ in await service.store.read_open_tables()]
        assert sync_redis.zscore(NO_PREFIX.open, table) is not None  # (the index is left to the servers that read it)


async def test_a_table_written_before_the_stamp_is_read_and_then_stamped(
    store_url: str, sync_redis: redis.Redis
) -> None:
    async with in_process(store_url) as (fanout, service):
        table = await service.create(Create(game="mansion", seats=2))
        assert sync_redis.hget(NO_PREFIX.record(table), "format") == str(STORE_FORMAT).encode()
        sync_redis.hdel(NO_PREFIX.record(table), "format")  # as every version before the stamp left it
        hub = await fanout.hub(table)
        await service.join(hub, Join(table=table, name="Ada", token="a" * 22))
        assert sync_redis.hget(NO_PREFIX.record(table), "format") == str(STORE_FORMAT).encode()
        fanout.release(hub)


SHAPES = {1: "f93084336968e03fe36f801cb9e681705912d0f57ee55a0081952fd8974a05ce"}
"""``STORE_FORMAT`` → the fingerprint of the shapes that format stores (``stored_shapes``).  (Format 1 gained
``Notice.rematch`` and ``rematch_seat``, last and with defaults: the version before reads a rematch notice as its
table's last update again, which it skips, ``tests/server/test_rematch.py``.)"""


def stored_shapes() -> str:
    """A fingerprint of every struct the store holds: ``TableMeta``, ``Batch``, ``Notice`` and each game's state,
    actions, events and options (field names, order, types, defaults, array or map)."""
    types: list[Any] = [TableMeta, Batch, Notice]
    for game in games().values():
        types += [game.state_type, game.action_type, game.event_type, game.options_type]
    text = re.sub(r" at 0x[0-9a-f]+", "", repr(msgspec.inspect.multi_type_info(types)))  # (a Raw default's address)
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_change_of_what_is_stored_is_a_decision_on_the_store_format() -> None:
    """Without it the stamp would guard nothing: a shape changed under the same ``STORE_FORMAT`` is misread, or
    dropped when written back, by the version before, which takes it for its own."""
    assert SHAPES.get(STORE_FORMAT) == stored_shapes(), (
        "what the store holds changed: unless the version before reads and writes back the new shape unharmed "
        "(an added field it may drop without harm, say), raise STORE_FORMAT in server/store.py (reading the older "
        f"formats still); then set SHAPES[STORE_FORMAT] here to {stored_shapes()!r} (a new msgspec that describes "
        "the same shapes in other words, with no struct of ours changed, needs only the new fingerprint)"
    )
