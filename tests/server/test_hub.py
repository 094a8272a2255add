"""A hub behind the store (its notices late or lost while the store restarted), and a store that cannot be read:
what a follower attaching then receives, and how commands are judged.  Found by ``hauntd chaos``."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from msgspec import to_builtins
from redis.exceptions import ConnectionError as RedisConnectionError

from protocol import codec
from protocol.errors import ProtocolError
from protocol.messages import Act, Create, Events, Join, Snapshot
from server.hub import Fanout, Hub
from server.metrics import Metrics
from server.service import TableService, token_digest
from server.store import Store


class Socket:
    """A follower that keeps the frames it is sent, decoded."""

    def __init__(self) -> None:
        self.got: list[object] = []

    def send(self, frame: bytes) -> None:
        self.got.append(codec.decode_server(frame))

    async def drain(self) -> bool:
        return True

    def done(self, hub: Hub) -> None:
        self.got.append(("done", hub.table))


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(store_url)
    yield Store(client)
    await client.aclose()


async def lobby(store: Store, seats: int = 2) -> tuple[TableService, str]:
    service = TableService(store, Metrics())
    return service, await service.create(Create(game="mansion", seats=seats))


async def test_a_follower_whose_backlog_cannot_be_read_is_not_left_following(store: Store) -> None:
    service, table = await lobby(store)
    hub = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(hub, Join(table=table, name="A"))
    await service.join(hub, Join(table=table, name="B"))
    assert hub.seq == 2

    async def down(*args: object) -> list[object]:
        raise RedisConnectionError("the store restarts")

    store.batches = down  # type: ignore[assignment,method-assign]
    late = Socket()
    with pytest.raises(RedisConnectionError):
        await hub.attach(late, 0, 0, "r1", token_digest(token))  # it needs updates 1–2 from the log
    assert late not in hub.followers and late.got == []  # no live update can reach it past the hole


async def test_a_client_ahead_of_the_hub_gets_no_older_snapshot_and_nothing_twice(store: Store) -> None:
    service, table = await lobby(store)
    behind = Hub(table, await store.load(table), store)  # this process saw seq 0 and nothing since
    ahead = Hub(table, await store.load(table), store)  # the other process, which committed the joins
    _, token, _ = await service.join(ahead, Join(table=table, name="A"))
    await service.join(ahead, Join(table=table, name="B"))
    moved = Socket()
    await behind.attach(moved, 0, 2, "r1", token_digest(token))  # the client saw seq 2 through the other process
    assert [type(m) for m in moved.got] == [Snapshot] and moved.got[0].seq == 2  # type: ignore[attr-defined]
    await behind.advance(await store.load(table), None)
    assert not any(isinstance(m, Events) for m in moved.got)


async def test_a_refusal_by_a_hub_behind_the_store_is_judged_again_on_the_stored_record(store: Store) -> None:
    service, table = await lobby(store)
    behind = Hub(table, await store.load(table), store)
    ahead = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(behind, Join(table=table, name="A"))
    await service.join(ahead, Join(table=table, name="B"))
    assert None in behind.latest.meta.names  # this process still thinks a seat is free
    seq = await service.start(behind, token)  # was refused as `not_started`
    assert seq == 3 and (await store.load(table)).meta.status == "playing"
    with pytest.raises(ProtocolError) as refused:
        await service.start(behind, token)
    assert refused.value.code == "already_started"


def count_loads(store: Store) -> list[str]:
    """The tables ``store.load`` reads from now on."""
    loads: list[str] = []
    load = store.load

    async def counted(table: str) -> object:
        loads.append(table)
        return await load(table)

    store.load = counted  # type: ignore[assignment,method-assign]
    return loads


async def test_a_refusal_on_the_latest_record_costs_one_read_and_stands(store: Store) -> None:
    service, table = await lobby(store)
    hub = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(hub, Join(table=table, name="A"))
    loads = count_loads(store)
    with pytest.raises(ProtocolError) as refused:
        await service.start(hub, token)
    assert refused.value.code == "not_started" and len(loads) == 1


async def test_a_conflict_with_a_change_this_process_made_is_rebuilt_without_a_read(store: Store) -> None:
    service, table = await lobby(store, seats=3)
    hub = Hub(table, await store.load(table), store)
    other = Hub(table, await store.load(table), store)  # another process's, which sees none of the joins below
    loads = count_loads(store)
    seated = await asyncio.gather(*(service.join(hub, Join(table=table, name=n)) for n in "AB"))
    assert sorted(seat for seat, _, _ in seated) == [0, 1] and sorted(seq for _, _, seq in seated) == [1, 2]
    assert loads == []  # both built on seq 0; the loser rebuilt on the record its rival's commit left here
    seat, _, seq = await service.join(other, Join(table=table, name="C"))
    assert (seat, seq) == (2, 3) and loads == [table]  # a conflict with a change made elsewhere reads the store


async def test_a_seat_follower_is_checked_on_the_record_its_token_was_and_unseated_once_it_is_given_back(
    store: Store,
) -> None:
    service, table = await lobby(store)
    behind = Hub(table, await store.load(table), store)  # saw nothing of the join made through another process
    ahead = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(ahead, Join(table=table, name="A"))
    seated = Socket()
    await behind.attach(seated, 0, None, "r1", token_digest(token))  # catches up: the token holds seat 0 there
    assert behind.followers[seated] == 0 and seated.got[-1].seat == 0  # type: ignore[attr-defined]
    with pytest.raises(ProtocolError) as refused:
        await behind.attach(Socket(), 1, None, "r2", token_digest(token))
    assert refused.value.code == "auth"
    await service.leave(ahead, token)
    await behind.advance(await store.load(table), None)
    assert behind.followers[seated] is None and seated not in behind.holders


async def test_an_unheld_hub_is_dropped_after_staying_unheld_with_one_timer_however_often_released(
    store: Store, store_url: str
) -> None:
    """``Fanout.release``: a hub is dropped ``idle_seconds`` after its last release, not after its first, and a
    flood of commands about a table nobody follows keeps one timer for it, not one per command."""
    _, table = await lobby(store)
    client = aioredis.Redis.from_url(store_url)
    fanout = Fanout(store, client, idle_seconds=2.0, resync_seconds=3600)
    await fanout.start()
    loop = asyncio.get_running_loop()
    try:
        hub = await fanout.hub(table)
        fanout.release(hub)
        timers = len(loop._scheduled)  # type: ignore[attr-defined]
        for _ in range(300):
            fanout.release(await fanout.hub(table))
        assert len(loop._scheduled) <= timers  # type: ignore[attr-defined]
        await asyncio.sleep(1.0)
        fanout.release(await fanout.hub(table))  # released again 1 s in: kept until 3 s, not dropped at 2 s
        await asyncio.sleep(1.5)  # (0.5 s from either time: a loaded machine's loop runs late)
        assert fanout.hubs.get(table) is hub
        await asyncio.sleep(1.0)
        assert table not in fanout.hubs and hub.drop_timer is None
    finally:
        await fanout.close()
        await client.aclose()


class Paced(Socket):
    """A follower on a slow link: its ``drain`` waits until the test lets it go on."""

    def __init__(self) -> None:
        super().__init__()
        self.link = asyncio.Event()

    async def drain(self) -> bool:
        await self.link.wait()
        return True


def seqs(follower: Socket) -> list[tuple[str, int]]:
    return [(type(m).__name__, m.seq) for m in follower.got if isinstance(m, Events | Snapshot)]


async def test_a_replay_waits_for_its_follower_without_the_lock_and_takes_in_the_updates_made_meanwhile(
    store: Store,
) -> None:
    """The replay waits for a slow follower's socket outside the hub's lock: the table's other followers and
    commands go on meanwhile, and the slow one gets the updates made meanwhile once, in order, then live ones."""
    service, table = await lobby(store, seats=4)
    hub = Hub(table, await store.load(table), store)
    for name in "ABC":
        await service.join(hub, Join(table=table, name=name))
    slow, other = Paced(), Socket()
    replay = asyncio.create_task(hub.attach(slow, None, 0, "r"))
    await asyncio.sleep(0.05)
    assert slow.got == []  # waiting for its socket before the first update
    await hub.attach(other, None, None, "o")
    _, token, _ = await asyncio.wait_for(service.join(hub, Join(table=table, name="D")), 5)
    await service.leave(hub, token)
    assert seqs(other) == [("Snapshot", 3), ("Events", 4), ("Events", 5)]
    slow.link.set()
    await replay
    await service.join(hub, Join(table=table, name="E"))
    expected = [("Events", 1), ("Events", 2), ("Events", 3), ("Events", 4), ("Events", 5), ("Snapshot", 5)]
    assert seqs(slow) == [*expected, ("Events", 6)]


async def test_a_replay_to_a_seat_given_back_meanwhile_stops_and_is_refused(store: Store) -> None:
    service, table = await lobby(store)
    hub = Hub(table, await store.load(table), store)
    _, token, _ = await service.join(hub, Join(table=table, name="A"))
    await service.join(hub, Join(table=table, name="B"))
    slow = Paced()
    replay = asyncio.create_task(hub.attach(slow, 0, 0, "r", token_digest(token)))
    await asyncio.sleep(0.05)
    await service.leave(hub, token)
    slow.link.set()
    with pytest.raises(ProtocolError, match="holds no seat"):
        await replay
    assert slow.got == [] and slow not in hub.followers


async def test_a_seat_gets_its_view_with_every_update_while_a_follower_asks(store: Store) -> None:
    """``views`` (``hello``): the seat's view goes with every update that has prompts, decided by it or not, to
    that seat's frame alone; once nobody following the seat asks (``show_views``, ``detach``) it goes only with the
    seat's own decisions again, and a table whose followers ask nothing computes no view but the deciders'."""
    service, table = await lobby(store)
    hub = Hub(table, await store.load(table), store)
    tokens = [(await service.join(hub, Join(table=table, name=name)))[1] for name in "AB"]
    page, bot = Socket(), Socket()
    await hub.attach(page, 0, None, None, token_digest(tokens[0]), views=True)
    await hub.attach(bot, 1, None, None, token_digest(tokens[1]))
    await service.start(hub, tokens[0])
    views = {page: True, bot: False}
    for step in range(30):
        if step == 10:
            hub.show_views(page, False)
            views[page] = False
        elif step == 20:
            hub.show_views(page, True)
            views[page] = True
            hub.detach(page)
            assert not hub.viewers
        (seat,) = list(hub.game.prompts(hub.state))[:1]
        action = to_builtins(hub.game.legal_actions(hub.state, seat)[0])
        before = [len(page.got), len(bot.got)]
        await service.act(hub, seat, Act(table=table, token="-", cmd=f"c{step}", action=action))
        for follower, (mine, count) in zip([page, bot], enumerate(before), strict=True):
            if follower not in hub.followers:
                continue
            (update,) = follower.got[count:]
            assert isinstance(update, Events) and update.prompts
            decides = any(p.seat == mine for p in update.prompts)
            assert (update.view is not None) == (decides or views[follower]), (step, mine, update)
            if update.view is not None:
                assert update.view == to_builtins(hub.game.view(hub.state, mine))


async def test_a_spectator_gone_in_the_tick_the_game_ends_is_sent_nothing_more_nor_kept_after_it(
    store: Store,
) -> None:
    """Spectators get an update next time round the event loop (``catch_up_spectators``).  One whose connection
    closed in between (``detach``) was sent it all the same and, at the end, kept among those told of the rematch
    (``after``): a closed connection held for as long as the hub."""
    service, table = await lobby(store)
    hub = Hub(table, await store.load(table), store)
    tokens = [(await service.join(hub, Join(table=table, name=name)))[1] for name in "AB"]
    await service.start(hub, tokens[0])
    watcher = Socket()
    await hub.attach(watcher, None, None, "w")
    rng = random.Random(3)
    step = 0
    while hub.meta.status != "over":
        await asyncio.sleep(0)  # (the spectator takes in the last update)
        seat = min(hub.game.prompts(hub.state))
        action = to_builtins(rng.choice(hub.game.legal_actions(hub.state, seat)))
        step += 1
        await service.act(hub, seat, Act(table=table, token="-", cmd=f"c{step}", action=action))
    got = len(watcher.got)
    hub.detach(watcher)  # its connection closes before the end reaches it
    await asyncio.sleep(0.05)
    assert watcher.got[got:] == [] and watcher not in hub.after
