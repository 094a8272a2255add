"""Server-run bots: a person alone with three bots plays a whole game; a bot decides from its seat's wire JSON
only; a bot move owed when its process dies is made, once, by processes that never saw the table."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import msgspec
import pytest
import redis
import redis.asyncio as aioredis
import structlog
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.bots import Decision
from clients.sdk import Client, to_builtins
from engine.registry import get_game
from engine.rng import seed_from_int
from protocol.messages import Act, GameOver, Snapshot
from server import bots
from server.hub import Hub
from server.metrics import Metrics
from server.service import TableService
from server.store import NO_PREFIX, Store, decode_meta
from tests.engine.test_hidden_decisions import SCRAMBLE
from tests.server.conftest import ServerFactory
from tests.server.drive import stored_seq, stored_state
from tests.server.players import Player, assert_gapless
from tests.server.test_timer import logged, wait_for_seq
from tests.waiting import until


def bot_commands(sync_redis: redis.Redis, table: str) -> dict[str, int]:
    """The bots' command ids this table committed, each with the seq it committed at."""
    return {k.decode(): int(v) for k, v in sync_redis.hgetall(NO_PREFIX.cmds(table)).items() if k.startswith(b"bot:")}


async def test_a_person_plays_alone_against_three_bots(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    a, _ = start_server(), start_server()  # a second process polls the same schedule: no bot move twice
    client = Client(a.url)
    await client.connect()
    try:
        table = await client.create("ghost-at-home", 4, bots=3, bot_strategy="greedy")
        listed = {t.table: t for t in await client.list_tables("ghost-at-home")}
        assert listed[table].taken == 3  # the bots are seated from the start
        held = await client.join(table, "Ada")
        assert held.seat == 3  # the last seat, the only free one
        await client.start(table)
        me = Player(client, table, held.seat, random.Random(12))
        await asyncio.wait_for(me.run(), 120)
    finally:
        await client.close()
    snapshot = next(m for m in me.received if isinstance(m, Snapshot) and m.seat == held.seat)  # (after the watch's)
    assert [(s.bot, s.name is not None) for s in snapshot.seats] == [(True, True)] * 3 + [(False, True)]
    assert isinstance(me.result, GameOver) and me.result.result["winners"] is not None
    final = stored_seq(sync_redis, table)
    assert_gapless(me, final)
    batches = logged(sync_redis, table)
    moves = [b for b in batches if b.seat is not None]
    assert {b.seat for b in moves} == {0, 1, 2, 3} and not any(b.timeout for b in moves)
    assert sum(b.seat == 3 for b in moves) == me.acted
    decided = bot_commands(sync_redis, table)
    assert sorted(decided.values()) == [b.seq for b in moves if b.seat != 3]  # each bot move committed once


async def test_a_person_plays_spook_with_three_greedy_bots_hands_open(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """Spook's bots are the person's teammates (S1); with hands open they read the person's hand and may leave a
    hunt the person started to them (S11): the whole game is played, each seat deciding for itself only, and no
    decision waits for a time-out."""
    client = Client(start_server().url)
    await client.connect()
    try:
        table = await client.create("spook", 4, options={"open_hands": True}, bots=3, bot_strategy="greedy")
        held = await client.join(table, "Ada")
        await client.start(table)
        me = Player(client, table, held.seat, random.Random(5))
        await asyncio.wait_for(me.run(), 120)
    finally:
        await client.close()
    assert isinstance(me.result, GameOver)
    moves = [b for b in logged(sync_redis, table) if b.seat is not None]
    assert {b.seat for b in moves} == {0, 1, 2, 3} and not any(b.timeout for b in moves)
    assert sum(b.seat == 3 for b in moves) == me.acted


class Spy:
    """A strategy that records what it was shown."""

    seen: list[Decision] = []

    def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
        Spy.seen.append(decision)
        return decision.legal[-1]


def test_a_bot_sees_exactly_its_seats_wire_json(monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("ghost-at-home")
    state = game.setup(3, seed_from_int(5), game.decode_options({}), "spy")
    seat = min(game.prompts(state))
    meta = decode_meta(msgspec.msgpack.encode({"game": "ghost-at-home", "seats": 3, "bots": {seat: "spy"}}))
    monkeypatch.setattr(bots, "get_strategy", lambda game_name, name: Spy())
    Spy.seen.clear()
    action = bots.bot_action(game, state, meta, seat)
    legal = game.legal_actions(state, seat)
    assert action == legal[-1]
    (decision,) = Spy.seen
    wire = msgspec.json.decode(msgspec.json.encode(game.view(state, seat)))
    assert decision.seat == seat and decision.view == wire
    assert decision.view != msgspec.to_builtins(game.view(state, None))  # its own hand, which a spectator lacks
    assert decision.legal == msgspec.json.decode(msgspec.json.encode(legal))
    assert decision.prompt == {"seat": seat, "kind": game.prompts(state)[seat].kind}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["mansion", "spook", "ghost-at-home"]), seed=st.integers(0, 2**32))
def test_a_bot_decides_from_nothing_its_seat_may_not_see(name: str, seed: int) -> None:
    """Over random games: what a bot is shown is the same on a copy of the table scrambled in everything hidden
    from its seat (other hands, deck orders, another duellist's bid …), so its move cannot depend on it.  (Spook's
    hunts are legal only when the hunters' cards can reach them, which the rules let the table know: see
    tests/engine/test_hidden_decisions.py.)"""
    game = get_game(name)
    rnd = random.Random(seed)
    seats = rnd.randint(max(2, game.min_seats), game.max_seats)
    state = game.setup(seats, seed_from_int(seed), game.default_options(), "spy")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bots, "get_strategy", lambda game_name, strategy: Spy())
        while game.result(state) is None:
            prompted = sorted(game.prompts(state))
            for seat in prompted:
                meta = decode_meta(msgspec.msgpack.encode({"game": name, "seats": seats, "bots": {seat: "spy"}}))
                Spy.seen.clear()
                bots.bot_action(game, state, meta, seat)
                bots.bot_action(game, SCRAMBLE[name](state, seat, rnd), meta, seat)
                hunts = name == "spook"  # (the documented exception)
                shown, scrambled = (
                    msgspec.structs.replace(d, legal=[a for a in d.legal if not (hunts and a["type"] == "hunt")])
                    for d in Spy.seen
                )
                assert shown == scrambled, (name, seat)
            seat = rnd.choice(prompted)
            game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)))


