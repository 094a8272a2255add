"""The SDK: text frames straight from websockets' parser (whatever way TCP cuts them up, every text frame arrives
whole and in order, and the frames it leaves to websockets, a ping here, are still answered); and under chaos:
several server URLs, actions refused for a passing reason, updates of a forgotten table."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode

from clients import sdk
from clients.sdk import Client, ConnectionLost, NotSeated, Seat, ServerError
from protocol import codec
from protocol.messages import (
    PROTOCOL_VERSION,
    Accepted,
    Act,
    ClientMessage,
    Error,
    Events,
    GameOver,
    Join,
    Limits,
    ListTables,
    Ping,
    Pong,
    Rejected,
    Rematch,
    Rematched,
    Resume,
    ServerMsg,
    Snapshot,
    Welcome,
)
from server.launch import ServerProcess

WELCOME = Welcome(
    version=PROTOCOL_VERSION,
    server="test",
    games=[],
    limits=Limits(max_frame_bytes=1, messages_per_second=1.0, burst=1, max_tables_per_connection=1),
    ref="hello",
)
SIZES = [0, 1, 60, 125, 126, 300, 65535, 70_000]


async def welcome_then_drop(ws: ServerConnection) -> None:
    """A server that welcomes the hello, then drops the connection."""
    await ws.recv()  # the hello
    await ws.send(codec.encode(WELCOME), text=True)
    ws.transport.abort()


def update(seq: int, size: int) -> bytes:
    """An ``events`` frame's JSON of about ``size`` bytes (a long table id pads it)."""
    return codec.encode(Events(table="t", seq=seq, seats=None, status="x" * size))


