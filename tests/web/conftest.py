"""A real browser (Debian's chromium driven by Playwright) on the page of a real ``hauntd serve``.

The server fixtures are the server tests' own (embedded Valkey, ``hauntd serve`` subprocesses); the browser
tests run on the embedded Valkey only, since the page never sees which store the server uses.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from server.launch import ROOT, ServerProcess
from tests.server.conftest import ServerFactory, start_server, valkey_url  # noqa: F401  (the server tests' fixtures)

CHROMIUM = Path(os.environ.get("HAUNTD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "artifacts" / "web"


@pytest.fixture(scope="session")
def store_url(valkey_url: str) -> str:  # noqa: F811  (overrides the server tests' store list)
    return valkey_url


@pytest.fixture
def server_args() -> list[str]:
    """Extra ``hauntd serve`` flags; a test parametrizes this to start the page's server differently."""
    return []


@pytest.fixture
def server(start_server: ServerFactory, server_args: list[str]) -> ServerProcess:  # noqa: F811
    return start_server(*server_args)


@pytest.fixture
async def page(server: ServerProcess) -> AsyncIterator[Any]:
    """A 1440×960 tab on the server's page; any uncaught page error or console error fails the test (but a
    refused connection, which a test that stops the server or keeps the page out of reach causes on purpose)."""
    playwright = pytest.importorskip("playwright.async_api")
    if not CHROMIUM.exists():
        pytest.skip(f"no chromium at {CHROMIUM} (set HAUNTD_CHROMIUM)")
    errors: list[str] = []
    async with playwright.async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            tab = await browser.new_page(viewport={"width": 1440, "height": 960})
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            tab.on("console", lambda msg: errors.append(msg.text) if _unexpected(msg) else None)
            await tab.goto(f"{server.http}/")
            await tab.wait_for_selector("#create-form button#create")
            yield tab
        finally:
            await browser.close()
    assert not errors, errors


REFUSED = ("ERR_CONNECTION_REFUSED", "Unexpected response code: 503")  # the server down; out of reach (a relay's 503)


@asynccontextmanager
async def other_tab(page: Any, **context: Any) -> AsyncIterator[Any]:
    """Another person's tab (a browser context of its own, ``context`` its options) next to ``page``, on the same
    server's page, in its lobby; its uncaught errors and console errors fail the test too."""
    errors: list[str] = []
    browser = await page.context.browser.new_context(**context)
    try:
        tab = await browser.new_page()
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.on("console", lambda msg: errors.append(msg.text) if _unexpected(msg) else None)
        await tab.goto(page.url.split("#")[0])
        await tab.wait_for_selector("#create-form button#create")
        yield tab
    finally:
        await browser.close()
    assert not errors, errors


@asynccontextmanager
async def touch_tab(page: Any, viewport: dict[str, int], scale: float = 1) -> AsyncIterator[Any]:
    """A phone's tab (a touch screen, ``viewport`` CSS px, ``scale`` device px a CSS px) next to ``page``, on the same
    server's page; its uncaught errors and console errors fail the test too."""
    async with other_tab(page, viewport=viewport, device_scale_factor=scale, is_mobile=True, has_touch=True) as tab:
        yield tab


def _unexpected(msg: Any) -> bool:
    return bool(msg.type == "error" and not any(refused in msg.text for refused in REFUSED))


async def screenshot(page: Any, name: str) -> Path:
    """Save the tab as ``artifacts/web/<name>.png`` (git-ignored) and return the path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path