def test_a_failing_bot_falls_back_to_the_rules_default(monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("mansion")
    state = game.setup(2, seed_from_int(3), game.decode_options({}), "bad")
    seat = min(game.prompts(state))
    meta = decode_meta(msgspec.msgpack.encode({"game": "mansion", "seats": 2, "bots": {seat: "bad"}}))

    class Cheat:
        def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
            return {"type": "move", "to": 99}

    class Broken:
        def choose(self, decision: Decision, rng: random.Random) -> dict[str, Any]:
            raise ValueError("bug")

    for strategy in (Cheat, Broken):
        monkeypatch.setattr(bots, "get_strategy", lambda game_name, name, s=strategy: s())
        with structlog.testing.capture_logs() as logs:
            assert bots.bot_action(game, state, meta, seat) == game.timeout_action(state, seat)
        assert [entry["log_level"] for entry in logs] == ["error"]


async def test_a_bot_move_owed_by_a_dead_process_is_made_once(
    start_server: ServerFactory, sync_redis: redis.Redis, store_url: str
) -> None:
    first = start_server()
    client = Client(first.url, reconnect=False)
    await client.connect()
    table = await client.create("mansion", 2, bots=1, bot_strategy="random")
    me = (await client.join(table, "Ada")).seat
    await client.start(table)
    game = get_game("mansion")

    def prompted() -> set[int]:
        return set(game.prompts(game.decode_state(stored_state(sync_redis, table))))

    assert await until(lambda: prompted() == {me}, 10)  # the bot may open the game: let it
    first.kill()
    await client.close()

    # my move commits from a process with no schedule loop, which then dies: the bot's move is owed, in Redis only
    async with aioredis.Redis.from_url(store_url) as conn:
        store = Store(conn)
        service = TableService(store, Metrics())
        hub = Hub(table, await store.load(table), store)
        while prompted() == {me}:
            legal = game.legal_actions(game.decode_state(stored_state(sync_redis, table)), me)
            action = next((a for a in legal if type(a).__name__ == "EndTurn"), legal[0])
            await service.act(hub, me, Act(table=table, token="-", cmd=f"c{time.time()}", action=to_builtins(action)))
    owed = stored_seq(sync_redis, table)
    assert sync_redis.zscore(NO_PREFIX.due, table) is not None
    await asyncio.sleep(0.5)
    assert stored_seq(sync_redis, table) == owed  # nobody runs: nothing moves

    start_server(), start_server()
    await wait_for_seq(sync_redis, table, owed + 1)
    assert await until(lambda: prompted() == {me}, 10)  # the bot plays its whole turn, then it is mine again
    after = logged(sync_redis, table)[owed:]
    assert after and all(b.seat == 1 - me and not b.timeout for b in after)
    decided = bot_commands(sync_redis, table)
    assert sorted(v for v in decided.values() if v > owed) == [b.seq for b in after]
    assert sync_redis.zscore(NO_PREFIX.due, table) is None  # my decision has no deadline: nothing left in the schedule
