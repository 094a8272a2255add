"""Play again from the page: after the final scores, the rematch asked for, or joined once another seat asked."""

from __future__ import annotations

from typing import Any

from clients.sdk import Client
from protocol.messages import Rematched
from server.launch import ServerProcess
from tests.server.players import close
from tests.web.play import GAME_OVER, create_table, play_to_the_end, play_with, seat_sdk_players

SHOWN_TABLE = ".table-screen[data-table]"


async def shown_table(page: Any, other_than: str) -> str:
    """The id of the table the page shows, once it is another than ``other_than``."""
    await page.wait_for_function(
        "(old) => { const el = document.querySelector('.table-screen'); return el && el.dataset.table !== old; }",
        arg=other_than,
        timeout=10000,
    )
    table: str = await page.get_attribute(SHOWN_TABLE, "data-table")
    return table


async def test_play_again_with_three_bots_starts_a_new_table_with_them(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    await page.set_checked("#create-form input[name=bots]", True)
    old = await create_table(page)
    await page.click("#start:not([disabled])")
    await play_to_the_end(page, 3)
    await page.click("#rematch button:text('Play again')")
    new = await shown_table(page, old)
    await page.click("#start:not([disabled])")  # (every seat taken: the bots, and Ada in the seat she had)
    await page.wait_for_selector("svg.mansion-board")
    async with Client(server.url, client="web-test-watcher") as watcher:
        snapshot = await watcher.watch(new)
        before = await watcher.watch(old)
    assert snapshot.status == "playing" and snapshot.game == "mansion"
    assert [(s.bot, s.name) for s in snapshot.seats] == [(s.bot, s.name) for s in before.seats]
    assert [s.bot for s in snapshot.seats] == [True, True, True, False]
    assert before.rematch == new  # (a spectator of a public table is told it)


async def test_another_seat_asked_first_the_page_says_who_and_joins(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    old = await create_table(page, seats=2)
    players = await seat_sdk_players(server, old, 1)
    try:
        await page.click("#start:not([disabled])")
        await play_with(page, players, 5)
        await page.wait_for_selector(GAME_OVER)
        asked = await players[0].client.rematch(old)
        assert isinstance(asked, Rematched)
        await page.wait_for_selector("#rematch:has-text('Spirit 1 wants to play again.')")
        await page.click("#rematch button:text('Join')")
        assert await shown_table(page, old) == asked.rematch
        await page.wait_for_selector("#start")  # (seated: the start waits for the other seat)
        spectator = Client(server.url, client="web-test-watcher")
        await spectator.connect()
        seats = (await spectator.watch(asked.rematch)).seats
        await spectator.close()
        mine = 1 - players[0].seat
        assert seats[mine].name == "Ada" and seats[players[0].seat].name is None  # Ada in the seat she had
    finally:
        await close(players)
