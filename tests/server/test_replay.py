"""A long replay (``watch`` from seq 0) to a client on a slow link, over real sockets: it arrives whole and in
order at the client's pace, live updates follow it without a gap or a repeat, what is sent after it does not
wait behind all of it, and a client that stops reading during it is still cut off.

The reader is a raw TCP socket with a small receive buffer that takes in a little at a time.  It also sets the
segment size of a real path (``TCP_MAXSEG``): over loopback's 64 KiB segments the server's kernel grows the
socket's send buffer to megabytes and holds a whole replay, which on the internet it does not."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from clients.sdk import Client
from protocol.messages import Act, Create, Events, GameOver, Join, ServerMsg
from server.hub import Hub
from server.launch import ServerProcess
from server.metrics import Metrics
from server.service import TableService
from server.store import Store
from tests.server.conftest import ServerFactory

PASSIVE = {"pass", "decline", "stop_building"}  # Ghost at Home actions that make its games long


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(store_url)
    yield Store(client)
    await client.aclose()


class Table:
    """A Ghost at Home table played in this process on the servers' store: ~200 seat changes, then a game."""

    def __init__(self, service: TableService, hub: Hub, tokens: list[str]) -> None:
        self.service, self.hub, self.tokens = service, hub, tokens
        self.rng = random.Random(hub.table)
        self.cmds = 0

    @classmethod
    async def started(cls, store: Store) -> Table:
        service = TableService(store, Metrics())
        table = await service.create(Create(game="ghost-at-home", seats=4, options={"max_rounds": 1000}))
        hub = Hub(table, await store.load(table), store)
        for _ in range(98):  # 196 of the lobby's 200 seat changes
            _, token, _ = await service.join(hub, Join(table=table, name="passer-by"))
            await service.leave(hub, token)
        tokens = [(await service.join(hub, Join(table=table, name=f"P{i}")))[1] for i in range(4)]
        await service.start(hub, tokens[0])
        return cls(service, hub, tokens)

    @property
    def over(self) -> bool:
        return self.hub.meta.status == "over"

    async def step(self) -> None:
        game, state = self.hub.game, self.hub.state
        seat = min(game.prompts(state))
        legal = game.legal_actions(state, seat)
        action = next((a for a in legal if msgspec.to_builtins(a)["type"] in PASSIVE), self.rng.choice(legal))
        self.cmds += 1
        act = Act(
            table=self.hub.table, token=self.tokens[seat], cmd=f"c{self.cmds}", action=msgspec.to_builtins(action)
        )
        await self.service.act(self.hub, seat, act)

    async def play(self, pause: float = 0.0) -> int:
        """To the end of the game; returns its last seq."""
        while not self.over:
            await self.step()
            await asyncio.sleep(pause)
        return self.hub.seq


class SlowReader:
    """A WebSocket client on a raw socket that reads ``chunk`` bytes every ``pause`` seconds (blocking: run it in
    a thread), keeping every text message it receives, and how many bytes it had read when (``reads``)."""

    def __init__(self, url: str, chunk: int = 2048, pause: float = 0.002, mss: int = 1448) -> None:
        self.chunk, self.pause = chunk, pause
        self.protocol = ClientProtocol(parse_uri(url), max_size=None)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
        self.sock.connect(_address(url))
        self.sock.settimeout(30)
        self.protocol.send_request(self.protocol.connect())
        self._flush()
        while self.protocol.state is not State.OPEN:  # byte by byte: nothing past the handshake is read here
            self.protocol.receive_data(self.sock.recv(1))
            self.protocol.events_received()
        self.got: list[dict[str, Any]] = []
        self.arrived: list[int] = []  # bytes read when each message of ``got`` was in
        self.reads: list[tuple[float, int]] = []  # (wall-clock time, bytes read by then)
        self.closed = False

    def send(self, **msg: Any) -> None:
        self.protocol.send_text(json.dumps(msg).encode())
        self._flush()

    def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.sock.sendall(data)

    def read(self, *, messages: int = 10**9, over: int = 10**9, until: str = "") -> None:
        """Read slowly until that many ``messages`` are in, or games ``over``, or a message of type ``until``, or
        the server closes."""
        total = 0
        while len(self.got) < messages and [m["type"] for m in self.got[-1:]] != [until] and over > 0:
            try:
                data = self.sock.recv(self.chunk)
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed = True
                return
            total += len(data)
            self.reads.append((time.time(), total))
            self.protocol.receive_data(data)
            for event in self.protocol.events_received():
                if getattr(event, "opcode", None) is Opcode.TEXT:
                    self.got.append(json.loads(event.data))
                    self.arrived.append(total)
                    over -= self.got[-1]["type"] == "game_over"
            self._flush()  # (pongs)
            time.sleep(self.pause)

    def events(self, table: str) -> list[int]:
        return [m["seq"] for m in self.got if m["type"] == "events" and m["table"] == table]

    def close(self) -> None:
        self.sock.close()


