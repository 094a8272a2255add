"""Per-decision time limits: the rules' default is applied when a deadline passes, exactly once, by whichever
process gets there — also when the process that set the deadline is gone; the seat is then marked away."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

import pytest
import redis

from clients.sdk import Client
from protocol.messages import Events, Rejected, ServerMsg, Snapshot
from server.store import NO_ACTION, NO_PREFIX, Batch, decode_batch, decode_meta
from tests.server.conftest import ServerFactory
from tests.server.drive import stored_seq, to_a_duel
from tests.server.players import close, seat_players
from tests.waiting import until


def logged(sync_redis: redis.Redis, table: str) -> list[Batch]:
    return [decode_batch(fields[b"b"]) for _, fields in sync_redis.xrange(NO_PREFIX.log(table))]


async def wait_for_seq(sync_redis: redis.Redis, table: str, seq: int, seconds: float = 15.0) -> int:

    def reached() -> int | None:
        now = stored_seq(sync_redis, table)
        return now if now >= seq else None

    now = await until(reached, seconds)
    assert now is not None, f"table stuck at seq {stored_seq(sync_redis, table)}, waiting for {seq}"
    return now


def assert_each_decision_timed_out_once(batches: list[Batch], turn_seconds: float) -> None:
    """Time-outs of a game nobody plays: each one a new decision, never a second default for the same one."""
    timeouts = [b for b in batches if b.timeout]
    assert [b.seq for b in batches] == list(range(1, len(batches) + 1))
    for earlier, later in itertools.pairwise(timeouts):
        assert later.at - earlier.at > turn_seconds * 0.9, (earlier, later)  # the next seat's own full wait


async def test_time_outs_apply_the_default_once(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    a, b = start_server(), start_server()
    table, players = await seat_players([a.url, b.url], seed=9, turn_seconds=0.4)
    try:
        started = stored_seq(sync_redis, table)
        first = await players[0].client.recv(timeout=5)
        while not isinstance(first, Snapshot) or first.status != "playing":
            first = await players[0].client.recv(timeout=5)
        assert first.prompts and all(p.deadline is not None for p in first.prompts)
        now = await wait_for_seq(sync_redis, table, started + 3)  # nobody plays: both processes race
        batches = logged(sync_redis, table)
        assert all(b.timeout and b.seat is not None for b in batches[started:now])
        assert_each_decision_timed_out_once(batches, 0.4)
        received: list[ServerMsg] = []
        with contextlib.suppress(TimeoutError):
            while True:
                received.append(await players[1].client.recv(timeout=0.2))
        prompts = [m for m in received if isinstance(m, Events) and m.prompts is not None]
        assert prompts and all(p.deadline for m in prompts for p in m.prompts or [])
        seatings = [m.seats for m in received if isinstance(m, Events) and m.seats is not None]
        assert seatings and any(s.away for s in seatings[-1])  # everyone sees who is away
    finally:
        await close(players)


async def next_of(client: Client, kind: type[Any], test: Any = lambda m: True, seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        msg = await client.recv(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(msg, kind) and test(msg):
            return msg


async def play_promptly(client: Client, table: str) -> None:
    """Act at once on every decision of the client's seat (its first legal action)."""
    while True:
        msg = await client.recv(timeout=30)
        if isinstance(msg, Events | Snapshot) and msg.legal and msg.seq == client.last_seq[table]:
            with contextlib.suppress(Exception):  # (a decision overtaken by a time-out or a bot: the next one)
                await client.act(table, msg.legal[0], seq=msg.seq)


