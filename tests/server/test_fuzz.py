"""Hostile input against a live server: hypothesis-drawn frames, the ``hauntd fuzz`` command, and its checker.

Whatever arrives, the server answers with a catalogue code (or closes the connection with a documented code),
logs no error, and leaves every table byte-for-byte as it was unless a legal action for the right seat arrived.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients import fuzz
from protocol.errors import Code
from server.launch import ROOT
from server.store import Keys
from tests.server.conftest import ServerFactory, ServerProcess

FIELDS = ["type", "table", "token", "cmd", "action", "seq", "seat", "name", "version", "last_seq", "game", "seats"]
FIELDS += ["options", "bots", "bot_strategy", "private", "turn_seconds", "ref", "client"]
TYPES = ["hello", "create", "list", "join", "leave", "watch", "start", "act", "resume", "ping", "events", "x"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63, max_value=10**300)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture
async def worker(server: ServerProcess, store_url: str) -> AsyncIterator[fuzz.Worker]:
    """One attacker connection and its tables, shared by every example of a test."""
    store = aioredis.Redis.from_url(store_url)
    worker = fuzz.Worker(server.url, store, random.Random(0), fuzz.Stats())
    yield worker
    if worker.ws is not None:
        await worker.ws.close()
    await store.aclose()


def hostile_frame(data: st.DataObject, worker: fuzz.Worker, legal: list[Any]) -> fuzz.Frame:
    kind = data.draw(st.sampled_from(["binary", "text", "json", "act", "act"]))
    if kind == "binary":
        return fuzz.Frame(data.draw(st.binary(max_size=200)), binary=True)
    if kind == "text":
        return fuzz.Frame(data.draw(st.text(max_size=200)))
    if kind == "json":
        msg = data.draw(st.dictionaries(st.sampled_from(FIELDS), values, max_size=6))
        msg["type"] = data.draw(st.sampled_from(TYPES) | st.text(max_size=5))
        return fuzz.Frame(json.dumps(msg))
    table = data.draw(st.sampled_from(worker.tables))
    other = data.draw(st.sampled_from(worker.tables))
    # a legal action by its index: how many there are depends on the live table, and hypothesis wants every
    # draw's bounds to depend on earlier draws only
    pick = data.draw(
        st.integers(min_value=0, max_value=63) | st.dictionaries(st.sampled_from(["type", "to", "r"]), values)
    )
    act: dict[str, Any] = {
        "type": "act",
        "table": data.draw(st.sampled_from([table.id, other.id, "nosuchtable"])),
        "token": data.draw(st.sampled_from([*table.tokens, *other.tokens]) | st.text(min_size=1, max_size=30)),
        "cmd": data.draw(st.sampled_from(["c1", "c2"]) | st.text(min_size=1, max_size=8)),
        "action": (legal[pick % len(legal)] if legal else {}) if isinstance(pick, int) else pick,
    }
    if data.draw(st.booleans()):  # one field of the wrong type or range
        act[data.draw(st.sampled_from([*act, "seq", "extra"]))] = data.draw(values)
    return fuzz.Frame(json.dumps(act), act=act)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
async def test_hostile_frames_change_nothing_they_should_not(
    server: ServerProcess, worker: fuzz.Worker, data: st.DataObject
) -> None:
    await worker.ready()
    stored = await worker.stored()
    legal = [msgspec.to_builtins(a) for a in worker._any_legal(stored)]
    replies = await worker.checked(hostile_frame(data, worker, legal))
    assert worker.stats.violations == []
    codes = {r["code"] for r in replies if r["type"] in ("error", "rejected")}
    assert codes <= {c.value for c in Code} - {Code.INTERNAL.value}
    assert fuzz.unhandled(server.log_path) == []


def test_the_checker_sees_a_change_nobody_was_entitled_to() -> None:
    worker = fuzz.Worker("ws://unused", None, random.Random(0), fuzz.Stats())
    table = fuzz.Table("t1", ["tok0", "tok1"])
    forged = {"type": "act", "table": "t1", "token": "nope", "cmd": "c", "action": {"type": "end_turn"}}
    worker._check_change(table, (b"1", b"", b""), fuzz.Frame(json.dumps(forged), act=forged), [])
    worker._check_change(table, (b"1", b"", b""), fuzz.Frame("{}"), [{"type": "accepted", "cmd": "c"}])
    assert len(worker.stats.violations) == 2 and worker.stats.legal_moves == 0


def test_the_fuzz_command_finds_nothing_wrong() -> None:
    """``hauntd fuzz --spawn``: a few seconds of every kind of hostile frame against a fresh server."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "fuzz", "--spawn", "--seconds", "4", "--workers", "3", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout)
    why = ("seed", "violations", "unhandled_examples", "server_alive", "memory_flat", "rss_samples_mib")
    assert done.returncode == 0 and report["ok"], {key: report[key] for key in why}
    assert report["frames"] > 300 and report["legal_moves"] > 0 and report["replays"] > 0
    assert report["unhandled_exceptions"] == 0 and report["violations"] == [] and report["server_alive"]
    assert {"malformed", "bad_field", "unknown_type", "too_large", "auth"} <= set(report["replies_by_code"])
    assert {"1007", "1009"} <= set(report["closes_by_code"])  # bad UTF-8 and oversized frames close the socket
    assert report["rss_after"] > 0 and report["memory_flat"]


async def test_the_checker_reads_the_tables_of_a_server_with_a_key_prefix(
    start_server: ServerFactory, store_url: str
) -> None:
    """``hauntd fuzz --url`` against a server with ``--key-prefix`` read its tables under the names without one:
    nothing, before and after every frame, so no change was ever seen (it passes ``--key-prefix`` on now)."""
    server = start_server("--key-prefix", "fz")
    store = aioredis.Redis.from_url(store_url)
    try:
        worker = fuzz.Worker(server.url, store, random.Random(0), fuzz.Stats(), Keys.named("fz"))
        await worker.new_table()
        (stored,) = (await worker.stored()).values()
        assert stored[0] is not None and stored[1] is not None  # its seq and record, as stored
        if worker.ws is not None:
            await worker.ws.close()
    finally:
        await store.aclose()
