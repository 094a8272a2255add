"""Security properties, one test each: seat tokens, acting for a seat, private tables, browser origins,
connections per address (behind a proxy too), idle connections."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import stat
import time
from pathlib import Path

import msgspec
import pytest
import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.fuzz import unhandled
from clients.sdk import Client
from protocol.errors import Code
from server import service
from server.guard import IDLE_CLOSE
from server.store import NO_PREFIX, TableMeta, decode_meta
from tests.server.conftest import ServerFactory, ServerProcess
from tests.server.drive import next_move
from tests.server.players import close, seat_players
from tests.server.test_errors import ask, raw, table_bytes
from tests.server.test_http import get


def stored_bytes(sync_redis: redis.Redis, table: str) -> bytes:
    """Every byte Redis holds about a table: record, state, log, command ids."""
    parts = [k + v for k, v in sync_redis.hgetall(NO_PREFIX.record(table)).items()]
    parts += [k + v for k, v in sync_redis.hgetall(NO_PREFIX.cmds(table)).items()]
    parts += [b"".join(f.values()) for _, f in sync_redis.xrange(NO_PREFIX.log(table))]
    return b"".join(parts)


async def test_seat_tokens_are_128_bit_random_stored_hashed_and_never_logged(
    server: ServerProcess, sync_redis: redis.Redis
) -> None:
    table, players = await seat_players([server.url], seats=3, seed=13)
    try:
        for _ in range(2):
            seat, action, seq = next_move(sync_redis, table)
            await players[seat].client.act(table, action, seq=seq)
        async with connect(server.url) as ws:  # a resume inside the hello, the token in the first frame
            token = players[2].client.seats[table].token
            await ws.send(json.dumps({"type": "hello", "version": 1, "table": table, "token": token}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.recv()
    finally:
        await close(players)
    tokens = [p.client.seats[table].token for p in players]
    assert len(set(tokens)) == 3
    for token in tokens:
        assert len(base64.urlsafe_b64decode(token + "==")) == 16  # 128 bits from secrets.token_urlsafe
    meta = decode_meta(sync_redis.hget(NO_PREFIX.record(table), "meta"))
    assert meta.tokens == [hashlib.sha256(t.encode()).hexdigest() for t in tokens]
    stored = stored_bytes(sync_redis, table)
    log_text = server.log_path.read_text()
    for token in tokens:
        assert token.encode() not in stored and token not in log_text


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every seat's digest is compared with ``hmac.compare_digest``, the holder's first or not."""
    digests = [hashlib.sha256(t.encode()).hexdigest() for t in ("a", "b", "c", "d")]
    meta = TableMeta(game="mansion", seats=4, names=["A", "B", "C", "D"], tokens=[*digests[:3], None])
    compared: list[str] = []

    def spy(a: str, b: str) -> bool:
        compared.append(a)  # the stored digest
        return a == b

    monkeypatch.setattr(service.hmac, "compare_digest", spy)
    assert service.seat_of(meta, "a") == 0
    assert compared == digests[:3]  # no early exit at seat 0; a seat without a token compares nothing
    with pytest.raises(service.ProtocolError):
        service.seat_of(meta, "zz")


async def test_nobody_acts_for_another_seat(server: ServerProcess, sync_redis: redis.Redis) -> None:
    table, players = await seat_players([server.url], seats=2, seed=14)
    other, other_players = await seat_players([server.url], seats=2, seed=15)
    spectator = await raw(server.url)
    try:
        seat, action, _ = next_move(sync_redis, table)
        waiting = players[1 - seat].client.seats[table].token
        stranger = other_players[seat].client.seats[other].token  # the same seat number, another table
        before = table_bytes(sync_redis, table)
        frames = [
            ({"token": waiting}, Code.NOT_YOUR_TURN),  # a seat acting with its own token for the one prompted
            ({"token": stranger}, Code.AUTH),
            ({"token": "x" * 22}, Code.AUTH),
            ({"token": ""}, Code.BAD_FIELD),
        ]
        await spectator.send(json.dumps({"type": "watch", "table": table}))
        await spectator.recv()  # the snapshot: a spectator follows, and holds no token
        for i, (extra, code) in enumerate(frames):
            act = {"type": "act", "table": table, "cmd": f"x{i}", "action": msgspec.to_builtins(action), **extra}
            reply = await ask(spectator, act)
            while reply["type"] not in ("rejected", "error"):
                reply = json.loads(await spectator.recv())
            assert reply["code"] == code, (extra, reply)
            assert table_bytes(sync_redis, table) == before
    finally:
        await spectator.close()
        await close(players + other_players)


