"""Deployments sharing one store (staging and production): ``--key-prefix`` keeps each to its own keys and channels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from clients.sdk import Client, ServerError
from server.launch import ROOT
from server.store import NO_PREFIX, Keys
from tests.server.conftest import ServerFactory
from tests.server.players import assert_gapless, close, play, seat_players


def _verify(store_url: str, table: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "verify", "--redis-url", store_url, *args, table],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
    )
    verdict: dict[str, object] = json.loads(done.stdout)
    return verdict


async def test_two_deployments_on_one_store_never_meet(
    start_server: ServerFactory, sync_redis: redis.Redis, store_url: str
) -> None:
    """Every key and channel had a fixed name, so two deployments on one Redis shared their lobby, schedule and
    tables.  Two staging processes (seats split across them: their notices cross on staging's channels) play a
    timed table while production, on the same store, sees none of it; verify finds it under staging's prefix."""
    staging, production = Keys.named("staging"), Keys.named("production")
    before = set(sync_redis.scan_iter(count=1000))
    flat_out = ("--rate", "1e6", "--burst", "1000000")  # (random players act as fast as they are prompted)
    a, b = (start_server("--key-prefix", "staging", *flat_out) for _ in range(2))
    prod = start_server("--key-prefix", "production")
    async with Client(prod.url, client="prod") as other:
        theirs = await other.create("mansion", 2)
        table, players = await seat_players([a.url, b.url], seats=2, game="ghost-at-home", seed=4, turn_seconds=60)
        try:
            assert sync_redis.zscore(staging.due, table) is not None  # the turn's deadline, in staging's schedule
            channels = {c.decode() for c in sync_redis.pubsub_channels(f"*{table}*")}
            assert channels == {staging.channel(table)}
            with pytest.raises(ServerError) as missing:
                await other.watch(table)
            assert missing.value.code == "not_found"
            assert table not in {t.table for t in await other.list_tables()}
            assert theirs not in {t.table for t in await players[0].client.list_tables()}
            assert sync_redis.zscore(production.open, theirs) is not None
            await play(players)
        finally:
            await close(players)
    final = int(sync_redis.hget(staging.record(table), "seq") or 0)
    for p in players:
        assert_gapless(p, final)
    made = {k.decode() for k in set(sync_redis.scan_iter(count=1000)) - before}
    assert {staging.record(table), staging.log(table), staging.cmds(table)} <= made
    assert production.record(theirs) in made
    assert all(k.startswith(("staging:", "production:")) for k in made), made
    assert not sync_redis.exists(NO_PREFIX.record(table), NO_PREFIX.log(table))  # nothing under the names of old
    assert _verify(store_url, table, env={"HAUNTD_KEY_PREFIX": "staging"})["ok"] is True
    assert _verify(store_url, table, "--key-prefix", "production")["status"] == "missing"


@pytest.mark.parametrize("name", ["a:b", "{t}", "stag ing", "*"])
def test_a_key_prefix_that_would_break_the_hash_tag_or_an_acl_pattern_is_a_usage_error(name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--key-prefix", name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "argument --key-prefix: a key prefix is made of letters, digits" in done.stderr


def test_a_channel_names_its_table_to_its_own_deployment_only() -> None:
    """The fan-out finds a notice's table from its channel: under a prefix the old parse found none (the resync,
    every 2 s, then stood in for every notice)."""
    staging, plain = Keys.named("staging"), Keys()
    assert staging.table_of(staging.channel("ab-1")) == "ab-1"
    assert plain.table_of(plain.channel("ab-1")) == "ab-1"
    assert staging.table_of(plain.channel("ab-1")) is None
    assert plain.table_of(staging.channel("ab-1")) is None
    assert staging.table_of(staging.hello) is None


async def test_an_acl_user_held_to_its_prefix_plays_a_public_table_through(
    start_server: ServerFactory, sync_redis: redis.Redis, store_url: str
) -> None:
    """README: a deployment's ACL user may be held to ``~NAME:* &NAME:*``.  The store checks every key a script is
    given against it, and the create and commit scripts were given ``''`` for a key they did without (a create
    with no open-table cap, a public table's start and end without a schedule): NOPERM, so no table could be
    created, nor a public one started, under such a user."""
    sync_redis.execute_command(
        "ACL", "SETUSER", "acl-test", "on", ">pw", "~acl-test:*", "&acl-test:*", "+@all", "-@dangerous", "+info"
    )
    try:
        at = urlsplit(store_url)
        url = urlunsplit(at._replace(netloc=f"acl-test:pw@{at.hostname}:{at.port}"))
        server = start_server("--key-prefix", "acl-test", "--rate", "1000", "--burst", "1000", redis_url=url)
        table, players = await seat_players([server.url], seats=2, game="ghost-at-home", seed=5)
        try:
            said = await players[0].client.say(table, "good luck")  # (the chat script's keys, and its channel)
            await play(players)
            again = await players[1].client.rematch(table)  # (the create script's rematch: the finished table's key)
        finally:
            await close(players)
        assert all(p.result is not None for p in players)
        keys = Keys.named("acl-test")
        assert sync_redis.exists(keys.record(table)) and sync_redis.zscore(keys.playing, table) is None
        assert sync_redis.hget(keys.record(table), "rematch") == again.rematch.encode()
        assert sync_redis.exists(keys.record(again.rematch))
        assert said.n == 1 and sync_redis.llen(keys.chat(table)) == 1
        async with Client(server.url) as other:
            assert await other.create("spook", 2, private=True)
    finally:
        sync_redis.execute_command("ACL", "DELUSER", "acl-test")
