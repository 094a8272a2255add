"""The web page in a real browser: whole games played by clicking, a server restart, and the French switch."""

from __future__ import annotations

import asyncio
import hashlib
import re
import signal
from typing import Any, get_args

import msgspec

from clients.sdk import Client
from engine.ghost_at_home import cards as gah_cards
from engine.ghost_at_home import legal as gah_legal
from engine.ghost_at_home.events import Event as GahEvent
from engine.mansion.cards import DIAL_MAX, EVENT_NAMES, KIND_NAMES, ROOMS
from engine.spook import board as spook_board
from engine.spook import game as spook_game
from engine.spook.events import SpookEvent
from engine.spook.state import EndReason
from protocol.messages import GameOver
from server.launch import ServerProcess
from tests.server.players import close
from tests.web.conftest import screenshot
from tests.web.play import (
    GAME_OVER,
    assert_final_scores,
    create_table,
    exported,
    places,
    play_to_the_end,
    play_with,
    seat_sdk_players,
)


def tags(union: Any) -> list[str]:
    """The tags of a tagged union of msgspec structs (an engine's events)."""
    return [member.__struct_config__.tag for member in get_args(union)]


async def test_whole_game_against_three_bots(page: Any, server: ServerProcess) -> None:
    """Issue 4's play-alone path: a table created with the other seats filled by server-run bots, played to
    the end by clicking; the final scores shown are those a spectator receives."""
    await page.fill("#player-name", "Ada")
    await screenshot(page, "lobby")
    await page.set_checked("#create-form input[name=bots]", True)
    table = await create_table(page)
    assert await page.is_visible("text=Table " + table)

    async with Client(server.url, client="web-test-watcher") as watcher:
        lobby = await watcher.watch(table)
        ending = asyncio.create_task(game_over(watcher))
        await page.wait_for_selector("#start:not([disabled])")
        await screenshot(page, "seating")
        await page.click("#start")
        await page.wait_for_selector("svg.mansion-board")
        # the board drawn is the engine's (the catalog's): the rooms clockwise (M1)
        drawn = await page.eval_on_selector_all("svg.mansion-board .room", "els => els.map(e => e.dataset.room)")
        assert drawn == list(ROOMS)

        async def moments(clicks: int) -> None:
            if clicks == 15:
                await screenshot(page, "mid-game")
            if await page.is_visible(".duel-panel .dial-wedge.target"):
                assert await page.locator(".duel-panel .dial-wedge").count() == DIAL_MAX + 1  # M17: bids 0-3
                await screenshot(page, "duel")

        try:
            clicked = await play_to_the_end(page, 7, moments)
            result = await asyncio.wait_for(ending, 30)
        finally:
            ending.cancel()
    await screenshot(page, "game-over")
    await assert_final_scores(page, result)
    # the seed's inputs (M30): the secret shown opens the lobby's commitment, the page found its own nonce
    shown = await page.inner_text(GAME_OVER)
    secret = re.search(r"table's secret ([0-9a-f]{64})", shown)
    assert secret and hashlib.sha256(bytes.fromhex(secret[1]) + table.encode()).hexdigest() == lobby.secret_commitment
    assert re.search(r"Your nonce [0-9a-f]{32} is among them", shown), shown
    # and the page checked the seed against both commitments itself (SHA-256 in the browser, M30)
    assert await page.locator(f"{GAME_OVER} [data-check]").evaluate_all("ps => ps.map(p => p.dataset.check)") == [
        "ok",
        "ok",
    ]
    # both ways of choosing were used: the board's targets and the buttons
    assert clicked["board"] >= 5 and clicked["button"] >= 5, clicked
    # the log told the story in words, up to the end
    log = await page.inner_text("#log")
    assert "The game begins." in log and "Final scores:" in log


async def game_over(client: Client) -> dict[str, Any]:
    """The result of the first ``game_over`` the client receives."""
    async for msg in client:
        if isinstance(msg, GameOver):
            result: dict[str, Any] = msgspec.to_builtins(msg.result)
            return result
    raise AssertionError("the connection ended before the game did")


