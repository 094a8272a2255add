"""The table's chat on the page: a player says a line and sees the others' as text (never markup), a spectator
reads it, and the lines stay with the table from its seating to its board."""

from __future__ import annotations

from typing import Any

from clients.sdk import Client
from protocol.messages import Said
from server.launch import ServerProcess
from tests.server.players import close
from tests.web.conftest import screenshot, touch_tab
from tests.web.play import GAME_OVER, create_table, play_with, seat_sdk_players
from tests.web.test_mobile import PORTRAIT, audit

SHOWN_LINES = "() => [...document.querySelectorAll('.chat-lines li[data-n]')].map((li) => li.textContent)"
LINES_AT_LEAST = "(n) => document.querySelectorAll('.chat-lines li[data-n]').length >= n"
MARKUP = "<script>document.body.dataset.pwned = 1</script><img src=x onerror=alert(1)>"


async def next_said(client: Client) -> Said:
    while not isinstance(msg := await client.recv(timeout=10), Said):
        pass
    return msg


async def test_players_chat_as_text_and_a_spectator_reads(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    table = await create_table(page, seats=2)
    bob = Client(server.url, client="bob")
    await bob.connect()
    try:
        await bob.join(table, "Bob")
        await page.fill("#chat-text", MARKUP)
        await page.click("#chat-send")
        heard = await next_said(bob)
        assert (heard.seat, heard.name, heard.text) == (0, "Ada", MARKUP)
        await page.wait_for_function(LINES_AT_LEAST, arg=1)
        assert await page.input_value("#chat-text") == ""  # said: the field is cleared
        await bob.say(table, "<b>hello</b> & good luck")
        await page.wait_for_function(LINES_AT_LEAST, arg=2)
        assert await page.evaluate(SHOWN_LINES) == ["1Ada " + MARKUP, "2Bob <b>hello</b> & good luck"]
        markup = "() => document.querySelectorAll('.chat-lines script, .chat-lines img, .chat-lines b').length"
        assert await page.evaluate(markup) == 0  # shown as text: no element made of it
        assert await page.evaluate("() => document.body.dataset.pwned ?? null") is None
        async with touch_tab(page, PORTRAIT, 3) as phone:  # a spectator on a phone
            await phone.goto(f"{server.http}/#/table/{table}")
            await phone.wait_for_function(LINES_AT_LEAST, arg=2)  # the last lines, with the table
            assert await phone.locator("#chat-text").count() == 0  # a spectator reads, not writes
            await page.wait_for_selector("#start:not([disabled])")
            await page.click("#start")
            await page.wait_for_selector("svg.mansion-board")
            await page.fill("#chat-text", "your turn, Bob")
            await page.press("#chat-text", "Enter")
            await phone.wait_for_function(LINES_AT_LEAST, arg=3)  # live, beside the board and its log
            # (the swatch's 1: Ada's seat, as the page numbers seats)
            assert (await phone.evaluate(SHOWN_LINES))[-1] == "1Ada your turn, Bob"
            assert await phone.locator("#log").count() == 1
            await phone.locator("#chat").scroll_into_view_if_needed()
            await screenshot(phone, "chat-spectator-phone")
            await page.locator("#chat").scroll_into_view_if_needed()
            await screenshot(page, "chat-player")
            assert not await audit(phone)  # nothing wider than the phone, no word too small
        assert (await page.evaluate(SHOWN_LINES))[:2] == ["1Ada " + MARKUP, "2Bob <b>hello</b> & good luck"]
    finally:
        await bob.close()


async def test_after_the_final_scores_the_players_talk_on(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    table = await create_table(page, seats=2)
    players = await seat_sdk_players(server, table, 1)
    bob = players[0].client
    try:
        await page.click("#start:not([disabled])")
        await play_with(page, players, 3)
        await page.wait_for_selector(GAME_OVER)
        await page.fill("#chat-text", "good game!")  # (the chat beside the board, the scores shown)
        await page.click("#chat-send")
        assert (await next_said(bob)).text == "good game!"
        await bob.say(table, "again?")
        await page.wait_for_function(LINES_AT_LEAST, arg=2)
        assert [line[1:] for line in await page.evaluate(SHOWN_LINES)] == ["Ada good game!", "Spirit 1 again?"]
        assert await page.input_value("#chat-text") == ""
        await page.locator("#chat").scroll_into_view_if_needed()
        await screenshot(page, "chat-after-the-end")
    finally:
        await close(players)
