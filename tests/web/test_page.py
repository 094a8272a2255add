"""The web page in a real browser: a whole Call of the Spirits game played by clicking, and the French switch."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from clients.sdk import Client
from engine.mansion.cards import EVENT_NAMES, KIND_NAMES, ROOMS
from server.launch import ServerProcess
from tests.server.players import Player, close
from tests.web.conftest import screenshot

# What the page offers as a choice: board targets (SVG) and buttons, each carrying its legal action.
CHOICES = "[data-action]"
GAME_OVER = "#final-scores"


async def seat_sdk_players(server: ServerProcess, table: str, count: int) -> list[Player]:
    """Random players over the SDK in the other seats.

    TODO(bots): once the server fills seats with its own bots, tick the page's "Fill the other seats with bots"
    box (``bots: 3``) in ``test_whole_game_by_clicking`` and drop these players.
    """
    players = []
    for i in range(count):
        client = Client(server.url, client=f"web-test-{i}")
        await client.connect()
        held = await client.join(table, f"Spirit {i + 1}")
        players.append(Player(client, table, held.seat, random.Random(i)))
    return players


async def click_a_choice(page: Any, rng: random.Random, on_board: bool) -> str:
    """Click one offered choice at random, on the board (SVG) or a button as asked when both exist; returns
    ``"board"`` or ``"button"``."""
    kinds = await page.eval_on_selector_all(CHOICES, "els => els.map(e => e instanceof SVGElement)")
    board = [i for i, svg in enumerate(kinds) if svg]
    buttons = [i for i, svg in enumerate(kinds) if not svg]
    pool = (board if on_board else buttons) or board or buttons
    index = rng.choice(pool)
    acts = await page.get_attribute("body", "data-acts")
    await page.locator(CHOICES).nth(index).click(timeout=5000)
    await page.wait_for_function(f"document.body.dataset.acts !== {acts!r}", timeout=5000)
    return "board" if index in board else "button"


async def test_whole_game_by_clicking(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    await screenshot(page, "lobby")
    await page.click("#create")
    await page.wait_for_selector(".table-screen[data-table]")
    table = await page.get_attribute(".table-screen", "data-table")
    assert table and await page.is_visible("text=Table " + table)

    players = await seat_sdk_players(server, table, 3)
    try:
        await page.wait_for_selector("#start:not([disabled])")
        await screenshot(page, "seating")
        await page.click("#start")
        await page.wait_for_selector("svg.mansion-board")
        tasks = [asyncio.create_task(p.run()) for p in players]

        rng = random.Random(7)
        clicked = {"board": 0, "button": 0}
        shots: set[str] = set()
        while True:
            await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}", timeout=30000)
            if await page.is_visible(GAME_OVER):
                break
            if "duel" not in shots and await page.is_visible(".duel-panel .dial-wedge.target"):
                await screenshot(page, "duel")
                shots.add("duel")
            kind = await click_a_choice(page, rng, on_board=sum(clicked.values()) % 2 == 0)
            clicked[kind] += 1
            if sum(clicked.values()) == 15:
                await screenshot(page, "mid-game")
        await screenshot(page, "game-over")
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
    finally:
        await close(players)

    result = players[0].result
    assert result is not None
    scores, winners = result.result["scores"], result.result["winners"]
    rows = page.locator(f"{GAME_OVER} tbody tr")
    assert await rows.count() == 4
    shown = {
        int(await rows.nth(i).get_attribute("data-seat")): int(await rows.nth(i).get_attribute("data-score"))
        for i in range(4)
    }
    assert shown == dict(enumerate(scores))
    winner_rows = page.locator(f"{GAME_OVER} tbody tr.winner")
    assert sorted([int(await winner_rows.nth(i).get_attribute("data-seat")) for i in range(len(winners))]) == winners
    assert await winner_rows.count() == len(winners)
    assert result.result["seed"] in await page.inner_text(GAME_OVER)
    # both ways of choosing were used: the board's targets and the buttons
    assert clicked["board"] >= 5 and clicked["button"] >= 5, clicked
    # the log told the story in words, up to the end
    log = await page.inner_text("#log")
    assert "The game begins." in log and "Final scores:" in log


async def test_any_game_by_its_buttons(page: Any) -> None:
    """A game without a drawing of its own (solo Spook) is still played to its end with the generic buttons."""
    await page.select_option("select[name=game]", "spook")
    await page.select_option("select[name=seats]", "1")
    await page.click("#create")
    await page.click("#start:not([disabled])")
    await page.wait_for_selector(".no-board")
    rng = random.Random(3)
    clicks = 0
    while True:
        await page.wait_for_selector(f"{GAME_OVER}, {CHOICES}", timeout=30000)
        if await page.is_visible(GAME_OVER):
            break
        assert await click_a_choice(page, rng, on_board=False) == "button"
        clicks += 1
    assert clicks > 0
    assert await page.locator(f"{GAME_OVER} tbody tr").count() == 1
    assert "game over" in await page.inner_text("#log")


async def test_french_switch(page: Any) -> None:
    assert await page.inner_text("#create-form h2") == "New table"
    await page.select_option("#lang", "fr")
    await page.wait_for_function("document.documentElement.lang === 'fr'")
    assert await page.inner_text("#create-form h2") == "Nouvelle table"
    assert await page.inner_text("#create") == "Créer et s'asseoir"
    assert await page.inner_text("#lang-label") == "Langue"
    await screenshot(page, "lobby-fr")

    await page.click("#create")
    await page.wait_for_selector("#start")
    assert await page.inner_text("#start") == "Lancer la partie"
    assert "Places prises : 1 sur 4." in await page.inner_text(".seating")

    tables = await page.evaluate("async () => { const m = await import('/static/i18n.js'); return m.TABLES; }")
    en, fr = tables["en"], tables["fr"]
    assert set(en) == set(fr)
    assert all(value.strip() for value in fr.values())
    for names, prefixes in (
        (ROOMS, ["mansion.room."]),
        (KIND_NAMES, ["mansion.card."]),
        (EVENT_NAMES, ["mansion.event.", "mansion.condition."]),
    ):
        for name in names:
            for prefix in prefixes:
                assert prefix + name in en, prefix + name
    # M1: the French room names of the rules file
    rooms_fr = [fr[f"mansion.room.{room}"].lower() for room in ROOMS]
    assert rooms_fr == [
        "crypte",
        "cimetière",
        "grenier",
        "salle de bal",
        "salle à manger",
        "bibliothèque",
        "salle de musique",
    ]

    await page.select_option("#lang", "en")
    assert await page.inner_text("#start") == "Start the game"
