"""Nudges: at a table without a time limit that has stood still, a seated player starts a clock on the decisions it
waits on, through the deadlines of a timed table (kept in the store, applied once, across restarts)."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

import pytest
import redis

from clients.sdk import Client, ServerError
from protocol.messages import Events
from server.store import NO_PREFIX, TableMeta, decode_meta
from tests.server.conftest import ServerFactory
from tests.server.drive import GAME, stored_seq, stored_state, to_a_duel
from tests.server.players import close, play, seat_players
from tests.server.test_hidden_frames import tap
from tests.server.test_timer import logged, next_of, wait_for_seq

NUDGE = ("--nudge-after", "0.6", "--nudge-seconds", "1.0", "--away-grace", "0.2")


def stored_meta(sync_redis: redis.Redis, table: str) -> TableMeta:
    return decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))


def stored(sync_redis: redis.Redis, table: str) -> tuple[Any, ...]:
    """The table's record and log as stored: what a refused nudge must leave exactly as it was."""
    return tuple(sync_redis.hgetall(NO_PREFIX.record(table)).items()), sync_redis.xlen(NO_PREFIX.log(table))


async def refused(client: Client, table: str, seat: int) -> str:
    with pytest.raises(ServerError) as refusal:
        await client.nudge(table, seat)
    return refusal.value.code


