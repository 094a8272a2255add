"""The page's socket during a game: it asks for its seat's view with every update (``hello`` ``views``), so it
sends no ``resume`` (nor ``watch``) to refresh its picture after each update, as it did once per update at which
its seat owed no decision: three requests, each a store read and a snapshot, per update at a table of four."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import msgspec

from clients.sdk import Client
from protocol.messages import Events, GameOver
from server.launch import ServerProcess
from tests.web.play import create_table, play_to_the_end
from tests.web.test_proxy import path_proxy


def count_frames(page: Any) -> tuple[Counter[str], Counter[str]]:
    """The page's WebSocket frames from now on, by ``type``: those it sends, those it receives."""
    sent: Counter[str] = Counter()
    received: Counter[str] = Counter()

    def tally(counter: Counter[str]) -> Any:
        return lambda payload: counter.update([json.loads(payload)["type"]])

    page.on("websocket", lambda ws: (ws.on("framesent", tally(sent)), ws.on("framereceived", tally(received))))
    return sent, received


async def test_a_game_against_three_bots_sends_no_resume(page: Any, server: ServerProcess) -> None:
    """A whole game against three server-run bots: the page sends actions only, and the board it draws at the end
    is the last update's (which the page's seat did not decide: its view came with it, as asked)."""
    sent, received = count_frames(page)
    await page.reload()  # (the socket opened with the page: counted from a fresh one)
    await page.wait_for_selector("#create-form button#create")
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page)
    async with Client(server.url, client="web-test-watcher", views=True) as watcher:
        await watcher.watch(table)
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("svg.mansion-board")
        before = sent.copy()
        await play_to_the_end(page, 3)
        last = await last_view(watcher)
    during = sent - before
    assert received["events"] > 50, received  # a whole game, most updates the bots'
    assert during["resume"] == 0 and during["watch"] == 0, during
    assert during["act"] > 0 and set(during) == {"act"}, during
    assert last["phase"] == "over"
    decks = f"Ghost deck {last['ghost_deck']} · Haunt deck {last['haunt_deck']}"
    assert await page.text_content("svg.mansion-board .decks >> nth=1") == decks


async def last_view(client: Client) -> dict[str, Any]:
    """The view of the last update a ``views`` client receives (its ``game_over`` follows it)."""
    view = None
    async for msg in client:
        if isinstance(msg, Events) and msg.view is not None:
            view = msg.view
        if isinstance(msg, GameOver):
            assert view is not None
            return msgspec.to_builtins(view)  # type: ignore[no-any-return]
    raise AssertionError("the connection ended before the game did")


def as_before_views(message: Any) -> str | None:
    """A server from before ``views`` refuses the field (``bad_field``), leaving the connection open, not greeted."""
    if '"views"' not in message:
        return None
    return json.dumps({"type": "error", "code": "bad_field", "message": "Object contains unknown field `views`"})


async def test_a_server_from_before_views_still_shows_the_table(page: Any, server: ServerProcess) -> None:
    """Mixed versions (a rolling upgrade, a rollback): the page says hello again without ``views`` and asks for a
    snapshot when its view falls behind, as it did before; the game plays to the end."""
    sent, _ = count_frames(page)
    async with path_proxy(server, as_before_views) as address:
        await page.goto(address)
        await page.wait_for_selector("#create-form button#create")
        await page.set_checked("#create-form input[name=bots]", True)
        await create_table(page)
        await page.click("#start:not([disabled])")
        await play_to_the_end(page, 5)
    assert sent["hello"] == 2 and sent["resume"] > 0, sent