async def test_an_away_seat_is_marked_defaulted_at_once_and_cleared(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    server = start_server("--away-grace", "0.3")
    me, other, spectator = Client(server.url), Client(server.url), Client(server.url)
    playing = None
    for client in (me, other, spectator):
        await client.connect()
    try:
        table = await me.create("mansion", 3, bots=1, bot_strategy="random", turn_seconds=1.0)
        seat = (await me.join(table, "Ada")).seat
        await other.join(table, "Bea")
        await spectator.watch(table)
        await me.start(table)
        playing = asyncio.create_task(play_promptly(other, table))  # someone is there: the table goes on

        def away(msg: Events) -> bool:
            return msg.seats is not None and msg.seats[seat].away

        marked = await next_of(spectator, Events, away)  # I let my first decision pass: away, for all to see
        assert not any(s.away for s in marked.seats if s.seat != seat)
        for _ in range(5):  # (under load my act may come after the 0.3 s: refused, the server decided; the next)
            mine = await next_of(me, Events, lambda m: bool(m.legal) and m.seq == me.last_seq[table])
            deadline = next(p.deadline for p in mine.prompts or [] if p.seat == seat)
            # while away: the grace from the update that gave me the decision (the last, or one before it as
            # another seat decided meanwhile), not the full second
            assert any(deadline - b.at == pytest.approx(0.3) for b in logged(sync_redis, table)[: mine.seq])
            outcome = await me.act(table, mine.legal[0], seq=mine.seq)
            if not isinstance(outcome, Rejected):
                break
            assert outcome.code == "stale", outcome
        assert outcome.seq == mine.seq + 1  # type: ignore[union-attr]
        back = await next_of(spectator, Events, lambda m: m.seq == mine.seq + 1)
        assert back.seats is not None and not back.seats[seat].away  # acting again clears it
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        if seat in meta.deadlines:  # still my decision: a fresh full second now that I am back
            assert meta.deadlines[seat] - logged(sync_redis, table)[mine.seq].at == pytest.approx(1.0)
        batches = logged(sync_redis, table)
        assert all(not b.timeout for b in batches if b.seat == 0)  # the bot never times out
    finally:
        if playing is not None:
            playing.cancel()
        for client in (me, other, spectator):
            await client.close()


async def test_a_deadline_outlives_the_process_that_set_it(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """Killed between setting the deadline and its firing: fresh processes that follow nothing fire it once."""
    first = start_server()
    table, players = await seat_players([first.url], seats=2, seed=11, turn_seconds=1.5)
    first.kill()  # kill -9 right after the start: the deadline is only in Redis now
    await close(players)
    started = stored_seq(sync_redis, table)
    assert not logged(sync_redis, table)[-1].timeout
    start_server(), start_server()
    await wait_for_seq(sync_redis, table, started + 2)
    batches = logged(sync_redis, table)
    assert batches[started].timeout and batches[started + 1].timeout
    assert_each_decision_timed_out_once(batches, 1.5)
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    assert meta.away  # marked by a process that never saw it start


async def test_a_table_whose_every_person_is_away_waits_for_one_to_come_back(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """Paused, every person away: the server decides for none of them (a table of absent people was played at
    the turn's pace to its end, at any pace a creator chose); whoever resumes a seat is back and play goes on."""
    server = start_server("--away-grace", "0.2")
    me = Client(server.url)
    await me.connect()
    try:
        table = await me.create("mansion", 3, bots=2, bot_strategy="random", turn_seconds=0.2)
        seat = (await me.join(table, "Ada")).seat
        token = me.seats[table].token
        await me.start(table)
        marked = await next_of(me, Events, lambda m: m.seats is not None and m.seats[seat].away)

        def mine(m: Events) -> bool:  # the table's latest update, and it waits on me
            return m.seq == me.last_seq[table] and any(p.seat == seat for p in m.prompts or [])

        # (the default that marked me may leave the decision with me: the table is paused there, nothing follows)
        paused = marked if mine(marked) else await next_of(me, Events, mine)
        assert all(p.deadline is None for p in paused.prompts or [] if p.seat == seat)  # mine: no deadline
        seq = stored_seq(sync_redis, table)
        await asyncio.sleep(1.0)  # five turns' time: nobody decides for me, the bots wait on me
        assert stored_seq(sync_redis, table) == seq
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        assert meta.away == [seat] and not meta.deadlines
        assert sum(b.timeout for b in logged(sync_redis, table)) == 1 and marked.seq <= seq
        await me.close()
        me = Client(server.url)
        await me.connect()
        me.last_seq[table] = seq
        snapshot = await me.resume(table, token)  # I am back: the mark goes, and my decision gets its full time
        back = logged(sync_redis, table)[seq]
        assert back.seats is not None and not back.seats[seat].away and back.action == NO_ACTION
        assert snapshot.seq >= seq + 1 and not snapshot.seats[seat].away
        again = await next_of(me, Events, lambda m: m.seats is not None and m.seats[seat].away)  # not playing
        assert logged(sync_redis, table)[again.seq - 1].timeout
        # its full time from my return, not less (a bound above would time the server's schedule under load)
        assert logged(sync_redis, table)[again.seq - 1].at - back.at > 0.19
    finally:
        await me.close()


async def test_a_seat_whose_time_is_up_acts_no_more(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    """A duel's two dials fall due at the same moment and the server decides the lower seat first: its update (a dial
    set, and the seat away: so the default bid, 0) reached the other duellist, whose dial, sent at once, came before
    the server's own decision for it and was accepted (9 duels of 9 on this machine): a hidden bid learnt, and
    answered.  Once its deadline has passed a seat's act is refused, and the server's default stands.  (Here the
    server's time-outs are held back, so the act surely comes between the deadline and the server's decision.)"""
    from tests.server.test_hidden_frames import tap

    server = start_server()
    lobby = await tap(server.url, None)
    table = (await lobby.ask(type="create", game="mansion", seats=2, turn_seconds=1.0))["table"]
    seats = [await tap(server.url, seat) for seat in (0, 1)]
    tokens = [(await t.ask(type="join", table=table, name=f"P{i}", seat=i))["token"] for i, t in enumerate(seats)]
    await seats[1].ask(type="start", table=table, token=tokens[1])
    try:
        seq = await to_a_duel(sync_redis, table, seats, tokens)
        sync_redis.zadd(NO_PREFIX.due, {table: "+inf"})  # the server's time-outs held back
        deadline = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta")).deadlines[1]
        await asyncio.sleep(deadline - time.time() + 0.05)
        dial = {"type": "dial", "bid": 1}
        reply = await seats[1].ask(type="act", table=table, token=tokens[1], cmd="late", action=dial, seq=seq)
        assert (reply["type"], reply.get("code")) == ("rejected", "stale"), reply
        assert "time is up" in reply["message"]
        sync_redis.zadd(NO_PREFIX.due, {table: time.time()})  # let them go
        await wait_for_seq(sync_redis, table, seq + 2)
        assert [(b.seat, b.timeout) for b in logged(sync_redis, table)[seq : seq + 2]] == [(0, True), (1, True)]
        # The dial sent again once the default is done: refused stale, saying why (not only that the seq moved on).
        reply = await seats[1].ask(type="act", table=table, token=tokens[1], cmd="later", action=dial, seq=seq)
        assert (reply["type"], reply.get("code")) == ("rejected", "stale"), reply
        assert "seat 1's time ran out, the server decided for it" in reply["message"], reply
    finally:
        for t in (lobby, *seats):
            await t.close()


async def test_coming_back_past_the_deadline_takes_no_decision_back(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """An away seat whose deadline has passed, its default not yet applied (the schedule polls; a process that died
    holding the claim delays it by the lease), says it is back: the mark goes, but the decision stays due and the
    rules' default comes, once.  (It got a fresh full time limit: a reconnect took back a decision the
    server was already making, as its own late ``act`` may not, ``stale``.)"""
    from tests.server.test_hidden_frames import tap

    server = start_server("--away-grace", "1.0")
    lobby = await tap(server.url, None)
    table = (await lobby.ask(type="create", game="spook", seats=2, turn_seconds=1.5))["table"]
    seats = [await tap(server.url, seat) for seat in (0, 1)]
    tokens = [(await t.ask(type="join", table=table, name=f"P{i}", seat=i))["token"] for i, t in enumerate(seats)]
    await seats[0].ask(type="start", table=table, token=tokens[0])
    try:
        started = stored_seq(sync_redis, table)
        await wait_for_seq(sync_redis, table, started + 1)  # seat 0's draw, defaulted: away
        sync_redis.zadd(NO_PREFIX.due, {table: "+inf"})  # the server's next time-out held back
        meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
        assert meta.away == [0] and stored_seq(sync_redis, table) == started + 1, meta
        due = meta.deadlines[0]  # its roll's, a second on
        await asyncio.sleep(due - time.time() + 0.05)
        back = await seats[0].ask(type="resume", table=table, token=tokens[0], last_seq=started + 1, back=True)
        assert back["type"] == "snapshot" and not back["seats"][0].get("away"), back
        # The back's commit schedules the table again at its earliest deadline: the one past, so the default comes
        # at once, not a full time limit later.
        await wait_for_seq(sync_redis, table, started + 3)
        came_back, defaulted = logged(sync_redis, table)[started + 1 : started + 3]
        assert came_back.action == NO_ACTION and came_back.seats is not None and not came_back.seats[0].away
        # (a fresh full time limit puts it 1.5 s after the return at the least: anything sooner is the deadline
        # kept, however long a loaded machine's schedule took to apply it)
        assert defaulted.seat == 0 and defaulted.timeout and defaulted.at - came_back.at < 1.4, defaulted
    finally:
        for t in (lobby, *seats):
            await t.close()