def _address(url: str) -> tuple[str, int]:
    host, port = url.split("//")[1].split(":")
    return host, int(port.rstrip("/"))


def _when(line: dict[str, Any]) -> float:
    """A server log line's time, as ``time.time()`` counts."""
    return datetime.fromisoformat(str(line["timestamp"])).timestamp()


def dropped(server: ServerProcess) -> list[dict[str, Any]]:
    return [line for line in server.log_lines() if line.get("event") == "slow_consumer_dropped"]


async def test_a_slow_reader_gets_a_long_replay_whole_and_in_order(start_server: ServerFactory, store: Store) -> None:
    """Four finished tables, ~3,000 updates (~500 KB), watched from seq 0 on one connection by a reader that
    takes in about 1 MB/s: more than the socket buffers and the send queue hold.  The replay was written all at
    once, filled the queue and the client was cut off as a slow consumer after a few hundred updates."""
    server = start_server("--send-queue", "16", "--rate", "1000", "--burst", "1000")
    tables = [await Table.started(store) for _ in range(4)]
    finals = {t.hub.table: await t.play() for t in tables}
    reader = SlowReader(server.url)
    try:
        reader.send(type="hello", version=1)
        for table in finals:
            reader.send(type="watch", table=table, last_seq=0, ref=table)
        await asyncio.to_thread(reader.read, over=len(finals))
        assert not reader.closed and not dropped(server)
        for table, final in finals.items():
            assert reader.events(table) == list(range(1, final + 1))
            mine = [m["type"] for m in reader.got if m.get("table") == table]
            assert mine[-2:] == ["snapshot", "game_over"]
    finally:
        reader.close()


async def test_a_reader_that_stops_during_a_replay_is_cut_off(start_server: ServerFactory, store: Store) -> None:
    """The replay waits for the socket rather than filling the queue: a client that takes in nothing for
    ``--send-timeout`` seconds meanwhile is cut off all the same."""
    server = start_server("--send-timeout", "2")
    tables = [await Table.started(store) for _ in range(4)]
    for table in tables:
        await table.play()
    reader = SlowReader(server.url)
    try:
        reader.send(type="hello", version=1)
        for table in tables:
            reader.send(type="watch", table=table.hub.table, last_seq=0)
        await asyncio.to_thread(reader.read, messages=200)
        stopped = time.monotonic()
        while not dropped(server):
            assert time.monotonic() - stopped < 10, "the reader that stopped was never cut off"
            await asyncio.sleep(0.1)
        assert dropped(server)[0]["reason"] == "replay_stalled"
        await asyncio.to_thread(reader.read)  # what the socket holds, then the end
        assert reader.closed and [m["type"] for m in reader.got].count("game_over") < len(tables)
    finally:
        reader.close()


async def test_a_reader_taking_in_a_replay_longer_than_the_idle_timeout_is_not_idle(
    start_server: ServerFactory, store: Store
) -> None:
    """The connection's messages wait unread while its replay is sent (its commands keep their order), so a
    client reading a replay longer than ``--idle-timeout`` was closed as idle (4408) in the middle of it; and
    then still, under load, whenever the replay waited longer than that for it to take in one socket's worth
    (some 24 KiB): here it reads about 12 KB/s, far above what a replay demands, and each such wait is 2 s.  And
    the end of the replay, in the socket's buffers once its handling is over (some 50 KB), takes it seconds:
    it was closed as idle while taking that in (the close came after its game_over, or before, under load)."""
    server = start_server("--idle-timeout", "1")
    table = await Table.started(store)
    await table.play()
    reader = SlowReader(server.url, chunk=256, pause=0.02)  # (the replay, some 55 KB and more: 4 s and more)
    try:
        reader.send(type="hello", version=1)
        reader.send(type="watch", table=table.hub.table, last_seq=0)
        await asyncio.to_thread(reader.read, over=1)
        assert not reader.closed and reader.events(table.hub.table) == list(range(1, table.hub.seq + 1))
        # (what its kernel holds, acknowledged and not yet read, the server cannot tell from what was read)
        held = reader.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        acknowledged = next(at for at, total in reader.reads if total >= reader.reads[-1][1] - held)
        closed = [line for line in server.log_lines() if line["event"] == "idle_closed"]
        assert all(_when(line) > acknowledged for line in closed), "closed as idle while taking in its replay"
    finally:
        reader.close()


