"""Plain HTTP on the WebSocket port (websockets' ``process_request`` hook): health, metrics, game catalogs, the
web page.

``/healthz`` is liveness: ``ok`` from any process whose event loop runs, store or no store (a process restarted
because its store is down comes back to the same store: a restart loop mends nothing); ``/readyz`` is readiness:
``ok`` while the store answers a PING within a second, else 503 ``store down`` (send it no clients meanwhile: it
can serve none).  ``/metrics`` is Prometheus text, with the store's figures read at each scrape
(``Watchdog.survey``); ``/games/<name>.json`` is a
registered game's catalog (``Game.catalog``: its public cards and board), JSON-encoded once, or a 404 whose
body is the protocol's ``error`` (``not_found``); ``/`` serves ``clients/web/index.html`` and ``/static/<path>``
a file under ``clients/web/`` when that folder exists, with the page's security headers (``PAGE_HEADERS``).  A
request carrying ``Upgrade: websocket`` on any other path is a WebSocket connection.
"""

from __future__ import annotations

import hashlib
import mimetypes
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import unquote

import msgspec
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from engine.registry import games
from protocol.codec import encode
from protocol.errors import Code
from protocol.messages import Error

if TYPE_CHECKING:
    from server.app import App

WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
JSON = "application/json"
CATALOGS = "/games/"
PROBES = ("/healthz", "/readyz", "/metrics")
# The page's policy: its own scripts, styles (CSSOM only, no inline ``style``), catalogs and WebSocket (``'self'``
# covers ws:/wss: of its own host), the ``data:`` favicon that spares a ``/favicon.ico`` request; never framed (a
# hostile site could trick a player into clicks at their table); no Referer (a private table's id is its invitation).
CSP = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
PAGE_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Frame-Options", "DENY"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)


def response(
    status: HTTPStatus, body: bytes, content_type: str = "text/plain; charset=utf-8", *extra: tuple[str, str]
) -> Response:
    """A response with ``Cache-Control: no-store`` unless ``extra`` headers say otherwise."""
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))), *extra])
    headers.setdefault("Cache-Control", "no-store")
    return Response(status.value, status.phrase, headers, body)


class CatalogFile(NamedTuple):
    """A game's catalog as served: the JSON body and its entity tag."""

    body: bytes
    etag: str


def catalogs() -> dict[str, CatalogFile]:
    """Every registered game's catalog by its path, encoded once."""
    served = {}
    for name, game in games().items():
        body = msgspec.json.encode(game.catalog)
        served[f"{CATALOGS}{name}.json"] = CatalogFile(body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')
    return served


def catalog_response(catalog: CatalogFile | None, request: Request) -> Response:
    """A catalog (revalidated on each use: it changes only when the server is upgraded, and then at once), 304
    when the client holds this very one, or the protocol's ``not_found`` error."""
    if catalog is None:
        return response(HTTPStatus.NOT_FOUND, encode(Error(code=Code.NOT_FOUND, message="no such game")), JSON)
    cache = ("Cache-Control", "no-cache"), ("ETag", catalog.etag)
    if request.headers.get("If-None-Match") == catalog.etag:
        return Response(HTTPStatus.NOT_MODIFIED.value, HTTPStatus.NOT_MODIFIED.phrase, Headers(cache), b"")
    return response(HTTPStatus.OK, catalog.body, JSON, *cache)


def static_file(root: Path, relative: str) -> Path | None:
    """The file ``relative`` under ``root``, or None when it does not exist, would leave ``root`` or is no path
    the file system takes (a name or path too long for it: ``is_file`` raises rather than answer False)."""
    if not root.is_dir() or "\x00" in relative:
        return None
    base = root.resolve()
    try:
        path = (base / relative.lstrip("/")).resolve()
        if not path.is_relative_to(base) or not path.is_file():
            return None
    except (OSError, ValueError):
        return None
    return path


def handler(app: App, web_root: Path = WEB_ROOT):  # type: ignore[no-untyped-def]
    served = catalogs()

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = unquote(request.path.split("?", 1)[0])
        if request.headers.get("Upgrade", "").lower() == "websocket" and path not in PROBES:
            return None
        if path == "/healthz":  # liveness: answered at all, by a loop that runs
            return response(HTTPStatus.OK, b"ok\n")
        if path == "/readyz":
            ready = await app.ready()
            return response(
                HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE, b"ok\n" if ready else b"store down\n"
            )
        if path == "/metrics":
            await app.watchdog.survey()
            return response(HTTPStatus.OK, app.metrics.render(), app.metrics.content_type)
        if path.startswith(CATALOGS):
            return catalog_response(served.get(path), request)
        file = None
        if path == "/":
            file = static_file(web_root, "index.html")
        elif path.startswith("/static/"):
            file = static_file(web_root, path.removeprefix("/static/"))
        if file is None:
            return response(HTTPStatus.NOT_FOUND, b"not found\n")
        content_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type.endswith(("javascript", "json")):
            content_type += "; charset=utf-8"
        return response(HTTPStatus.OK, file.read_bytes(), content_type, *PAGE_HEADERS)

    return process_request
