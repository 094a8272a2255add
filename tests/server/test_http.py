"""Plain HTTP on the WebSocket port (game catalogs included), the embedded Valkey, and a client that stops reading."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.sdk import Client
from engine.registry import games
from server.http import static_file
from tests.server.conftest import ServerFactory, ServerProcess


def fetch(url: str, **headers: str) -> tuple[int, Message, bytes]:
    """Status, headers and body of a GET sent with ``headers``."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def get(url: str) -> tuple[int, bytes]:
    status, _, body = fetch(url)
    return status, body


def test_health_metrics_and_no_path_traversal(server: ServerProcess) -> None:
    assert get(f"{server.http}/healthz") == (200, b"ok\n")
    status, body = get(f"{server.http}/metrics")
    assert status == 200 and b"hauntd_connections" in body and b"hauntd_tables" in body
    for path in ["/static/../../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml", "/nothing"]:
        assert get(f"{server.http}{path}")[0] == 404


def test_every_game_catalog_over_http(server: ServerProcess) -> None:
    """``/games/<name>.json``: each registered game's catalog, the same bytes until the server changes (so a
    client revalidates it for nothing); an unknown game is a 404 carrying the protocol's ``not_found`` error."""
    for name, game in games().items():
        status, headers, body = fetch(f"{server.http}/games/{name}.json")
        assert status == 200 and body == msgspec.json.encode(game.catalog), name
        assert headers["Content-Type"] == "application/json" and headers["Cache-Control"] == "no-cache"
        status, headers, body = fetch(f"{server.http}/games/{name}.json", **{"If-None-Match": headers["ETag"]})
        assert (status, body) == (304, b"")
        assert fetch(f"{server.http}/games/{name}.json", **{"If-None-Match": '"old"'})[0] == 200
    for path in ["/games/chess.json", "/games/mansion", "/games/", "/games/../games/spook.json"]:
        status, headers, body = fetch(f"{server.http}{path}")
        assert status == 404 and headers["Content-Type"] == "application/json", path
        assert json.loads(body) == {"type": "error", "code": "not_found", "message": "no such game"}


def test_the_page_and_its_files_carry_security_headers(server: ServerProcess) -> None:
    """The page and its static files: a strict policy (its own scripts, styles and WebSocket; no inline style or
    script, plugin, ``<base>``, form target or framing site), no sniffing, no Referer; the other answers unchanged."""
    for path in ["/", "/static/app.js", "/static/style.css", "/static/games/ghost-at-home.js"]:
        status, headers, _ = fetch(f"{server.http}{path}")
        assert status == 200, path
        policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
        assert policy == {
            "default-src": "'self'",
            "connect-src": "'self'",
            "img-src": "'self' data:",
            "object-src": "'none'",
            "base-uri": "'none'",
            "form-action": "'none'",
            "frame-ancestors": "'none'",
        }, path
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path
    for path in ["/healthz", "/metrics", "/games/spook.json", "/nothing"]:
        assert "Content-Security-Policy" not in fetch(f"{server.http}{path}")[1], path


def test_static_files_stay_under_their_root(tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text("<h1>hauntd</h1>")
    (web / "js" / "app.js").write_text("1")
    (tmp_path / "secret.txt").write_text("no")
    assert static_file(web, "index.html") == (web / "index.html").resolve()
    assert static_file(web, "js/app.js") == (web / "js" / "app.js").resolve()
    for bad in ["../secret.txt", "js/../../secret.txt", "/etc/passwd", "js", "missing.html", "a\x00b"]:
        assert static_file(web, bad) is None, bad
    assert static_file(tmp_path / "absent", "index.html") is None


def test_a_path_the_file_system_refuses_is_a_404(server: ServerProcess) -> None:
    """A name over the file system's 255 bytes, or a path over its 4096, raised OSError (ENAMETOOLONG) out of the
    request handler: a 500, and the whole path in an error line with its traceback, for anyone's every GET."""
    for path in ["/static/" + "a" * 300, "/static/" + "a/" * 2100 + "x"]:
        assert get(f"{server.http}{path}")[0] == 404
    assert "process_request failed" not in server.log_path.read_text()


async def test_embedded_valkey_keeps_tables_across_restarts(start_server: ServerFactory, tmp_path: Path) -> None:
    server = start_server("--data-dir", str(tmp_path / "data"), redis_url=None)
    client = Client(server.url, reconnect=False)
    await client.connect()
    table = await client.create("mansion", 3)
    await client.close()
    server.kill()  # kill -9: the embedded Valkey is told to stop with us, and flushes its append-only file
    server.start()
    client = Client(server.url, reconnect=False)
    await client.connect()
    assert table in [t.table for t in await client.list_tables("mansion")]
    await client.close()
    assert (tmp_path / "data" / "appendonlydir").is_dir()


async def test_a_client_that_stops_reading_is_dropped(start_server: ServerFactory) -> None:
    server = start_server("--send-queue", "16", "--rate", "100000", "--burst", "100000", "--send-timeout", "2")
    owner, other = Client(server.url), Client(server.url)
    await owner.connect()
    await other.connect()
    table = await owner.create("mansion", 2)
    await owner.join(table, "A")
    await other.join(table, "B")
    await owner.start(table)  # a started table's snapshots hold the view: kilobytes each
    ws = await connect(server.url, max_queue=1)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    watch = json.dumps({"type": "watch", "table": table})
    for sent in range(200_000):  # each answered by a snapshot (kilobytes), which this client never reads:
        await ws.send(watch)  # the sockets' buffers fill up, then the server's queue
        if sent % 100 == 0:
            await asyncio.sleep(0.001)  # let the server catch up (and the cut-off be noticed)
            if any(line.get("event") == "slow_consumer_dropped" for line in server.log_lines()):
                break
    else:
        pytest.fail("the slow reader was never dropped")
    await owner.close()
    await other.close()
    with pytest.raises(ConnectionClosed):  # it never reads its close (4429): cut off --send-timeout after
        for _ in range(1000):
            await ws.send(watch)
            await asyncio.sleep(0.01)
    assert get(f"{server.http}/healthz")[0] == 200