async def test_updates_made_during_slow_replays_follow_them_once_and_in_order(
    start_server: ServerFactory, store: Store
) -> None:
    """Two slow readers watch two finished tables, then from seq 0 a table whose game goes on meanwhile: each
    gets every update of it once, in order, its replay catching up with those made meanwhile, then the rest."""
    server = start_server()
    done = [await Table.started(store) for _ in range(2)]
    for table in done:
        await table.play()
    live = await Table.started(store)
    while live.hub.seq < 300:
        await live.step()
    readers = [SlowReader(server.url, chunk=512) for _ in range(2)]
    try:
        for reader in readers:
            reader.send(type="hello", version=1)
            for table in [*done, live]:
                reader.send(type="watch", table=table.hub.table, last_seq=0, ref=table.hub.table)
        watched = live.hub.seq
        reading = [asyncio.create_task(asyncio.to_thread(r.read, over=3)) for r in readers]
        final = await live.play(pause=0.005)
        await asyncio.gather(*reading)
        for reader in readers:
            assert not reader.closed
            assert reader.events(live.hub.table) == list(range(1, final + 1))
            snapshot = next(m for m in reader.got if m["type"] == "snapshot" and m["ref"] == live.hub.table)
            assert snapshot["seq"] > watched  # the replay went on with the updates made meanwhile
            assert reader.got[-1]["type"] == "game_over"
    finally:
        for reader in readers:
            reader.close()
    assert not dropped(server)


async def test_what_follows_a_replay_waits_behind_little_of_it(start_server: ServerFactory, store: Store) -> None:
    """The kernel is let hold little of a replay not yet sent (``TCP_NOTSENT_LOWAT``).  Over loopback it grew the
    socket's send buffer to megabytes and took in a whole replay at once, so what was sent after it (a reply, a
    keepalive ping) waited until the client had read all of it: a reader at 20 KB/s got all of a 1 MB replay and
    was then cut off for not answering the ping in 20 s (``keepalive ping timeout``).  Without the option the pong
    still comes 200 KB and more behind.  (The reader used loopback's own segment size, which the kernel bounds to
    half the reader's small window: the window then often fell just short of a segment and the server's kernel sent
    only on its persist timer, backing off, so the test took 30–40 s one run in two on a loaded machine.)"""
    server = start_server()
    tables = [await Table.started(store) for _ in range(3)]
    for table in tables:
        await table.play()
    reader = SlowReader(server.url, chunk=1024)
    try:
        reader.send(type="hello", version=1)
        for table in tables:
            reader.send(type="watch", table=table.hub.table, last_seq=0)
        reader.send(type="ping", ref="p")  # answered once the replays are sent: it goes out behind them
        await asyncio.to_thread(reader.read, until="pong")
        pong = reader.got[-1]
        assert pong["type"] == "pong" and [m["type"] for m in reader.got].count("game_over") == len(tables)
        read_then = max((total for at, total in reader.reads if at <= pong["time"]), default=0)
        assert reader.arrived[-1] - read_then < 128 * 1024  # (it was the whole replay, 300 KB and more)
    finally:
        reader.close()


async def test_the_sdk_waits_for_a_replay_as_long_as_it_comes(start_server: ServerFactory, store: Store) -> None:
    """A player resuming a long game on a new device (``Client.resume``, from seq 0), reading at its own pace:
    the SDK waits for the snapshot that ends the replay as long as the updates keep coming, not
    ``request_timeout`` in all (the resume failed with ``TimeoutError``, and a reconnect asked for it again)."""
    server = start_server()
    table = await Table.started(store)
    final = await table.play()
    client = Client(server.url, max_queue=(16, 4), request_timeout=1.0)
    await client.connect()
    try:
        resuming = asyncio.create_task(client.resume(table.hub.table, table.tokens[0]))
        got: list[ServerMsg] = []
        while not got or not isinstance(got[-1], GameOver):
            got.append(await client.recv(timeout=5))
            await asyncio.sleep(0.003)  # (a replay of 400 updates and more: over a second)
        snapshot = await resuming
        assert snapshot.seq == final and snapshot.seat == 0
        assert [m.seq for m in got if isinstance(m, Events)] == list(range(1, final + 1))
        assert client.repeats == 0 and client.gaps == 0
    finally:
        await client.close()