async def test_private_tables_are_unlisted_and_need_their_whole_id(server: ServerProcess) -> None:
    owner, guest = Client(server.url), Client(server.url)
    await owner.connect()
    await guest.connect()
    try:
        hidden = await owner.create("mansion", 2, private=True)
        public = await owner.create("mansion", 2)
        assert len(base64.urlsafe_b64decode(hidden + "==")) == 16  # as unguessable as a seat token
        assert [t.table for t in await guest.list_tables()].count(public) == 1
        assert hidden not in [t.table for t in await guest.list_tables()]
        assert hidden.encode() not in get(f"{server.http}/metrics")[1]
        for near in (hidden[:-1], hidden[:-1] + ("A" if hidden[-1] != "A" else "B"), hidden.upper()):
            with pytest.raises(Exception) as caught:
                await guest.join(near, "Eve")
            assert getattr(caught.value, "code", None) == Code.NOT_FOUND
        assert (await guest.join(hidden, "Bob")).seat == 0  # the whole id is the invitation
    finally:
        await owner.close()
        await guest.close()


async def test_browser_origins_outside_the_allow_list_get_403(start_server: ServerFactory) -> None:
    server = start_server("--allowed-origin", "https://play.example", "--allowed-origin", "http://localhost:3000")
    for origin in ("https://play.example", "http://localhost:3000", None):
        async with connect(server.url, origin=origin) as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "hello", "version": 1}))
            assert json.loads(await ws.recv())["type"] == "welcome"
    for origin in ("https://evil.example", "https://play.example.evil", "null"):
        with pytest.raises(InvalidStatus) as caught:
            await connect(server.url, origin=origin)  # type: ignore[arg-type]
        assert caught.value.response.status_code == 403
    assert unhandled(server.log_path) == []  # a refusal is not a server error
    # logged and counted (websockets' own check refused in silence: a mistyped allow-list left no trace)
    refused = [line for line in server.log_lines() if line["event"] == "connection_refused"]
    assert [(line["reason"], line["origin"]) for line in refused] == [
        ("origin", "https://evil.example"), ("origin", "https://play.example.evil"), ("origin", "null")
    ]  # fmt: skip
    assert 'hauntd_refused_connections_total{reason="origin"} 3.0' in get(f"{server.http}/metrics")[1].decode()


async def test_refused_handshakes_write_a_few_lines_a_minute(start_server: ServerFactory) -> None:
    """Each refused handshake wrote a warning: a client knocking at a closed door as fast as it could (a foreign
    Origin, or past its connections) had the server write 2,900 lines a second, at no cost to itself.  An address
    has its first few a minute logged; every one is counted in ``/metrics``."""
    server = start_server("--allowed-origin", "https://play.example")
    for _ in range(30):
        with pytest.raises(InvalidStatus):
            await connect(server.url, origin="https://evil.example")  # type: ignore[arg-type]
    refused = [line for line in server.log_lines() if line["event"] == "connection_refused"]
    assert len(refused) == 10  # (``REFUSALS_LOGGED_PER_MINUTE``)
    assert 'hauntd_refused_connections_total{reason="origin"} 30.0' in get(f"{server.http}/metrics")[1].decode()


async def test_connections_per_address_are_capped_with_429(start_server: ServerFactory) -> None:
    capped = start_server("--max-connections-per-ip", "3", "--limit-loopback")
    held = [await connect(capped.url) for _ in range(3)]
    with pytest.raises(InvalidStatus) as caught:
        await connect(capped.url)
    assert caught.value.response.status_code == 429
    assert get(f"{capped.http}/healthz")[0] == 200  # plain HTTP is not a WebSocket connection
    await held.pop().close()
    for _ in range(50):  # the slot comes back once the server sees the close
        try:
            held.append(await connect(capped.url))
            break
        except InvalidStatus:
            await asyncio.sleep(0.05)
    assert len(held) == 3
    metrics = get(f"{capped.http}/metrics")[1].decode()
    assert 'hauntd_refused_connections_total{reason="per_ip"}' in metrics
    for ws in held:
        await ws.close()
    exempt = start_server("--max-connections-per-ip", "2")  # loopback is exempt by default (local tools, proxies)
    many = [await connect(exempt.url) for _ in range(5)]
    for ws in many:
        await ws.close()
    assert unhandled(capped.log_path) == []


