"""The page under its own Content-Security-Policy in Chromium: each game drawn and played a few steps with no
violation (no inline style or script; its WebSocket and catalogs allowed by ``'self'``), a violation heard when
there is one, and the page refusing to be framed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.launch import ServerProcess
from tests.web.play import CHOICES, GAME_OVER, click_a_choice, create_table

# Every CSP violation of the tab's documents, from before their first script runs
LISTEN = """window.violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""
SEATS = {"mansion": 2, "spook": 1, "ghost-at-home": 2}


async def listening(tab: Any, url: str) -> None:
    """Open ``url`` in ``tab`` with every CSP violation noted in ``window.violations``."""
    await tab.add_init_script(LISTEN)
    await tab.goto(url)
    await tab.wait_for_selector("#create-form button#create")


@pytest.mark.parametrize("game", SEATS)
async def test_each_game_plays_under_the_policy(page: Any, server: ServerProcess, game: str) -> None:
    """The Ghost at Home board set its house count (a CSS variable) as a ``style`` attribute, which the policy
    refuses: on a phone the board lost its width.  Every style is now set through the CSSOM."""
    await listening(page, f"{server.http}/")
    await page.set_checked("#create-form input[name=bots]", True)
    await create_table(page, game, SEATS[game])
    await page.click("#start:not([disabled])")
    rng = random.Random(7)
    for _ in range(6):
        await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}", timeout=30000)
        if await page.is_visible(GAME_OVER):
            break
        await click_a_choice(page, rng, on_board=rng.random() < 0.7)
    assert await page.evaluate("window.violations") == []
    if game == "ghost-at-home":
        houses = "getComputedStyle(document.querySelector('svg.gah-board')).getPropertyValue('--houses').trim()"
        assert await page.evaluate(houses) == str(SEATS[game])


async def test_a_violation_is_heard_and_the_page_is_never_framed(page: Any, server: ServerProcess) -> None:
    """The listener above hears what the policy refuses: an inline style; and a site that frames the page (to
    trick a player into clicks at their table) gets an empty frame.  In a context of its own, whose console errors
    the ``page`` fixture does not count."""
    context = await page.context.browser.new_context()
    try:
        tab = await context.new_page()
        await listening(tab, f"{server.http}/")
        await tab.evaluate("document.body.setAttribute('style', 'color: red')")
        await tab.wait_for_function("() => window.violations.length > 0")
        assert [v.split()[0] for v in await tab.evaluate("window.violations")] == ["style-src-attr"]
        assert await tab.evaluate("getComputedStyle(document.body).color") != "rgb(255, 0, 0)"
        hostile = await context.new_page()
        await hostile.set_content(f'<iframe src="{server.http}/"></iframe>')  # (once the frame has loaded)
        assert [frame.url.split(":")[0] for frame in hostile.frames[1:]] == ["chrome-error"]  # refused
    finally:
        await context.close()
