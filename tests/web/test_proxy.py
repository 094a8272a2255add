"""The page behind a reverse proxy that serves it under a path, as a site hosting hauntd beside other things would
(``https://example.org/hauntd/``): its files, its catalogs and its WebSocket all go through the proxy, and the
server, trusting the proxy, counts and logs the client the proxy names."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from server.http import response
from server.launch import ServerProcess
from tests.web.play import create_table

PREFIX = "/hauntd/"
CLIENT = "203.0.113.77"  # the address the proxy says its client has


def _get(url: str) -> tuple[HTTPStatus, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return HTTPStatus(reply.status), reply.read(), reply.headers["Content-Type"]
    except urllib.error.HTTPError as refused:
        return HTTPStatus(refused.code), refused.read(), refused.headers["Content-Type"]


@asynccontextmanager
async def path_proxy(
    upstream: ServerProcess, answer: Callable[[Any], str | None] = lambda message: None
) -> AsyncIterator[str]:
    """A proxy as nginx is set up for it: ``PREFIX`` stripped, plain HTTP passed on, a WebSocket relayed message by
    message with ``X-Forwarded-For`` naming the client; yields the page's address through it.  ``answer``: what
    the proxy says itself to a message of the page's, instead of passing it on (None: pass it on)."""

    async def plain(ws: ServerConnection, request: Request) -> Response | None:
        if not request.path.startswith(PREFIX):
            return response(HTTPStatus.NOT_FOUND, b"not under the proxied path\n")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        status, body, kind = await asyncio.to_thread(_get, upstream.http + "/" + request.path.removeprefix(PREFIX))
        return response(status, body, kind)

    async def relay(ws: ServerConnection) -> None:
        async with connect(upstream.url, additional_headers={"X-Forwarded-For": CLIENT}) as up:

            async def pump(source: Any, sink: Any) -> None:
                with contextlib.suppress(ConnectionClosed):
                    async for message in source:
                        said = answer(message) if source is ws else None
                        await (sink.send(message) if said is None else ws.send(said))

            tasks = [asyncio.create_task(pump(ws, up)), asyncio.create_task(pump(up, ws))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()

    async with serve(relay, "127.0.0.1", 0, process_request=plain) as proxy:
        yield f"http://127.0.0.1:{proxy.sockets[0].getsockname()[1]}{PREFIX}"


@pytest.mark.parametrize("server_args", [["--trusted-proxy", "127.0.0.1"]])
async def test_the_page_plays_behind_a_proxy_under_a_path(page: Any, server: ServerProcess) -> None:
    """The page asked for ``/static/…``, ``/games/…`` and a WebSocket at ``/``, outside the proxied path: behind
    such a proxy it showed nothing.  Now everything it asks for is relative to its own address."""
    async with path_proxy(server) as address:
        await page.goto(address)
        await page.wait_for_selector("#create-form button#create")
        await create_table(page, "spook", 1)  # its catalog and the WebSocket, through the proxy
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("""button[data-action='{"type":"draw"}']""")
        assert page.url.startswith(address)
    assert f'"peer": "{CLIENT} via 127.0.0.1:' in server.log_path.read_text()
