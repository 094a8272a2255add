"""Nothing is lost: a server killed mid-game, a dropped connection, a seat resumed from a new client."""

from __future__ import annotations

import asyncio
import signal

import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.sdk import Client
from protocol.messages import Accepted, Events, Snapshot
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.drive import next_move, stored_seq
from tests.server.players import assert_gapless, close, play, seat_players


async def test_kill_9_mid_game_then_restart(start_server: ServerFactory, sync_redis: redis.Redis) -> None:
    server = start_server()
    table, players = await seat_players([server.url], seed=4)
    try:
        await play(players, stop_at=40)
        server.kill()  # SIGKILL: no goodbye to anyone
        before = stored_seq(sync_redis, table)
        assert before >= 40
        server.start()  # same port: the clients reconnect by themselves
        await play(players)
    finally:
        await close(players)
    final = stored_seq(sync_redis, table)
    assert final > before
    assert all(p.result == players[0].result for p in players)
    for p in players:
        assert p.client.reconnects >= 1
        assert_gapless(p, final)


async def test_dropped_connection_resumes_by_itself(server: ServerProcess, sync_redis: redis.Redis) -> None:
    table, players = await seat_players([server.url], seed=5)
    try:
        await play(players, stop_at=20)
        ws = players[1].client._ws
        assert ws is not None
        ws.transport.abort()  # the network drops the connection
        await play(players)
    finally:
        await close(players)
    final = stored_seq(sync_redis, table)
    assert players[1].client.reconnects == 1
    for p in players:
        assert_gapless(p, final)


async def test_resume_from_a_new_client_gets_exactly_the_missed_updates(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    table, players = await seat_players([server.url], seed=6)
    try:
        await play(players, stop_at=15)
        gone = players[0]
        token, last = gone.client.seats[table].token, gone.client.last_seq[table]
        await gone.client.close()
        moved = 0
        while moved < 6:  # the others play on while seat 0 is away
            seat, action, seq = next_move(sync_redis, table)
            if seat == gone.seat:
                break
            assert isinstance(await players[seat].client.act(table, action, seq=seq), Accepted)
            moved += 1
        now = stored_seq(sync_redis, table)
        back = Client(server.url)
        await back.connect()
        back.last_seq[table] = last
        snapshot = await back.resume(table, token)
        got = []
        while True:
            msg = await back.recv(timeout=5)
            if isinstance(msg, Snapshot):
                break
            assert isinstance(msg, Events)
            got.append(msg.seq)
        assert got == list(range(last + 1, now + 1))
        assert snapshot.seq == now and snapshot.seat == gone.seat and snapshot.view is not None
        await back.close()
    finally:
        await close(players[1:])


async def test_a_hangup_stops_the_server_as_sigterm_does_unless_ignored_as_by_nohup(
    start_server: ServerFactory,
) -> None:
    """SIGHUP (the terminal it was started from closed) ended a server on the spot: exit status 129, no
    ``stopping`` line, its clients' connections cut instead of closed with 1001 ("going away")."""
    server = start_server()
    assert server.process is not None
    process = server.process
    async with connect(server.url) as ws:
        process.send_signal(signal.SIGHUP)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 15)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
    assert process.wait(15) == 0
    assert "stopping" in [line["event"] for line in server.log_lines()]
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited by the server, as ``nohup`` leaves it
    try:
        kept = start_server()
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert kept.process is not None
    kept.process.send_signal(signal.SIGHUP)
    await asyncio.sleep(0.5)
    assert kept.process.poll() is None