async def test_behind_a_trusted_proxy_each_client_has_its_own_cap(start_server: ServerFactory) -> None:
    """Behind a reverse proxy every client comes from the proxy's address: with ``--trusted-proxy`` the caps
    count the address its X-Forwarded-For names (and the logs show it); without it the header is not believed."""
    proxied = start_server("--trusted-proxy", "127.0.0.1", "--max-connections-per-ip", "2")

    async def via_proxy(client: str) -> ClientConnection:
        return await connect(proxied.url, additional_headers={"X-Forwarded-For": f"198.51.100.66, {client}"})

    held = [await via_proxy("203.0.113.5") for _ in range(2)]
    with pytest.raises(InvalidStatus) as caught:
        await via_proxy("203.0.113.5")
    assert caught.value.response.status_code == 429
    held += [await via_proxy("203.0.113.6"), *[await connect(proxied.url) for _ in range(3)]]  # the proxy's own
    for frame in ({"type": "hello", "version": 1}, {"type": "watch", "table": "nosuchtable"}):  # a line, not_found
        await held[0].send(json.dumps(frame))
        await held[0].recv()
    for ws in held:
        await ws.close()
    lines = proxied.log_path.read_text()
    assert "203.0.113.5 via 127.0.0.1:" in lines and "198.51.100.66" not in lines
    untrusting = start_server("--max-connections-per-ip", "2", "--limit-loopback")
    forged = {"X-Forwarded-For": "203.0.113.7"}
    held = [await connect(untrusting.url, additional_headers={"X-Forwarded-For": f"203.0.113.{i}"}) for i in (1, 2)]
    with pytest.raises(InvalidStatus):  # one address, whatever the header says
        await connect(untrusting.url, additional_headers=forged)
    for ws in held:
        await ws.close()
    assert unhandled(proxied.log_path) == []


async def test_an_ipv6_client_is_capped_by_its_64_network(start_server: ServerFactory) -> None:
    """Counted address by address, an IPv6 client holding a /64 network (what a host or household is handed) had
    2**64 times each cap: connections, new tables and replays, a fresh address for each.  (Through a trusted
    proxy: a test's connections all come from ::1.)"""
    args = ["--trusted-proxy", "127.0.0.1", "--max-connections-per-ip", "2", "--tables-per-minute", "1"]
    server = start_server(*args, "--open-tables-per-ip", "0")  # (counted in the store: test_guard.py has its /64)

    async def hello_from(client: str) -> ClientConnection:
        ws = await connect(server.url, additional_headers={"X-Forwarded-For": client})
        assert (await ask(ws, {"type": "hello", "version": 1}))["type"] == "welcome"
        return ws

    held = [await hello_from("2001:db8:5:6::1"), await hello_from("2001:db8:5:6:a:b:c:d")]
    with pytest.raises(InvalidStatus) as caught:
        await hello_from("2001:db8:5:6::2")
    assert caught.value.response.status_code == 429
    assert (await ask(held[0], {"type": "create", "game": "spook", "seats": 1}))["type"] == "created"
    assert (await ask(held[1], {"type": "create", "game": "spook", "seats": 1}))["code"] == Code.RATE_LIMITED
    other = await hello_from("2001:db8:5:7::1")  # another /64: another client
    assert (await ask(other, {"type": "create", "game": "spook", "seats": 1}))["type"] == "created"
    for ws in [*held, other]:
        await ws.close()
    for _ in range(100):  # the logs name the address: in the refused connection's close line, once the server ends it
        if "2001:db8:5:6:a:b:c:d via 127.0.0.1:" in server.log_path.read_text():
            break
        await asyncio.sleep(0.05)
    assert "2001:db8:5:6:a:b:c:d via 127.0.0.1:" in server.log_path.read_text()
    assert unhandled(server.log_path) == []


