"""Finding a game in play from the lobby and watching it: the lobby's games in progress."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import other_tab
from tests.web.play import GAME_OVER, create_table, play_to_the_end

SEQ_PAST = "(seq) => Number(document.querySelector('.table-screen').dataset.seq) > seq"


async def test_a_game_in_play_is_found_in_the_lobby_and_watched(page: Any) -> None:
    """A spectator needed the table's id: the lobby listed only tables not yet started.  A public game started
    with three server-run bots is under "Games in progress" in another person's lobby, its Watch button shows its
    board as it is played, and the game over it leaves the list."""
    await page.fill("#player-name", "Ada")
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page)
    async with other_tab(page, viewport={"width": 1440, "height": 960}) as other:
        row = f"#playing-tables tr[data-table='{table}']"
        assert await other.locator(row).count() == 0  # not started: an open table, with a seat free
        await page.wait_for_selector("#start:not([disabled])")
        await page.click("#start")
        await page.wait_for_selector("svg.mansion-board")
        await other.wait_for_selector(row, timeout=10000)  # the lobby's next refresh
        names = await other.inner_text(f"{row} td:nth-child(3)")
        assert names == "Bot 1, Bot 2, Bot 3, Ada", names  # the bots named as at the table
        await other.click(f"{row} button")
        await other.wait_for_selector(f".table-screen[data-table='{table}'] svg.mansion-board")
        assert await other.locator("[data-action]").count() == 0  # a spectator: no choice offered
        seq = int(await other.get_attribute(".table-screen", "data-seq"))
        await play_to_the_end(page, 3)
        await other.wait_for_function(SEQ_PAST, arg=seq, timeout=10000)  # the board followed the play
        await other.wait_for_selector(GAME_OVER, timeout=10000)
        await other.click("text=Back to the lobby")
        await other.wait_for_selector("#playing-tables")
        await other.wait_for_selector(row, state="detached", timeout=10000)  # over: no longer in play, at the refresh
