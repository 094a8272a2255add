"""Log lines as an operator reads them: JSON lines, whole even when processes share one stderr."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import structlog
from websockets.asyncio.client import connect

from clients.sdk import Client, ServerError
from server import connection, logs
from server.app import redacted
from server.launch import ROOT
from tests.server.conftest import ServerFactory
from tests.server.players import Player, play
from tests.server.test_http import get

LOG_A_LOT = """
import structlog
from server import logs
logs.configure("json")
log = structlog.get_logger("test")
for i in range(3000):
    log.info("line", i=i, padding="x" * 200)
"""


def test_processes_sharing_stderr_write_whole_lines(tmp_path: Path) -> None:
    """``serve --workers N``'s workers share one stderr; a line was written in two parts, the newline apart, so
    two lines written at once ran into each other and neither parsed."""
    path = tmp_path / "shared.log"
    with path.open("ab") as shared:
        writers = [subprocess.Popen([sys.executable, "-c", LOG_A_LOT], cwd=ROOT, stderr=shared) for _ in range(2)]
        for writer in writers:
            assert writer.wait(60) == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 6000
    assert sorted(json.loads(line)["i"] for line in lines) == sorted(list(range(3000)) * 2)


LIBRARY_LINES = """
import logging, structlog
from server import logs
logs.configure("json")
structlog.contextvars.bind_contextvars(worker=1)
logging.getLogger("websockets.server").info("not shown: below warning")
logging.getLogger("redis").warning("a %s warning", "library")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("websockets.server").error("connection handler failed", exc_info=True)
"""


def test_what_libraries_log_is_json_too() -> None:
    """websockets and redis log through the standard library: those lines were plain text in a JSON log (so
    ``hauntd chaos``, reading JSON lines, never counted a connection handler's crash) and had no ``worker``."""
    done = subprocess.run([sys.executable, "-c", LIBRARY_LINES], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    warning, error = (json.loads(line) for line in done.stderr.splitlines())
    assert warning | {"timestamp": None} == {
        "event": "a library warning", "logger": "redis", "level": "warning", "worker": 1, "timestamp": None
    }  # fmt: skip
    assert error["level"] == "error" and error["logger"] == "websockets.server" and error["worker"] == 1
    assert error["exception"].startswith("Traceback") and "ZeroDivisionError" in error["exception"]


async def test_a_closed_connection_says_with_which_code(start_server: ServerFactory) -> None:
    """``connection_closed`` gave frames and seconds only: whether the client left (1000), its network dropped
    (1006) or the server cut it off (4408 idle, 1001 at its stop) was in no line but ``idle_closed``'s."""
    server = start_server("--idle-timeout", "0.5")
    async with Client(server.url) as owner:
        table = await owner.create("mansion", 3)
    hello = json.dumps({"type": "hello", "version": 1, "client": "{}"})
    for name in ("leaves", "drops", "idles"):
        ws = await connect(server.url)
        await ws.send(hello.replace("{}", name))
        await ws.recv()
        if name == "leaves":  # (a connection that held a seat: its close is logged)
            await ws.send(json.dumps({"type": "join", "table": table, "name": name}))
            await ws.recv()
            await ws.close()
        elif name == "drops":
            await ws.send(json.dumps({"type": "join", "table": table, "name": name}))
            await ws.recv()
            ws.transport.abort()
        else:
            await ws.wait_closed()
    codes: dict[object, object] = {}
    for _ in range(50):
        lines = [line for line in server.log_lines() if line["event"] == "connection_closed"]
        codes = {line["client"]: line["code"] for line in lines if line["client"] != "hauntd-sdk"}  # (not owner's)
        if len(codes) == 3:
            break
        await asyncio.sleep(0.1)
    assert codes == {"leaves": 1000, "drops": 1006, "idles": 4408}


async def test_short_connections_are_counted_not_logged_one_by_one(start_server: ServerFactory) -> None:
    """Every connection wrote ``connection_opened`` and ``connection_closed``: a client reconnecting in a loop, or a
    load of visitors listing the lobby, wrote 400 lines for 200 connections.  A close is logged when the connection
    took part (a seat, a table created, a refusal, cut off); the others are counted in ``/metrics``."""
    server = start_server()
    hello = json.dumps({"type": "hello", "version": 1, "client": "loop"})
    for _ in range(200):
        async with connect(server.url) as ws:
            await ws.send(hello)
            await ws.recv()
            await ws.send(json.dumps({"type": "list"}))
            await ws.recv()
    async with Client(server.url) as seated:
        table = await seated.create("spook", 2)
        await seated.join(table, "Ada")
    refused = await connect(server.url)
    await refused.send(json.dumps({"type": "ping"}))  # before hello: refused ``version``
    await refused.recv()
    await refused.close()
    counted = [f'hauntd_connections_closed_total{{kind="{k}"}} {n}' for k, n in (("quiet", 200.0), ("logged", 2.0))]
    for _ in range(100):  # (each close is counted once the server has seen it)
        metrics = get(f"{server.http}/metrics")[1].decode()
        if all(figure in metrics for figure in counted):
            break
        await asyncio.sleep(0.1)
    assert all(figure in metrics for figure in counted), metrics
    lines = server.log_lines()
    closed = sorted(str(line.get("client")) for line in lines if line["event"] == "connection_closed")
    assert closed == ["None", "hauntd-sdk"]
    assert [line for line in lines if line.get("client") == "loop"] == []


def test_quiet_closes_are_summed_up_once_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    """One ``quiet_connections_closed`` line a minute at most, naming the busiest address (an IPv6 one by its /64)."""
    now = [1000.0]
    monkeypatch.setattr(connection.time, "monotonic", lambda: now[0])
    quiet = connection.QuietCloses()
    with structlog.testing.capture_logs() as logged:
        for i in range(300):
            now[0] += 0.5
            quiet.closed("203.0.113.9" if i % 3 else f"2001:db8::{i}")
    assert [(line["count"], line["seconds"], line["busiest"], line["busiest_count"]) for line in logged] == [
        (120, 60, "203.0.113.9", 80),
        (120, 60, "203.0.113.9", 80),
    ]


def test_the_listening_line_names_the_store(start_server: ServerFactory, store_url: str) -> None:
    """With ``REDIS_URL`` in the environment (or a ``--redis-url`` in a unit file) no log line said which store the
    server had taken: the embedded Valkey logs its start, an external store nothing."""
    server = start_server()
    (listening,) = [line for line in server.log_lines() if line["event"] == "listening"]
    assert listening["store"] == redacted(store_url)  # (the embedded store's password left out)


def test_a_store_url_is_logged_without_its_password() -> None:
    assert redacted("redis://:s3cret@10.0.0.5:6379/0") == "redis://:***@10.0.0.5:6379/0"
    assert redacted("rediss://hauntd:p%40ss@db.internal/2") == "rediss://hauntd:***@db.internal/2"
    assert redacted("unix:///run/redis.sock?password=s3cret&db=1") == "unix:///run/redis.sock?password=***&db=1"
    assert redacted("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


async def test_every_refused_command_is_a_line_with_its_table_and_no_token(start_server: ServerFactory) -> None:
    """Only a refused action was logged: a player's resume refused ``auth`` (say, a token from another table)
    left no line for the operator looking into "I cannot get back to my seat".  Its ``type`` is the message's as
    the protocol names it (it was the Python class's: ``Resume``, ``ListTables`` for a ``list``)."""
    server = start_server()
    async with Client(server.url) as c:
        table = await c.create("mansion", 2)
        token = (await c.join(table, "Ada")).token
    wrong = token[::-1]
    ws = await connect(server.url)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    await ws.recv()
    await ws.send(json.dumps({"type": "resume", "table": table, "token": wrong, "last_seq": 0}))
    assert json.loads(await ws.recv())["code"] == "auth"
    await ws.send(json.dumps({"type": "act", "table": table, "token": token, "cmd": "c1", "action": {}}))
    assert json.loads(await ws.recv())["type"] == "rejected"
    await ws.close()
    refused = [line for line in server.log_lines() if line["event"] == "command_rejected"]
    assert [(line["type"], line["table"], line["code"]) for line in refused] == [
        ("resume", table, "auth"),
        ("act", table, "bad_field"),
    ]
    assert refused[1]["cmd"] == "c1"
    assert wrong not in server.log_path.read_text() and token not in server.log_path.read_text()


def test_a_private_tables_id_is_veiled_in_a_failures_message_too() -> None:
    """A newer hauntd's table (``TooNew``) was logged ``too_new: "TooNew: table <the whole id> is stored in format
    2 …"`` beside its veiled ``table`` field, on every process of the older version while versions were mixed."""
    private = "aYPNHt8nv-v3qS-CKJNWog"
    message = f"TooNew: table {private} is stored in format 2, newer than this server's 1: a newer hauntd serves it"
    line = logs.veil_invitations(None, "warning", {"event": "notice_failed", "table": private, "too_new": message})
    assert line == {"event": "notice_failed", "table": "aYPNHt...", "too_new": message.replace(private, "aYPNHt...")}


async def test_a_private_table_is_logged_by_a_prefix_of_its_id(start_server: ServerFactory) -> None:
    """A private table's id is its invitation, and it was in every line of its life (``table_created``,
    ``seat_taken``, ``table_started``, ``table_over``, a refusal): whoever read the log could join or watch it.
    Now its first six characters and "..." (its rematch's too); a public table's id is logged whole."""
    server = start_server("--rate", "1000", "--burst", "1000")
    async with Client(server.url) as c:
        private = await c.create("ghost-at-home", 2, bots=1, bot_strategy="random", private=True)
        public = await c.create("mansion", 2)
        player = Player(c, private, (await c.join(private, "Ada")).seat, random.Random(1))
        await c.start(private)
        await play([player])
        rematch = (await c.rematch(private)).rematch
        with pytest.raises(ServerError):
            await c.resume(rematch, "not-a-token")
    assert len(private) == len(rematch) == 22 and len(public) == logs.PUBLIC_ID_CHARS
    lines = server.log_lines()
    named = [(line["event"], line["table"]) for line in lines if "table" in line]
    veiled, again = private[:6] + "...", rematch[:6] + "..."
    for event in ("table_created", "seat_taken", "table_started", "table_over"):
        assert (event, veiled) in named
    assert ("table_created", public) in named and ("command_rejected", again) in named
    assert [line["rematch_of"] for line in lines if "rematch_of" in line] == [veiled]
    text = server.log_path.read_text()
    assert private not in text and rematch not in text