async def test_the_embedded_store_is_the_servers_users_alone(start_server: ServerFactory, tmp_path: Path) -> None:
    """The embedded Valkey holds every hidden value (hands, decks, each table's secret, so its seed): it listened on
    127.0.0.1 with no password and its files were readable by all, so any user of the machine read every hand in
    play, or rewrote a table.  It asks for a password drawn at each start, found only in ``valkey.url`` in a data
    directory that only the server's user may enter."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)  # as one made before
    server = start_server("--data-dir", str(data), redis_url=None)
    port = next(line["port"] for line in server.log_lines() if line["event"] == "embedded_valkey_started")
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis(port=port).hget("hauntd:open", "x")
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    client = Client(server.url)
    await client.connect()
    table = await client.create("spook", 1)
    await client.close()
    store = redis.Redis.from_url((data / "valkey.url").read_text().strip())
    assert store.hget(NO_PREFIX.record(table), "meta") is not None
    store.close()
    assert (data / "valkey.url").read_text().split("@")[0] not in server.log_path.read_text()


async def test_new_tables_per_address_are_budgeted(start_server: ServerFactory) -> None:
    """A table outlives its creator (a day in the lobby): one address reconnecting in a loop may not fill the store
    and the lobby.  The budget is per address, not per connection, and loopback is exempt by default."""
    capped = start_server("--tables-per-minute", "3", "--limit-loopback", "--open-tables-per-ip", "0")  # (that cap:
    # tests/server/test_errors.py; its count is in the store, which a CI's Redis keeps from one run to the next)
    first = await raw(capped.url)
    codes = [(await ask(first, {"type": "create", "game": "spook", "seats": 1})).get("code") for _ in range(3)]
    assert codes == [None, None, None]
    refused = await ask(first, {"type": "create", "game": "spook", "seats": 1, "ref": "c4"})
    assert (refused["code"], refused["ref"]) == (Code.RATE_LIMITED, "c4")
    assert "at most 3 new tables a minute" in refused["message"]
    await first.close()
    again = await raw(capped.url)  # a new connection from the same address: the same budget
    assert (await ask(again, {"type": "create", "game": "spook", "seats": 1}))["code"] == Code.RATE_LIMITED
    assert (await ask(again, {"type": "list"}))["type"] == "tables"  # anything else goes on
    await again.close()
    exempt = start_server("--tables-per-minute", "1")
    ws = await raw(exempt.url)
    for _ in range(3):
        assert (await ask(ws, {"type": "create", "game": "spook", "seats": 1}))["type"] == "created"
    await ws.close()
    assert unhandled(capped.log_path) == []


async def test_a_limit_switched_off_is_absent_from_the_welcome(start_server: ServerFactory) -> None:
    """PROTOCOL.md: an optional limit is absent when the server has none (a cap of 0), not ``null``."""
    server = start_server(
        "--idle-timeout", "0", "--tables-per-minute", "0", "--open-tables-per-ip", "0", "--watchers-per-ip", "0"
    )
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 1}))
        limits = json.loads(await ws.recv())["limits"]
    assert set(limits) == {
        "max_frame_bytes", "messages_per_second", "burst", "max_tables_per_connection", "nudge_after", "nudge_seconds",
        "abandoned_after",
    }  # fmt: skip


async def test_idle_connections_are_closed_with_4408(start_server: ServerFactory) -> None:
    server = start_server("--idle-timeout", "1.5")  # (the chatty one's pings 0.2 s apart: 1.3 s for a late loop)
    quiet, chatty = await raw(server.url), await raw(server.url)
    sdk = Client(server.url, reconnect=False)
    welcome = await sdk.connect()
    assert welcome.limits.idle_seconds == 1.5
    started = time.monotonic()
    while time.monotonic() - started < 3.5:
        assert (await ask(chatty, {"type": "ping"}))["type"] == "pong"  # any message keeps a connection
        await asyncio.sleep(0.2)
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(quiet.recv(), 5)
    assert closed.value.rcvd is not None and (closed.value.rcvd.code, closed.value.rcvd.reason) == (IDLE_CLOSE, "idle")
    assert await sdk.ping() > 0  # the SDK pings by itself when quiet: still the same connection
    assert sdk.reconnects == 0
    await sdk.close()
    await chatty.close()
    assert unhandled(server.log_path) == []
