"""Every bad input in the error catalogue gets its code, and leaves the table byte-for-byte as it was."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import secrets
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.sdk import Client, ServerError
from engine.mansion.actions import Action
from protocol.errors import Code
from server.embedded import EmbeddedValkey
from server.store import NO_PREFIX, QUIET
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.drive import GAME, next_move, stored_state
from tests.server.players import Player, close, play, seat_players
from tests.server.test_http import get

# Codes no client input can provoke: a table that keeps changing faster than a commit, and a server fault.
UNPROVOKABLE = {Code.BUSY, Code.INTERNAL}


async def raw(url: str, hello: bool = True) -> ClientConnection:
    ws = await connect(url)
    if hello:
        await ws.send(json.dumps({"type": "hello", "version": 1}))
        assert json.loads(await ws.recv())["type"] == "welcome"
    return ws


async def ask(ws: ClientConnection, frame: str | bytes | dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(frame) if isinstance(frame, dict) else frame)
    reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


def table_bytes(sync_redis: redis.Redis, table: str) -> tuple[Any, ...]:
    """Everything stored about the table: record, state, seq."""
    return tuple(sync_redis.hmget(NO_PREFIX.record(table), "seq", "meta", "state"))


@pytest.fixture
async def started(server: ServerProcess) -> AsyncIterator[tuple[str, list[Player]]]:
    table, players = await seat_players([server.url], seed=7)
    yield table, players
    await close(players)


def illegal_for(state_bytes: bytes, seat: int) -> Action:
    """A well-formed action the rules forbid ``seat`` now."""
    legal = GAME.legal_actions(GAME.decode_state(state_bytes), seat)
    candidates: list[Any] = [{"type": "move", "to": t} for t in range(-1, 6)]
    candidates += [{"type": "rotate", "r": r} for r in range(7)] + [{"type": "end_turn"}, {"type": "dial", "bid": 0}]
    for raw_action in candidates:
        action = msgspec.convert(raw_action, Action)
        if action not in legal:
            return action
    raise AssertionError("no illegal action found")


async def test_frame_errors(server: ServerProcess) -> None:
    ws = await raw(server.url)
    assert (await ask(ws, "{not json"))["code"] == Code.MALFORMED
    assert (await ask(ws, "[1, 2]"))["code"] == Code.MALFORMED
    assert (await ask(ws, b'{"type": "ping"}'))["code"] == Code.MALFORMED  # binary frame
    assert (await ask(ws, {"type": "teleport"}))["code"] == Code.UNKNOWN_TYPE
    assert (await ask(ws, {"ref": "x"}))["code"] == Code.UNKNOWN_TYPE
    assert (await ask(ws, {"type": "ping", "extra": 1}))["code"] == Code.BAD_FIELD
    assert (await ask(ws, {"type": "join", "table": "a b", "name": "x"}))["code"] == Code.BAD_FIELD
    assert (await ask(ws, {"type": "join", "table": "t", "name": "", "ref": "r1"}))["code"] == Code.BAD_FIELD
    reply = await ask(ws, {"type": "ping", "ref": "still-here"})
    assert reply["type"] == "pong" and reply["ref"] == "still-here"
    await ws.close()


async def test_version_and_hello_first(server: ServerProcess) -> None:
    ws = await raw(server.url, hello=False)
    reply = await ask(ws, {"type": "ping", "ref": "early"})
    assert reply["code"] == Code.VERSION and reply["ref"] == "early"  # hello comes first
    reply = await ask(ws, {"type": "hello", "version": 2, "newer_field": True})
    assert reply["code"] == Code.VERSION and "version 1" in reply["message"]
    with pytest.raises(ConnectionClosed) as closed:
        await ws.recv()
    assert closed.value.rcvd is not None and (closed.value.rcvd.code, closed.value.rcvd.reason) == (1002, "version")


async def test_lobby_errors(server: ServerProcess, sync_redis: redis.Redis) -> None:
    client = Client(server.url)
    await client.connect()
    try:
        for bad in [
            {"game": "chess", "seats": 2},
            {"game": "mansion", "seats": 9},
            {"game": "mansion", "seats": 4, "options": {"no_such_option": 1}},
            {"game": "mansion", "seats": 4, "bots": 4, "bot_strategy": "random"},  # nobody left to start it
            {"game": "mansion", "seats": 4, "bots": 1, "bot_strategy": "clairvoyant"},
        ]:
            with pytest.raises(ServerError) as caught:
                await client.create(**bad)
            assert caught.value.code == Code.BAD_OPTION, bad
        with pytest.raises(ServerError) as caught:
            await client.join("nosuchtable", "Ada")
        assert caught.value.code == Code.NOT_FOUND
        table = await client.create("mansion", 2)
        held = await client.join(table, "Ada", seat=1)
        before = table_bytes(sync_redis, table)
        other = Client(server.url)
        await other.connect()
        for call, code in [
            (other.join(table, "Bob", seat=1), Code.TABLE_FULL),
            (other.join(table, "Bob", seat=5), Code.BAD_FIELD),
            (client.start(table), Code.NOT_STARTED),  # a seat is still free
            (client.rematch(table), Code.NOT_OVER),
        ]:
            with pytest.raises(ServerError) as caught:
                await call
            assert caught.value.code == code
            assert table_bytes(sync_redis, table) == before
        other.seats[table] = dataclasses.replace(held, token="forged-token")
        with pytest.raises(ServerError) as caught:
            await other.leave(table)
        assert caught.value.code == Code.AUTH
        outcome = await client.act(table, {"type": "end_turn"})
        assert outcome.code == Code.NOT_STARTED  # type: ignore[union-attr]
        assert table_bytes(sync_redis, table) == before
        await other.join(table, "Bob")
        with pytest.raises(ServerError) as caught:
            await other.join(table, "Cy")
        assert caught.value.code == Code.TABLE_FULL
        await client.start(table)
        started = table_bytes(sync_redis, table)
        for call in [other.join(table, "Dee"), client.leave(table), client.start(table)]:
            with pytest.raises(ServerError) as caught:
                await call
            assert caught.value.code == Code.ALREADY_STARTED
        with pytest.raises(ServerError) as caught:
            await client.rematch(table)
        assert caught.value.code == Code.NOT_OVER
        assert table_bytes(sync_redis, table) == started
        await other.close()
    finally:
        await client.close()


def actions_total(metrics: str) -> float:
    """``hauntd_actions_total`` in a ``/metrics`` text."""
    found = re.search(r"^hauntd_actions_total (\S+)$", metrics, re.M)
    assert found is not None, metrics
    return float(found.group(1))


def counted_actions(server: ServerProcess) -> float:
    """``hauntd_actions_total`` on the server's ``/metrics``."""
    return actions_total(urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode())