async def test_frames_cut_anywhere_arrive_whole_and_in_order() -> None:
    pong = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        await ws.recv()  # hello
        await ws.send(codec.encode(WELCOME), text=True)  # and at once, unasked, the updates:
        pieces = b""
        for seq, size in enumerate(SIZES, 1):
            frame = Frame(Opcode.TEXT, update(seq, size)).serialize(mask=False, extensions=[])
            for start in range(0, len(frame), max(1, len(frame) // 3)):  # each frame cut in about three
                ws.transport.write(pieces + frame[start : start + max(1, len(frame) // 3)])
                pieces = b""
                await asyncio.sleep(0.002)
            if seq == 3:  # a ping between two text frames: websockets parses and answers it
                (await ws.ping()).add_done_callback(lambda _: pong.set())
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        client = Client(f"ws://127.0.0.1:{port}", reconnect=False)
        client.last_seq["t"] = 0  # as after a join: updates are delivered for the tables the client follows
        async with client:
            received = [await client.recv(5) for _ in SIZES]
            await asyncio.wait_for(pong.wait(), 5)
    assert [m.seq for m in received] == list(range(1, len(SIZES) + 1))
    assert [len(m.status or "") for m in received] == SIZES


async def test_a_client_connects_to_the_first_url_that_answers(server: ServerProcess) -> None:
    client = Client(["ws://127.0.0.1:9", server.url])  # nothing listens on the discard port
    try:
        await client.connect()
        assert client.url == server.url and client.welcome is not None
    finally:
        await client.close()


async def test_an_action_refused_as_internal_is_sent_again_with_its_command_id() -> None:
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    sent: list[Act] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        assert isinstance(msg, Act)
        sent.append(msg)
        if len(sent) < 3:  # the store restarts: twice refused for a passing reason
            return Rejected(table="T", cmd=msg.cmd, code="internal", message="store down", ref=msg.ref)
        return Accepted(table="T", cmd=msg.cmd, seq=7, ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    outcome = await client.act("T", {"type": "end_turn"}, cmd="c1", seq=6)
    assert isinstance(outcome, Accepted) and outcome.seq == 7
    assert [m.cmd for m in sent] == ["c1"] * 3 and all(m.seq == 6 for m in sent)


async def test_a_resume_refused_for_a_passing_reason_is_asked_again() -> None:
    """After a reconnect, a resume over the address's replay budget (``rate_limited``) or met by a store
    restarting (``internal``) is asked again; it was given up, and the seat no longer followed."""
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    client.last_seq["T"] = 5
    sent: list[ClientMessage] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        assert isinstance(msg, Resume) and msg.last_seq == 5
        sent.append(msg)
        if len(sent) < 3:
            return Error(code=["rate_limited", "internal"][len(sent) - 1], message="not now", ref=msg.ref)
        return Snapshot(table="T", game="spook", seq=5, status="playing", seats=[], ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    await client._follow_again("T")
    assert len(sent) == 3 and client.seats["T"].token == "tok"


async def test_a_seat_resumed_past_where_its_store_set_the_table_back_goes_on_from_there() -> None:
    """Away while the store was set back, the client asks from an update the table no longer has: refused
    ``bad_field`` with the table's ``seq``, it tells the application (the updates after it are void) and resumes
    from there (it gave up, the seat held and never followed again, on every reconnect)."""
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    client.last_seq["T"] = 20
    asked: list[int | None] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        assert isinstance(msg, Resume)
        asked.append(msg.last_seq)
        if len(asked) == 1:
            return Error(code="bad_field", message="last_seq 20 is past the table's last update, 12", seq=12)
        return Snapshot(table="T", game="spook", seq=12, status="playing", seats=[], seat=0, ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    await client._follow_again("T")
    told = await client.recv(1)
    assert isinstance(told, Error) and (told.table, told.seq) == ("T", 12)
    assert asked == [20, 12] and client.last_seq["T"] == 12 and client.seats["T"].token == "tok"


async def test_a_refusal_for_good_is_not_sent_again() -> None:
    client = Client("ws://unused", backoff=(0.001, 0.01))
    client.seats["T"] = Seat("T", 0, "tok")
    sent: list[ClientMessage] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        sent.append(msg)
        return Rejected(table="T", cmd="c1", code="stale", message="moved on", ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    outcome = await client.act("T", {"type": "end_turn"}, cmd="c1", seq=6)
    assert isinstance(outcome, Rejected) and outcome.code == "stale" and len(sent) == 1


async def test_a_command_for_a_seat_not_held_says_so() -> None:
    """``act``, ``start``, ``leave`` and ``rematch`` at a table only watched (or never joined) raised a bare
    ``KeyError('T')``."""
    client = Client("ws://unused")
    client.watching.add("T")
    for command in (client.act("T", {"type": "end_turn"}), client.start("T"), client.leave("U"), client.rematch("T")):
        with pytest.raises(
            NotSeated, match=r"^this client holds no seat at table [TU]\b.*join it, or resume it, first"
        ):
            await command


async def test_a_rematch_told_unasked_is_delivered_and_the_answer_to_ones_own_only_answers() -> None:
    client = Client("ws://unused")
    asked: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    client._pending["r1"] = (asked, Rematch(table="T", token="t", ref="r1"), math.inf)
    client._dispatch(Rematched(table="T", rematch="U", seat=1, ref="r1"))
    client._dispatch(Rematched(table="T", rematch="U", seat=1))  # (another seat asked: told, unasked)
    assert asked.result() == Rematched(table="T", rematch="U", seat=1, ref="r1")
    assert list(client._inbox.items) == [Rematched(table="T", rematch="U", seat=1)]


def test_updates_of_a_forgotten_table_are_neither_delivered_nor_taken_for_a_gap() -> None:
    client = Client("ws://unused")
    client.last_seq["T"] = 4
    client._dispatch(Events(table="T", seq=5))
    client.forget("T")
    client._dispatch(Events(table="T", seq=7))  # the server still sends: the connection follows it until closed
    assert len(client._inbox) == 1 and client.gaps == 0 and client.repeats == 0 and "T" not in client.watching


async def test_a_server_gone_before_its_welcome_is_left_at_once_for_the_next(server: ServerProcess) -> None:
    """Found by hauntd chaos: a client reconnecting to a server killed right after the handshake waited for a
    welcome that could never come until its request timeout (60 s for the load test's bots)."""

    async def dies(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        ws.transport.abort()  # as a SIGKILL would

    async with serve(dies, "127.0.0.1", 0, compression=None) as doomed:
        port = doomed.sockets[0].getsockname()[1]
        client = Client([f"ws://127.0.0.1:{port}", server.url], request_timeout=30)
        try:
            async with asyncio.timeout(5):
                await client.connect()
            assert client.url == server.url
        finally:
            await client.close()


async def test_lobby_commands_cut_off_by_a_dropped_connection_take_effect_once(server: ServerProcess) -> None:
    """A create, join or start whose connection drops before (or after) the server handled it is sent again
    after the reconnect with its id: one table, one seat for the client, one start."""
    host = Client(server.url, backoff=(0.01, 0.05))
    other = Client(server.url)
    await host.connect()
    await other.connect()
    try:
        for delay in (0.0, 0.001, 0.003, 0.01):
            before = {t.table for t in await other.list_tables("spook")}
            create = asyncio.create_task(host.create("spook", 2))
            await asyncio.sleep(delay)
            host.drop()
            table = await create
            made = {t.table for t in await other.list_tables("spook")} - before
            assert made == {table}, delay  # not a second table

            join = asyncio.create_task(host.join(table, "Host"))
            await asyncio.sleep(delay)
            host.drop()
            seat = await join
            (info,) = [t for t in await other.list_tables("spook") if t.table == table]
            assert info.taken == 1 and seat.seat == 0, delay  # not a second seat
            await other.join(table, "Other")

            start = asyncio.create_task(host.start(table))
            await asyncio.sleep(delay)
            host.drop()
            assert await start == 3, delay  # not already_started: two joins, then the start
            host.forget(table)
            other.forget(table)
    finally:
        await host.close()
        await other.close()


async def test_each_request_times_out_at_its_own_deadline_and_an_answered_one_does_not() -> None:
    """One timer serves every pending request: it fails each at its deadline, whatever order they were sent in."""

    async def answers_pings_only(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        await ws.send(codec.encode(WELCOME), text=True)
        async for frame in ws:
            msg = codec.decode_client(frame)
            if isinstance(msg, Ping):
                await ws.send(codec.encode(Pong(time=0.0, ref=msg.ref)), text=True)

    async with serve(answers_pings_only, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", reconnect=False)
        async with client:
            loop = asyncio.get_running_loop()
            started = loop.time()
            timed_out: dict[str, float] = {}

            async def unanswered(name: str, timeout: float) -> None:
                try:
                    await client._request(ListTables(), timeout=timeout)
                except TimeoutError:
                    timed_out[name] = loop.time() - started

            late, early = asyncio.create_task(unanswered("late", 0.3)), asyncio.create_task(unanswered("early", 0.1))
            assert await client.ping() >= 0  # answered: no timeout
            await asyncio.gather(late, early)
            assert await client.ping() >= 0 and not client._pending  # the client still works; nothing left
    assert list(timed_out) == ["early", "late"]
    assert 0.1 <= timed_out["early"] < 0.2 and 0.3 <= timed_out["late"] < 0.4


async def test_several_readers_get_each_update_once_and_a_cancelled_reader_loses_none() -> None:
    client = Client("ws://unused")
    client.last_seq["T"] = 0
    readers = [asyncio.create_task(client.recv()) for _ in range(3)]
    await asyncio.sleep(0)
    client._dispatch(Events(table="T", seq=1))
    readers[0].cancel()  # woken for seq 1 but cancelled before it ran: the next reader takes it
    client._dispatch(Events(table="T", seq=2))
    async with asyncio.timeout(1):
        done = await asyncio.gather(*readers, return_exceptions=True)
    assert isinstance(done[0], asyncio.CancelledError)
    assert sorted(m.seq for m in done[1:] if isinstance(m, Events)) == [1, 2] and len(client._inbox) == 0


async def test_an_intercepting_handler_takes_every_update_in_order_and_passes_on_only_what_it_keeps() -> None:
    client = Client("ws://unused")
    client.last_seq["T"] = 0
    client._dispatch(Events(table="T", seq=1))
    client._dispatch(Events(table="T", seq=2))
    seen: list[int] = []

    def odd(msg: ServerMsg) -> bool:
        assert isinstance(msg, Events)
        seen.append(msg.seq)
        return msg.seq % 2 == 1

    client.intercept(odd)  # the two already waiting are taken in at once
    for seq in range(3, 7):
        client._dispatch(Events(table="T", seq=seq))
    client._dispatch(Events(table="T", seq=5))  # a repeat: taken in by nobody
    client.intercept(None)
    client._dispatch(Events(table="T", seq=7))
    assert seen == [1, 2, 3, 4, 5, 6]
    kept = [await client.recv(1) for _ in range(4)]
    assert [m.seq for m in kept if isinstance(m, Events)] == [1, 3, 5, 7]
    assert len(client._inbox) == 0 and client.repeats == 1


async def test_a_request_made_while_the_server_is_gone_times_out_and_close_ends_it_and_the_reader() -> None:
    """With the server gone for good the client keeps reconnecting; a request made meanwhile still fails at its
    ``request_timeout``, and ``close()`` ends both the requests still waiting and a reader of the updates (they
    used to wait for a connection that could never come, past their timeout and past the close)."""
    accepted: list[ServerConnection] = []

    async def welcomes(ws: ServerConnection) -> None:
        accepted.append(ws)
        await ws.recv()  # the hello
        await ws.send(codec.encode(WELCOME), text=True)
        await ws.wait_closed()

    server = await serve(welcomes, "127.0.0.1", 0, compression=None)
    client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", request_timeout=0.3, backoff=(0.01, 0.05))
    await client.connect()
    client.seats["T"] = Seat("T", 0, "tok")
    server.close()  # gone for good: nothing listens on its port any more
    for ws in accepted:
        ws.transport.abort()
    await server.wait_closed()
    async with asyncio.timeout(5):
        while client.connected:
            await asyncio.sleep(0.01)
    try:
        async with asyncio.timeout(3):
            with pytest.raises(TimeoutError):
                await client.act("T", {"type": "end_turn"})
        waiting = asyncio.create_task(client.act("T", {"type": "end_turn"}))
        reader = asyncio.create_task(client.recv())
        await asyncio.sleep(0.05)
    finally:
        await client.close()
    async with asyncio.timeout(3):
        with pytest.raises(ConnectionLost):
            await waiting
        with pytest.raises(ConnectionLost):
            await reader
        with pytest.raises(ConnectionLost):  # and so does any request after the close, at once
            await client.ping()


async def test_a_game_over_is_delivered_once_even_when_a_reconnect_resumes_the_finished_table(
    start_server: Callable[..., ServerProcess],
) -> None:
    """A seat still held once its game is over is resumed after a reconnect like any other, and the server
    answers a resume of a finished table with its snapshot and its ``game_over`` again: the iterator must not
    hand the application that ``game_over`` a second time (a bot counting its games would count this one twice)."""
    server = start_server("--rate", "1e6", "--burst", "1000000")
    rng = random.Random(5)
    async with Client(server.url, backoff=(0.01, 0.05)) as client:
        table = await client.create("mansion", 2, bots=1, bot_strategy="random")
        await client.join(table, "Ada")
        await client.start(table)
        async with asyncio.timeout(60):
            while not isinstance(msg := await client.recv(), GameOver):
                if isinstance(msg, Events | Snapshot) and msg.legal and msg.seq == client.last_seq[table]:
                    await client.act(table, rng.choice(msg.legal), seq=msg.seq)
        assert client.drop()
        async with asyncio.timeout(10):
            while not client.connected or client.reconnects == 0:
                await asyncio.sleep(0.01)
        after: list[ServerMsg] = []
        with contextlib.suppress(TimeoutError):
            while True:
                after.append(await client.recv(1))
    assert [type(m) for m in after] == [Snapshot]  # the resume's snapshot, and no second game_over


async def test_the_keepalive_sleeps_while_there_is_no_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client pings after a third of the server's idle limit without sending; with no connection to ping on
    (dropped, and not to be reopened here) its loop used to wake every 10 ms for as long as the client lived."""
    quick = msgspec.structs.replace(WELCOME, limits=msgspec.structs.replace(WELCOME.limits, idle_seconds=0.06))

    async def welcomes_then_drops(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        await ws.send(codec.encode(quick), text=True)
        await asyncio.sleep(0.05)
        ws.transport.abort()

    async with serve(welcomes_then_drops, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", reconnect=False)
        await client.connect()
        with pytest.raises(ConnectionLost):
            await client.recv(2)
        wakes = 0

        class Clock:  # the SDK's clock, counting the keepalive's looks at it
            perf_counter = staticmethod(time.perf_counter)

            @staticmethod
            def monotonic() -> float:
                nonlocal wakes
                wakes += 1
                return time.monotonic()

        monkeypatch.setattr(sdk, "time", Clock)
        await asyncio.sleep(0.5)
        await client.close()
    assert wakes < 5, wakes


async def test_reconnects_to_a_server_that_drops_every_connection_back_off() -> None:
    """A server that welcomes, then drops the connection at once: the wait before each reconnect grows as it
    does after failed attempts (it used to start again from the shortest after every welcome: ~20 a second)."""
    opened = 0

    async def counted(ws: ServerConnection) -> None:
        nonlocal opened
        opened += 1
        await welcome_then_drop(ws)

    async with serve(counted, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", backoff=(0.05, 5.0))
        await client.connect()
        await asyncio.sleep(1.5)
        await client.close()
    # waits of 0.05, 0.1, 0.2, 0.4, 0.8 s (each ×0.5–1.5) fit at most 6 reconnects in 1.5 s
    assert 2 <= opened <= 7, opened


async def test_every_join_of_a_table_sends_the_same_nonce(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A join refused and tried again brought a fresh nonce: a server refusing the joins whose nonce gave a seed it
    disliked could pick among them (M30).  Every join of one table now sends the nonce drawn at the first."""
    async with Client(server.url) as host, Client(server.url) as client:
        table = await host.create("mansion", 2)
        other = await host.create("mansion", 2)
        await host.join(table, "Host", 0)
        sent: list[Join] = []
        expect = client._expect

        async def recording(msg: Any, kind: type[Any]) -> Any:
            if isinstance(msg, Join):
                sent.append(msg)
            return await expect(msg, kind)

        monkeypatch.setattr(client, "_expect", recording)
        with pytest.raises(ServerError, match="table_full"):
            await client.join(table, "Bo", 0)
        held = await client.join(table, "Bo")
        await client.leave(table)
        again = await client.join(table, "Bo")
        elsewhere = await client.join(other, "Bo")
    assert [m.nonce for m in sent[:3]] == [held.nonce, held.nonce, again.nonce] and len(held.nonce) == 32
    assert elsewhere.nonce != held.nonce


async def test_a_connect_cancelled_before_the_welcome_lets_go_at_once() -> None:
    """A server stopped after the handshake answers no close either: a connect cancelled while it waited for the
    welcome (the load test's ``--connect-timeout`` passed) closed politely, waiting 10 s for a reply."""

    async def deaf(ws: ServerConnection) -> None:
        ws.transport.pause_reading()  # the hello, and then the close, never read
        await ws.wait_closed()

    async with serve(deaf, "127.0.0.1", 0, close_timeout=0.1) as mute:
        client = Client(f"ws://127.0.0.1:{mute.sockets[0].getsockname()[1]}")
        connecting = asyncio.create_task(client.connect())
        await asyncio.sleep(0.3)  # (the handshake done, the hello sent)
        started = time.monotonic()
        connecting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await connecting
        assert time.monotonic() - started < 1


async def test_a_server_upgraded_past_the_clients_protocol_ends_the_client_instead_of_a_reconnect_loop() -> None:
    """The server welcomed this client, then restarted speaking another protocol version: every hello gets
    ``error`` ``version`` and a close.  The client kept reconnecting for ever, its application told nothing."""
    hellos = 0

    async def upgraded(ws: ServerConnection) -> None:
        nonlocal hellos
        hellos += 1
        await ws.recv()  # the hello
        if hellos == 1:
            await ws.send(codec.encode(WELCOME), text=True)
            ws.transport.abort()  # the restart
            return
        refusal = Error(code="version", message="this server speaks protocol version 2", ref="hello")
        await ws.send(codec.encode(refusal), text=True)
        await ws.close(1002, "version")

    async with serve(upgraded, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", backoff=(0.01, 0.05))
        await client.connect()
        try:
            async with asyncio.timeout(5):
                with pytest.raises(ServerError) as ended:
                    await client.recv()
        finally:
            await client.close()
    assert ended.value.code == "version" and hellos == 2


async def test_what_a_newer_server_adds_within_the_version_is_ignored_skipped_or_passed_on() -> None:
    """PROTOCOL.md, "Compatibility within a version": a field the client does not know is ignored (in the welcome
    too); a message type it does not know is skipped and counted (it ended the client); an event type and an error
    code it does not know reach ``recv`` unchanged, and so does a refusal's (as ``ServerError.code``)."""
    new_event = {"type": "eclipse", "darkness": 3}
    frames = [
        {"type": "events", "table": "t", "seq": 1, "events": [new_event], "aura": "new field"},
        {"type": "aurora", "table": "t", "seq": 2},  # a message type of a newer server
        {"type": "error", "code": "haunted", "message": "new code", "table": "t"},
        {"type": "events", "table": "t", "seq": 2},
    ]

    async def handler(ws: ServerConnection) -> None:
        await ws.recv()  # hello
        welcome = msgspec.to_builtins(WELCOME) | {"motd": "a field of a newer server"}
        await ws.send(msgspec.json.encode(welcome), text=True)
        for frame in frames:
            await ws.send(msgspec.json.encode(frame), text=True)
        ping = msgspec.json.decode(await ws.recv())
        await ws.send(msgspec.json.encode({"type": "pong", "time": 1.0, "ref": ping["ref"], "load": 0.5}), text=True)
        listing = msgspec.json.decode(await ws.recv())
        await ws.send(
            msgspec.json.encode({"type": "error", "code": "haunted", "message": "m", "ref": listing["ref"]}), text=True
        )
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", reconnect=False)
        client.last_seq["t"] = 0
        async with client:
            first, error, second = [await client.recv(5) for _ in range(3)]
            assert await client.ping() >= 0  # a reply with a field the client does not know
            with pytest.raises(ServerError) as refused:
                await client.list_tables()
            assert client.connected and client.skipped == 1
    assert isinstance(first, Events) and first.seq == 1 and first.events == [new_event]
    assert isinstance(error, Error) and error.code == "haunted" and error.table == "t"
    assert isinstance(second, Events) and second.seq == 2
    assert refused.value.code == "haunted"


def test_a_join_before_connect_raises_instead_of_spinning() -> None:
    """``join`` watches the table first, and took the ``ConnectionLost`` of a client not connected for a drop to
    wait out: it asked again, at once, for ever, never yielding to the event loop (run in a thread here, so that
    the old behaviour fails the test instead of hanging it)."""
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(Client("ws://127.0.0.1:9").join("T", "Ada"))
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), "join spun"
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionLost), outcome


async def test_a_close_while_connecting_leaves_no_connection_open() -> None:
    """``close`` from another task while ``connect`` waited for the welcome found nothing to close; the connection
    then opened, its reader waiting and its keepalive pinging for ever."""
    welcome_now, closed = asyncio.Event(), asyncio.Event()

    async def slow_welcome(ws: ServerConnection) -> None:
        await ws.recv()  # the hello
        await welcome_now.wait()
        await ws.send(codec.encode(WELCOME), text=True)
        await ws.wait_closed()
        closed.set()

    async with serve(slow_welcome, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        connecting = asyncio.ensure_future(client.connect())
        await asyncio.sleep(0.2)
        await client.close()
        welcome_now.set()
        with pytest.raises(ConnectionLost, match="client closed"):
            await connecting
        async with asyncio.timeout(5):
            await closed.wait()
    assert not client.connected and client._reader is None and client._keeper is None


async def test_a_close_while_reconnecting_ends_the_reader_with_connection_lost() -> None:
    """A reconnect that failed once ``close`` had begun left its loop with no socket, and the reader then failed
    an ``assert``: ``recv`` and every waiting request raised ``AssertionError``."""
    async with serve(welcome_then_drop, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", backoff=(0.01, 0.02))
        await client.connect()

        async def refused() -> None:
            client._closing = True  # (as ``close`` does, while this attempt is under way)
            raise OSError("refused")

        client._open = refused  # type: ignore[method-assign]
        with pytest.raises(ConnectionLost, match="client closed"):
            await client.recv(5)
        await client.close()


async def test_a_server_with_an_idle_limit_after_one_without_gets_pings() -> None:
    """The keepalive looked at the first server's welcome only: with no idle limit there it stopped for good, and
    a server reconnected to that closes idle connections closed this one at each limit."""
    idle = msgspec.structs.replace(WELCOME, limits=msgspec.structs.replace(WELCOME.limits, idle_seconds=0.3))
    pinged = asyncio.Event()
    opened = 0

    async def first_without(ws: ServerConnection) -> None:
        nonlocal opened
        opened += 1
        await ws.recv()  # the hello
        await ws.send(codec.encode(WELCOME if opened == 1 else idle), text=True)
        if opened == 1:
            ws.transport.abort()
            return
        async for frame in ws:
            if isinstance(codec.decode_client(frame), Ping):
                pinged.set()

    async with serve(first_without, "127.0.0.1", 0, compression=None) as server:
        client = Client(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", backoff=(0.01, 0.02))
        await client.connect()
        try:
            async with asyncio.timeout(5):
                await pinged.wait()
        finally:
            await client.close()
    assert opened == 2


async def test_a_resume_cut_off_mid_replay_goes_on_from_where_it_got_to() -> None:
    """A resume from the start whose connection dropped (or which timed out) after some of the replay was
    delivered forgot how far it got: asked again, it replayed the table from the start, every update twice."""
    client = Client("ws://unused")
    asked: list[int | None] = []

    async def request(msg: ClientMessage, *, timeout: float | None = None) -> Any:
        assert isinstance(msg, Resume)
        asked.append(msg.last_seq)
        if len(asked) == 1:
            client.last_seq["T"] = 4  # updates 1–4 delivered, then the drop
            raise ConnectionLost("connection dropped")
        return Snapshot(table="T", game="spook", seq=9, status="playing", seats=[], seat=0, ref=msg.ref)

    client._request = request  # type: ignore[method-assign]
    with pytest.raises(ConnectionLost):
        await client.resume("T", "tok")
    await client.resume("T", "tok")
    assert asked == [0, 4]
