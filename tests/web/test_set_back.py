"""A table its store sets back, in the browser: the page is told (an unsolicited ``not_found`` with the table's
``seq``, PROTOCOL.md), drops the updates after it and plays on from its snapshot there.  It showed "table gone",
stopped following, and every reconnect then resumed past the table's last update, refused: only a reload helped.
The store's side is simulated as in ``tests/server/test_set_back.py``: a copy of the table's keys put back."""

from __future__ import annotations

import asyncio
import random
import signal
from typing import Any

import redis

from clients.sdk import Client
from server.launch import ServerProcess
from tests.server.conftest import sync_redis  # noqa: F401  (the store the page's server uses)
from tests.server.drive import stored_seq
from tests.server.test_set_back import copy, put_back
from tests.web.play import CHOICES, GAME_OVER, assert_final_scores, click_a_choice, create_table, play_to_the_end
from tests.web.test_page import game_over


async def played_past_a_copy(page: Any, sync_redis: redis.Redis, seed: int) -> tuple[str, dict[str, bytes], int]:  # noqa: F811
    """A table of the page and a bot, started; its keys copied at the page's first decision (update ``at``), then
    played three updates further."""
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page)
    await page.wait_for_selector("#start:not([disabled])")
    await page.click("#start")
    await page.wait_for_selector(CHOICES)  # the page's decision: the bots wait for it
    older, at = copy(sync_redis, table), stored_seq(sync_redis, table)
    rng = random.Random(seed)
    while stored_seq(sync_redis, table) < at + 3:
        await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}")
        assert not await page.is_visible(GAME_OVER), "the game ended before the store was set back"
        await click_a_choice(page, rng, on_board=False)
    return table, older, at


async def finish(page: Any, server: ServerProcess, table: str, seed: int) -> None:
    """The page plays to the end: the final scores it shows are the table's, and no error."""
    async with Client(server.url, client="web-test-watcher") as watcher:
        await watcher.watch(table)
        ending = asyncio.create_task(game_over(watcher))
        try:
            await play_to_the_end(page, seed)
            result = await asyncio.wait_for(ending, 30)
        finally:
            ending.cancel()
    await assert_final_scores(page, result)
    assert await page.locator(".table-error, .error").count() == 0


async def test_the_page_plays_on_from_where_its_store_set_the_table_back(
    page: Any,
    server: ServerProcess,
    sync_redis: redis.Redis,  # noqa: F811
) -> None:
    table, older, at = await played_past_a_copy(page, sync_redis, 5)
    put_back(sync_redis, table, older)
    await finish(page, server, table, 6)
    assert [line["stored"] for line in server.log_lines() if line["event"] == "table_set_back"] == [at]


async def test_the_page_back_after_its_store_set_the_table_back_meanwhile_plays_on_from_there(
    page: Any,
    server: ServerProcess,
    sync_redis: redis.Redis,  # noqa: F811
) -> None:
    """Server and store restart, the store from an older copy: the page's resume after the reconnect, from the
    update it had, is past the table's last and refused with the table's ``seq`` (PROTOCOL.md); the page drops the
    updates after it and follows the table again from there (``Connection.follow``)."""
    table, older, _ = await played_past_a_copy(page, sync_redis, 7)
    await asyncio.to_thread(server.kill, signal.SIGKILL)
    await page.wait_for_selector("#conn-status[data-state=lost]")
    put_back(sync_redis, table, older)
    await asyncio.to_thread(server.start)
    await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
    await finish(page, server, table, 8)
    refused = [line for line in server.log_lines() if line["event"] == "command_rejected"]
    assert [line["code"] for line in refused] == ["bad_field"]  # the resume past the end, once