async def test_action_errors_leave_the_state_unchanged(
    started: tuple[str, list[Player]], sync_redis: redis.Redis, server: ServerProcess
) -> None:
    table, players = started
    seat, action, seq = next_move(sync_redis, table)
    waiting = next(p for p in players if p.seat != seat)
    me = players[seat].client
    before = table_bytes(sync_redis, table)
    state = stored_state(sync_redis, table)
    cases: list[tuple[Client, Any, dict[str, Any], Code]] = [
        (waiting.client, action, {}, Code.NOT_YOUR_TURN),
        (me, illegal_for(state, seat), {}, Code.ILLEGAL_MOVE),
        (me, {"type": "fly", "to": 3}, {}, Code.BAD_FIELD),
        (me, {"type": "move", "to": "north"}, {}, Code.BAD_FIELD),
        (me, action, {"seq": seq - 1}, Code.STALE),
    ]
    for client, act, extra, code in cases:
        outcome = await client.act(table, act, **extra)
        assert outcome.code == code, (act, outcome)  # type: ignore[union-attr]
        assert table_bytes(sync_redis, table) == before
    with pytest.raises(ServerError) as early:  # a nudge of the seat just prompted (the server's nudge_after: 120 s)
        await waiting.client.nudge(table, seat)
    assert early.value.code == Code.TOO_EARLY
    assert table_bytes(sync_redis, table) == before
    forged = Client(players[0].client.url)
    await forged.connect()
    forged.seats[table] = dataclasses.replace(players[seat].client.seats[table], token="x" * 22)
    outcome = await forged.act(table, action)
    assert outcome.code == Code.AUTH  # type: ignore[union-attr]
    await forged.close()
    assert table_bytes(sync_redis, table) == before
    # and the same command, sent right, is then accepted once, and counted once
    counted = counted_actions(server)
    assert (await me.act(table, action, cmd="good", seq=seq)).seq == seq + 1  # type: ignore[union-attr]
    assert (await me.act(table, action, cmd="good", seq=seq)).seq == seq + 1  # type: ignore[union-attr]
    assert counted_actions(server) == counted + 1


async def test_acting_after_the_game_is_over(started: tuple[str, list[Player]], sync_redis: redis.Redis) -> None:
    table, players = started
    await play(players)
    over = table_bytes(sync_redis, table)
    outcome = await players[0].client.act(table, {"type": "end_turn"})
    assert outcome.code == Code.GAME_OVER  # type: ignore[union-attr]
    assert table_bytes(sync_redis, table) == over