async def test_a_nudge_times_the_decision_then_the_default_and_the_away_mark_come(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """Seat 0 walked away at its first draw: too early, seat 1's nudge is refused; once the table has stood still,
    every connection sees seat 0's deadline; nudged again, it does not move; past it the rules' default is played
    once and seat 0 is away, its later decisions defaulted after the grace, until the turn is seat 1's: untimed."""
    server = start_server(*NUDGE)
    table, players = await seat_players([server.url], seats=2, game="spook")
    spectator = Client(server.url)
    await spectator.connect()
    try:
        await spectator.watch(table)
        seq = stored_seq(sync_redis, table)
        before = stored(sync_redis, table)
        assert await refused(players[1].client, table, 0) == "too_early"
        assert stored(sync_redis, table) == before
        assert players[1].client.welcome is not None
        assert players[1].client.welcome.limits.nudge_after == 0.6
        await asyncio.sleep(0.7)
        assert await players[1].client.nudge(table, 0) == seq + 1
        nudged = logged(sync_redis, table)[seq]
        assert nudged.seat is None and not nudged.timeout and nudged.seats is None  # no action, nobody's move
        for client in (spectator, players[0].client, players[1].client):
            update = await next_of(client, Events, lambda m: m.seq == seq + 1)
            assert update.events == [] and update.time is not None
            assert [(p.seat, p.deadline) for p in update.prompts or []] == [(0, pytest.approx(nudged.at + 1.0))]
        deadline = stored_meta(sync_redis, table).deadlines
        await asyncio.sleep(0.3)
        assert await players[1].client.nudge(table, 0) == seq + 1  # again: nothing moves
        assert stored_meta(sync_redis, table).deadlines == deadline and stored_seq(sync_redis, table) == seq + 1
        timed_out = await next_of(spectator, Events, lambda m: m.timeout is not None, seconds=5)
        assert timed_out.seq == seq + 2 and timed_out.timeout == 0
        assert timed_out.seats is not None and timed_out.seats[0].away
        assert 1.0 <= logged(sync_redis, table)[seq + 1].at - nudged.at < 2.0  # at the deadline, not before
        waiting = await next_of(
            spectator, Events, lambda m: any(p.seat == 1 for p in m.prompts or []), seconds=10
        )  # seat 0's turn defaulted step by step at the grace, then seat 1's own, untimed
        assert all(p.deadline is None for p in waiting.prompts or [])
        batches = logged(sync_redis, table)[seq + 1 : waiting.seq]
        assert all(b.timeout and b.seat == 0 for b in batches) and len(batches) >= 2
        for earlier, later in itertools.pairwise(batches):
            assert 0.2 <= later.at - earlier.at < 1.0  # the away seat's grace (not the nudge's second again)
        assert stored_meta(sync_redis, table).deadlines == {}
    finally:
        await spectator.close()
        await close(players)


async def test_the_seat_acting_ends_the_nudge(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """Nudged, seat 0 draws: its next step is a new decision, untimed again, and no default ever comes."""
    server = start_server(*NUDGE)
    table, players = await seat_players([server.url], seats=2, game="spook")
    try:
        seq = stored_seq(sync_redis, table)
        await asyncio.sleep(0.7)
        assert await players[1].client.nudge(table, 0) == seq + 1
        update = await next_of(players[0].client, Events, lambda m: m.seq == seq + 1 and bool(m.legal))
        outcome = await players[0].client.act(table, update.legal[0], seq=update.seq)
        assert outcome.seq == seq + 2  # type: ignore[union-attr]
        after = await next_of(players[1].client, Events, lambda m: m.seq == seq + 2)
        assert [(p.seat, p.deadline) for p in after.prompts or []] == [(0, None)]
        assert sync_redis.zscore(NO_PREFIX.due, table) is None  # its schedule entry went with it, in the commit
        await asyncio.sleep(1.3)  # past the nudge's deadline
        assert stored_seq(sync_redis, table) == seq + 2 and stored_meta(sync_redis, table).deadlines == {}
    finally:
        await close(players)


async def test_a_nudge_outlives_a_restart(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """The process that took the nudge is killed before the deadline: a fresh one applies the default, once."""
    first = start_server(*NUDGE)
    table, players = await seat_players([first.url], seats=2, game="spook")
    seq = stored_seq(sync_redis, table)
    await asyncio.sleep(0.7)
    assert await players[1].client.nudge(table, 0) == seq + 1
    first.kill()  # kill -9: the deadline is only in the store now
    await close(players)
    deadline = stored_meta(sync_redis, table).deadlines[0]
    assert sync_redis.zscore(NO_PREFIX.due, table) == pytest.approx(deadline)
    start_server(*NUDGE)
    await wait_for_seq(sync_redis, table, seq + 2)
    defaulted = logged(sync_redis, table)[seq + 1]
    assert defaulted.timeout and defaulted.seat == 0
    assert deadline <= defaulted.at < deadline + 15  # at the deadline, or once a process is there to see it passed
    assert stored_meta(sync_redis, table).away == [0]
    assert [b.seq for b in logged(sync_redis, table)] == list(range(1, stored_seq(sync_redis, table) + 1))


async def test_nudging_a_duel_times_both_dials(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """Seat 2 nudges one duellist: both dials get the one deadline, so neither learns the other's default bid (a
    dial 0) before its own, which from the deadline on is refused ``stale``, as at a timed table."""
    server = start_server(*NUDGE)
    lobby = await tap(server.url, None)
    table = (await lobby.ask(type="create", game="mansion", seats=3))["table"]
    seats = [await tap(server.url, seat) for seat in range(3)]
    tokens = [(await t.ask(type="join", table=table, name=f"P{i}", seat=i))["token"] for i, t in enumerate(seats)]
    await seats[0].ask(type="start", table=table, token=tokens[0])
    try:
        seq = await to_a_duel(sync_redis, table, seats, tokens)
        duellists = sorted(GAME.prompts(GAME.decode_state(stored_state(sync_redis, table))))
        third = ({0, 1, 2} - set(duellists)).pop()
        await asyncio.sleep(0.7)
        reply = await seats[third].ask(type="nudge", table=table, token=tokens[third], seat=duellists[1])
        assert reply == {"type": "nudged", "table": table, "seq": seq + 1, "ref": reply["ref"]}
        deadlines = stored_meta(sync_redis, table).deadlines
        assert sorted(deadlines) == duellists and len(set(deadlines.values())) == 1
        sync_redis.zadd(NO_PREFIX.due, {table: "+inf"})  # the server's time-outs held back
        await asyncio.sleep(max(deadlines.values()) - time.time() + 0.05)
        dial = {"type": "dial", "bid": 1}
        late = duellists[0]
        reply = await seats[late].ask(type="act", table=table, token=tokens[late], cmd="late", action=dial)
        assert (reply["type"], reply.get("code")) == ("rejected", "stale"), reply
        sync_redis.zadd(NO_PREFIX.due, {table: time.time()})  # let them go
        await wait_for_seq(sync_redis, table, seq + 3)
        defaults = logged(sync_redis, table)[seq + 1 : seq + 3]
        assert sorted((b.seat, b.timeout) for b in defaults) == [(s, True) for s in duellists]
    finally:
        for t in (lobby, *seats):
            await t.close()


async def test_nudges_refused_leave_the_table_as_it_was(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """Too early, one's own seat, a seat owing nothing, a bot, a timed table, no seat, before the start, a seat that
    is none, after the end: each a typed error, the table's record and log untouched."""
    server = start_server(*NUDGE)
    table, players = await seat_players([server.url], seats=3, game="spook")
    raw = await tap(server.url, None)
    me = players[1].client
    try:
        await asyncio.sleep(0.7)
        before = stored(sync_redis, table)
        assert await refused(me, table, 1) == "illegal_move"  # my own seat
        assert await refused(me, table, 2) == "not_your_turn"  # seat 2 owes nothing: seat 0 draws
        assert await refused(me, table, 3) == "bad_field"  # no such seat
        reply = await raw.ask(type="nudge", table=table, token="x" * 22, seat=0)
        assert reply["code"] == "auth"  # not seated
        assert stored(sync_redis, table) == before
        timed = await me.create("spook", 2, turn_seconds=60, bots=1, bot_strategy="random")
        await me.join(timed, "Ada")
        assert await refused(me, timed, 0) == "not_started"
        await me.start(timed)
        await asyncio.sleep(0.7)
        before = stored(sync_redis, timed)
        assert await refused(me, timed, 0) == "illegal_move"  # a timed table
        assert stored(sync_redis, timed) == before
        bots = await me.create("mansion", 2, bots=1, bot_strategy="random")
        await me.join(bots, "Ada")
        await me.start(bots)
        assert await refused(me, bots, 0) == "illegal_move"  # a server-run bot's seat
        await play(players)  # to the end
        before = stored(sync_redis, table)
        assert await refused(me, table, 0) == "game_over"
        assert stored(sync_redis, table) == before
    finally:
        await raw.close()
        await close(players)


async def test_a_refused_nudge_reads_the_table_once(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """A nudge reads the stored record (the stillness is judged on it) and the last update's time; a refusal then
    judged on that record read it again, as an action judged on a record known from notices does (which may be
    behind): 3 round trips for a refusal where 2 do."""
    server = start_server(*NUDGE)
    table, players = await seat_players([server.url], seats=3, game="spook")
    record = NO_PREFIX.record(table)
    reads: list[str] = []
    done = threading.Event()

    def watch() -> None:
        with sync_redis.monitor() as monitor:
            while not done.is_set():
                command = monitor.next_command()["command"]
                if command.upper().startswith("HMGET ") and record in command:
                    reads.append(command)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        await asyncio.sleep(0.5)  # (the monitor is on)
        assert await refused(players[1].client, table, 2) == "not_your_turn"  # seat 2 owes nothing: seat 0 draws
        await asyncio.sleep(0.5)
        assert len(reads) == 1, reads
    finally:
        done.set()
        await close(players)
        watcher.join(timeout=5)