async def test_the_page_rides_out_a_server_restart(page: Any, server: ServerProcess) -> None:
    """The server dies mid-game (kill -9) and comes back: the page reconnects, resumes its seat, and plays on."""
    table = await create_table(page, seats=2)
    players = await seat_sdk_players(server, table, 1)
    try:
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("svg.mansion-board")
        await asyncio.to_thread(server.kill, signal.SIGKILL)  # off the loop: the SDK player shares it
        await page.wait_for_selector("#conn-status[data-state=lost]")
        await asyncio.to_thread(server.start)
        await page.wait_for_selector("#conn-status[data-state=online]", timeout=20000)
        result, _ = await play_with(page, players, 11)
    finally:
        await close(players)
    await assert_final_scores(page, result)


async def test_the_final_places_follow_each_games_tie_break(page: Any) -> None:
    """The final scores were in the order of the scores alone, numbered 1, 2, 3 …: a Call of the Spirits winner
    tied on score (M22: the lower Haunt total wins) could be listed second, below the seat it beat, and two seats
    tied on score got places of their own (49 and 49 shown 2nd and 3rd, the 3rd with the lower Haunt total).  The
    winners come first, then the scores, then the game's tie-break; seats equal on all three share a place."""
    script = """async ([game, result]) => {
        const { places } = await import('/static/table.js');
        const renderer = await (await import('/static/games/index.js')).rendererFor(game);
        return places(result, renderer.tiebreak(result)).map(({ seat, place }) => [seat, place]);
    }"""
    cases = [
        ("mansion", [49, 65, 49, 3], [1], [17, 10, 16, 4], [(1, 1), (2, 2), (0, 3), (3, 4)]),
        ("mansion", [50, 50, 20], [1], [9, 5, 1], [(1, 1), (0, 2), (2, 3)]),  # the winner by M22, seat 1
        ("mansion", [50, 50, 20, 20], [0, 1], [5, 5, 3, 3], [(0, 1), (1, 1), (2, 3), (3, 3)]),  # still tied: shared
        ("ghost-at-home", [6, 6, 2], [1], None, [(1, 1), (0, 2), (2, 3)]),  # G11: the seat that escaped
        ("spook", [0, 0, 0], [], None, [(0, 1), (1, 1), (2, 1)]),  # lost together
    ]
    for game, scores, winners, totals, expected in cases:
        result: dict[str, Any] = {"scores": scores, "winners": winners, "seed": "00"}
        if totals is not None:
            result["reveal"] = {"haunt_totals": totals}
        assert [tuple(p) for p in await page.evaluate(script, [game, result])] == expected == places(result)


async def test_french_switch(page: Any) -> None:
    assert await page.inner_text("#create-form h2") == "New table"
    await page.select_option("#lang", "fr")
    await page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert await page.inner_text("#create-form h2") == "Nouvelle table"
    assert await page.inner_text("#create") == "Créer et s'asseoir"
    assert await page.inner_text("#lang-label") == "Langue"
    await screenshot(page, "lobby-fr")

    await create_table(page)
    assert await page.inner_text("#start") == "Lancer la partie"
    assert "Places prises\u00a0: 1 sur 4." in await page.inner_text(".seating")

    (tables,) = await exported(page, "i18n.js", "TABLES")
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
    # Spook and Ghost at Home: every location, wing, rank, card kind, prompt, end and event has its words (an
    # event's key may come in variants: ``spook.log.card_drawn_hidden`` …)
    for names, prefix in (
        (spook_board.LOCATIONS, "spook.place."),
        (spook_board.WINGS, "spook.wing."),
        (("A", "J", "Q", "K"), "spook.rank."),
        (("A", "J", "Q", "K"), "spook.rank_name."),  # a card in words, for a screen reader
        (("S", "H", "D", "C"), "spook.suit."),
        (spook_game.TIMEOUT_ACTIONS, "spook.prompt."),
        (get_args(EndReason), "spook.reason."),
        (tags(SpookEvent), "spook.log."),
        (set(gah_cards.KIND), "gah.card."),
        (gah_legal.PROMPT_KIND.values(), "gah.prompt."),
        (tags(GahEvent), "gah.log."),
    ):
        for name in names:
            assert any(key == prefix + name or key.startswith(f"{prefix}{name}_") for key in en), prefix + name
    assert [fr[f"spook.title.{place}"] for place in ("foyer", "staircase")] == ["Foyer", "Escalier"]  # the seed's
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