async def test_limits(start_server: ServerFactory) -> None:
    server = start_server("--rate", "5", "--burst", "5", "--max-tables", "2", "--max-frame-bytes", "4096")
    ws = await raw(server.url)
    for _ in range(10):
        await ws.send(json.dumps({"type": "ping"}))
    codes = [json.loads(await ws.recv()).get("code") for _ in range(10)]
    assert codes.count(Code.RATE_LIMITED) >= 4 and codes.count(None) >= 4
    await ws.close()
    ws = await raw(server.url)  # binary frames spend the allowance as well: a flood of them is no way around it
    for _ in range(5):
        await ws.send(b"\x00")
    await ws.send(json.dumps({"type": "ping"}))  # at once: the allowance has no time to refill
    codes = [json.loads(await ws.recv()).get("code") for _ in range(6)]
    assert codes == [Code.MALFORMED] * 5 + [Code.RATE_LIMITED]
    await ws.close()
    client = Client(server.url)
    await client.connect()
    await client.create("mansion", 2)
    await client.create("mansion", 2)
    with pytest.raises(ServerError) as caught:
        await client.create("mansion", 2)
    assert caught.value.code == Code.LIMIT
    await client.close()
    ws = await raw(server.url)
    assert (await ask(ws, {"type": "list", "ref": "x" * 5000}))["code"] == Code.TOO_LARGE
    with pytest.raises(ConnectionClosed) as closed:
        await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_open_public_tables_are_capped_per_address_across_processes(
    start_server: ServerFactory, sync_redis: redis.Redis
) -> None:
    """Within its budget of new tables (30 a minute) one address had 200 empty tables in the lobby in 7 minutes, each
    listed for a day: it may now have so many open public tables at once, counted in the store, so two processes
    on one store hold the cap together.  A table full or private does not count, nor another address's."""
    prefix = f"cap{secrets.token_hex(4)}"
    args = ("--key-prefix", prefix, "--open-tables-per-ip", "3", "--trusted-proxy", "127.0.0.1")
    one, two = start_server(*args), start_server(*args)

    async def hello_from(server: ServerProcess, client: str) -> ClientConnection:
        ws = await connect(server.url, additional_headers={"X-Forwarded-For": client})
        assert (await ask(ws, {"type": "hello", "version": 1}))["limits"]["open_tables"] == 3
        return ws

    a, b, other = await hello_from(one, "198.51.100.7"), await hello_from(two, "198.51.100.7"), None
    try:
        create = {"type": "create", "game": "spook", "seats": 2}
        again = {**create, "cmd": secrets.token_urlsafe(16)}
        made = [await ask(ws, frame) for ws, frame in ((a, again), (b, create), (a, {**create, "bots": 1}))]
        assert [m["type"] for m in made] == ["created"] * 3
        refused = await ask(b, {**create, "ref": "c4"})
        assert (refused["code"], refused["ref"]) == (Code.OPEN_LIMIT, "c4")
        assert "3 open public tables from your address" in refused["message"]
        assert (await ask(a, {**create, "seats": 1}))["code"] == Code.OPEN_LIMIT  # the other process as well
        assert sync_redis.zcard(f"{prefix}:hauntd:open") == 3  # nothing stored for a refusal
        assert (await ask(b, again))["table"] == made[0]["table"]  # a create sent again: the table it made
        assert (await ask(a, {**create, "private": True}))["type"] == "created"  # never listed: not counted
        other = await hello_from(two, "203.0.113.50")
        assert (await ask(other, create))["type"] == "created"
        await b.send(json.dumps({"type": "join", "table": made[2]["table"], "name": "Ada"}))  # with its bot: full
        while json.loads(await b.recv())["type"] != "snapshot":
            pass
        assert (await ask(a, create))["type"] == "created"
        assert (await ask(b, create))["code"] == Code.OPEN_LIMIT
    finally:
        for ws in (a, b, other):
            if ws is not None:
                await ws.close()
        sync_redis.delete(*sync_redis.scan_iter(match=f"{prefix}:*", count=1000))


async def test_commands_past_the_rate_limit_write_no_log_lines(start_server: ServerFactory) -> None:
    """Each command refused is logged (``command_rejected``), and those past the rate limit were too: a client
    sending acts as fast as it could had the server write over 6,000 lines a second to its log.  Past the limit a
    refusal is counted in ``/metrics`` only, so a client's lines are bounded by its allowance as its work is."""
    server = start_server("--rate", "5", "--burst", "5")
    ws = await raw(server.url)
    act = {"type": "act", "table": "nosuchtable", "token": "x", "cmd": "c", "action": {"type": "end_turn"}}
    for i in range(200):
        await ws.send(json.dumps(act if i % 2 else {"type": "watch", "table": "nosuchtable"}))
    codes = [json.loads(await ws.recv())["code"] for _ in range(200)]
    await ws.close()
    assert codes.count(Code.RATE_LIMITED) >= 190 and set(codes) == {Code.RATE_LIMITED, Code.NOT_FOUND}
    logged = [line for line in server.log_lines() if line["event"] == "command_rejected"]
    assert len(logged) == codes.count(Code.NOT_FOUND)
    assert 'hauntd_rejections_total{code="rate_limited"}' in get(f"{server.http}/metrics")[1].decode()


