"""The lobby page and abandoned tables (``serve --abandoned-after``): the page's create-then-join keeps its table
listed as waiting while the tab is open (through a reconnect too), an empty table says nobody is there yet, and
both leave the list once abandoned — a table created and its tab closed, before anyone came, no longer lingers
there for a day."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import pytest

from clients.sdk import Client
from server.launch import ServerProcess
from tests.web.conftest import other_tab
from tests.web.play import create_table

AFTER = 3  # seconds (a note of presence each second)


async def listed(tab: Any) -> dict[str, str]:
    """The open tables the lobby shows: id → its status as said, once the page has listed them afresh."""
    await tab.click("#open-tables button")  # (refresh: the page lists every 5 s of its own)
    await asyncio.sleep(0.3)
    rows = await tab.eval_on_selector_all(
        "#open-tables tbody tr", "rows => rows.map(r => [r.dataset.table, r.cells[3].textContent])"
    )
    return dict(rows)


async def lists(tab: Any, expected: dict[str, str], within: float = 5.0) -> None:
    """The lobby comes to show ``expected`` within ``within`` seconds: a list's reply may take longer than a
    moment on a loaded machine, and a table that must stay never comes to match without it."""
    deadline = asyncio.get_running_loop().time() + within
    while (shown := await listed(tab)) != expected and asyncio.get_running_loop().time() < deadline:
        pass
    assert shown == expected


@pytest.mark.parametrize("server_args", [["--abandoned-after", str(AFTER)]])
async def test_a_table_left_by_its_tab_leaves_the_lobby(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    mine = await create_table(page, game="spook", seats=2)  # (created, then Ada sits)
    async with Client(server.url, client="web-test-creator") as creator:
        empty = await creator.create("spook", 2, bots=1)
    async with other_tab(page) as tab:
        await tab.wait_for_selector("#open-tables")
        await lists(tab, {mine: "waiting", empty: "nobody here yet"})
        await asyncio.sleep(AFTER + 1)
        await lists(tab, {mine: "waiting"})  # Ada's tab is open: she waits there
        await page.goto("about:blank")  # Ada's tab closed
        await asyncio.sleep(AFTER + 2)
        await lists(tab, {})


@pytest.mark.parametrize("server_args", [["--abandoned-after", str(AFTER)]])
async def test_a_table_waited_for_from_the_lobby_stays_listed_through_a_reconnect(
    page: Any, server: ServerProcess
) -> None:
    """Ada sits at her table and goes back to the lobby, her tab open: her connection still follows the table, so
    it is listed as waiting.  The server restarts and the page reconnects: it follows her seat again, though it
    is not the table shown (it was unlisted, abandoned, until she opened it again)."""
    await page.fill("#player-name", "Ada")
    mine = await create_table(page, game="spook", seats=2)
    await page.click("text=Back to the lobby")
    await page.wait_for_selector("#open-tables")
    await asyncio.to_thread(server.kill, signal.SIGKILL)
    await page.wait_for_selector("#conn-status[data-state=lost]")
    await asyncio.to_thread(server.start)
    await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
    await asyncio.sleep(AFTER + 2)
    async with other_tab(page) as tab:
        await tab.wait_for_selector("#open-tables")
        await lists(tab, {mine: "waiting"})


@pytest.mark.parametrize("server_args", [["--abandoned-after", str(AFTER)]])
async def test_a_table_waited_for_from_a_lobby_reloaded_stays_listed(page: Any, server: ServerProcess) -> None:
    """Ada sits at her table, goes back to the lobby and reloads it: the reloaded tab followed no seat until she
    opened the table again, so her table was abandoned and left the list while she waited for it there.  Now the
    lobby follows again, from its list, the seats this tab holds at open tables."""
    await page.fill("#player-name", "Ada")
    mine = await create_table(page, game="spook", seats=2)
    await page.click("text=Back to the lobby")
    await page.wait_for_selector("#open-tables")
    await page.reload()
    await page.wait_for_selector("#conn-status[data-state=online]")
    await page.wait_for_selector(f"#open-tables tr[data-table='{mine}']")
    await asyncio.sleep(AFTER + 2)
    async with other_tab(page) as tab:
        await tab.wait_for_selector("#open-tables")
        await lists(tab, {mine: "waiting"})


async def test_a_reconnect_takes_up_the_latest_seats_of_games_not_over(page: Any) -> None:
    """What ``refollow`` resumes: the seats joined or resumed, from the last update heard, the shown table's left
    to the page, a seat given back or at a game over left out, and only the latest 5 (a tab that sat at many
    tables in a day would spend its burst of messages on them, and its table's own resume be refused)."""
    script = """async () => {
        const { Connection } = await import('/static/net.js');
        const sent = [];
        const conn = new Connection('ws://unused', { onUpdate() {}, onStatus() {}, onReconnect() {}, onError() {} });
        conn.ws = { send: (frame) => sent.push(JSON.parse(frame)) };
        const ask = (msg, reply) => {
            const answered = conn.request(msg);
            conn.dispatch({ ...reply, ref: sent.at(-1).ref });
            return answered;
        };
        for (const id of ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8']) {
            const joined = { type: 'joined', table: id, seat: 0, token: 'k' + id, seq: 1 };
            await ask({ type: 'join', table: id, name: 'Ada' }, joined);
        }
        conn.dispatch({ type: 'events', table: 't7', seq: 4, events: [] });
        conn.dispatch({ type: 'game_over', table: 't6', seq: 9, result: {} });
        await ask({ type: 'leave', table: 't5', token: 'kt5' }, { type: 'left', table: 't5' });
        await ask({ type: 'resume', table: 't1', token: 'kt1' }, { type: 'snapshot', table: 't1', seq: 3 });
        sent.length = 0;
        conn.refollow('t4');
        return sent.map(({ type, table, token, last_seq }) => [type, table, token, last_seq]);
    }"""
    assert await page.evaluate(script) == [  # (t2, t3, t4, t7, t8, t1 followed, the latest last)
        ["resume", "t3", "kt3", 1],
        ["resume", "t7", "kt7", 4],
        ["resume", "t8", "kt8", 1],
        ["resume", "t1", "kt1", 3],
    ]