def test_every_provokable_code_is_provoked_here() -> None:
    """Each catalogue code but the unprovokable ones is named by an assertion in this module."""
    tests = Path(__file__).read_text().split("async def test_frame_errors")[1]
    assert [code for code in Code if code not in UNPROVOKABLE and f"Code.{code.name}" not in tests] == []


async def test_store_failures_are_counted_in_metrics(start_server: ServerFactory, tmp_path: Path) -> None:
    """With its store down, a server logged ``schedule_poll_failed``, ``pubsub_failed``… warnings and answered
    ``/healthz`` 503, but ``/metrics`` counted nothing of it unless a client's action was refused ``internal``:
    a scrape-based alert could not see the store go, nor an error logged with a traceback."""
    valkey = EmbeddedValkey(tmp_path / "store")
    valkey.start()
    try:
        server = start_server(redis_url=valkey.url)
        valkey.kill()
        for _ in range(50):
            metrics = urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode()
            down = re.search(
                r'^hauntd_failures_total\{event="schedule_poll_failed",kind="store_down"\} (\S+)$', metrics, re.M
            )
            if down:
                break
            await asyncio.sleep(0.1)
        assert down is not None and float(down.group(1)) >= 1, metrics
        assert 'kind="error"' not in metrics
    finally:
        valkey.stop()


async def test_a_store_that_refuses_writes_is_a_warning_not_a_bug(start_server: ServerFactory, tmp_path: Path) -> None:
    """A full store (``maxmemory`` under ``noeviction``) answers every write ``OOM``: each command was logged as an
    error with its traceback and counted ``kind="error"``, the mark of a bug, for what is the operator's to fix;
    and the line did not say which table the command was for."""
    valkey = EmbeddedValkey(tmp_path / "store")
    valkey.start()
    try:
        server = start_server(redis_url=valkey.url)
        async with Client(server.url, request_timeout=0.5) as client:
            table = await client.create("mansion", 2)
            with redis.Redis.from_url(valkey.url) as store:
                store.config_set("maxmemory", "1")  # (the default policy: noeviction)
            for refused in (client.create("mansion", 2), client.join(table, "Ada")):
                with pytest.raises(ServerError) as caught:
                    await refused
                assert caught.value.code == Code.INTERNAL
        failed = {line["type"]: line for line in server.log_lines() if line["event"] == "command_failed"}
        assert "table" not in failed["create"] and failed["join"]["table"] == table
        for line in failed.values():
            assert line["level"] == "warning" and "exception" not in line, line
            assert str(line["store_refused"]).startswith("OutOfMemoryError: command not allowed when used memory")
        metrics = urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode()
        assert 'hauntd_failures_total{event="command_failed",kind="store_refused"}' in metrics
        assert 'kind="error"' not in metrics
    finally:
        valkey.stop()


async def test_a_store_down_is_a_line_every_few_seconds_not_every_poll(
    start_server: ServerFactory, tmp_path: Path
) -> None:
    """The schedule polls the store four times a second, the fan-out's listener twice: with the store down, each
    poll logged the same warning, some 400 lines a minute a process before a single client retried anything."""
    valkey = EmbeddedValkey(tmp_path / "store")
    valkey.start()
    try:
        server = start_server(redis_url=valkey.url)
        valkey.kill()
        await asyncio.sleep(2.5)
        polls = [line for line in server.log_lines() if line["event"] == "schedule_poll_failed"]
        metrics = urllib.request.urlopen(f"{server.http}/metrics", timeout=5).read().decode()
        counted = re.search(
            r'^hauntd_failures_total\{event="schedule_poll_failed",kind="store_down"\} (\S+)$', metrics, re.M
        )
        assert len(polls) == 1 and polls[0]["level"] == "warning", polls
        assert counted is not None and float(counted.group(1)) >= 5  # each one counted all the same
        valkey.start()  # (back on its port)
        await asyncio.sleep(QUIET + 0.5 - 2.5)
        valkey.kill()
        while len(polls := [line for line in server.log_lines() if line["event"] == "schedule_poll_failed"]) < 2:
            await asyncio.sleep(0.1)
        assert int(str(polls[1]["left_out"])) >= 5  # the next line says how many were left out
    finally:
        valkey.stop()
