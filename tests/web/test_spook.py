"""Spook in a real browser: the mansion map, a whole game clicked through (solo and with two seats), a spectator."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import msgspec
from msgspec import to_builtins

from engine.spook import GAME
from engine.spook.board import DOORS, WINGS
from server.launch import ServerProcess
from tests.server.players import close
from tests.web.conftest import screenshot
from tests.web.play import (
    GAME_OVER,
    MY_TURN,
    assert_final_scores,
    create_table,
    keyboard_turn,
    play_with,
    seat_sdk_players,
    shown_scores,
)

OTHER_PAWN = "svg.spook-board .pawn.selectable:not(.selected)"  # a pawn that may move instead of the one picked
STAIRCASE = "document.querySelector('svg.spook-board .staircase .place-name')"  # its name on the map
WING_LABELS = "els => els.map(e => e.textContent)"  # the wings' captions (a wing's name and its ghosts)


async def test_spook_two_seats_with_open_hands_and_a_spectator(page: Any, server: ServerProcess) -> None:
    await page.fill("#player-name", "Ada")
    await page.select_option("select[name=game]", "spook")
    assert not await page.is_checked("#create-form input[name=open_hands]")
    table = await create_table(page, "spook", 2, {"open_hands": True})
    players = await seat_sdk_players(server, table, 1)
    watcher = await page.context.browser.new_page()  # a context of its own: another visitor
    watcher_errors: list[str] = []
    watcher.on("pageerror", lambda exc: watcher_errors.append(str(exc)))
    try:
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("svg.spook-board")
        # open hands: the other seat's cards are face up in its row (S1), and so are they for a spectator
        assert await page.locator('.seat-row[data-seat="1"] .pcard-chip').count() == 3
        assert await page.locator("svg.spook-board .place.foyer .pawn").count() == 2  # S5
        assert await page.locator("svg.spook-board .place.staircase .pcard").count() == 1  # S6
        # the map drawn is the engine's: a door each (S4), a wing each (S3)
        assert await page.locator("svg.spook-board .door").count() == len(DOORS)
        wings = await page.eval_on_selector_all("svg.spook-board .wing-label", WING_LABELS)
        assert len(wings) == len(WINGS) and all(f"{wing} wing" in " ".join(wings) for wing in WINGS), wings

        await watcher.goto(f"{server.http}/#/table/{table}")
        await watcher.wait_for_selector("svg.spook-board")
        assert await watcher.text_content("#prompt .panel-kicker") == "Watching"
        assert await watcher.locator("#hand").count() == 0
        assert await watcher.locator('.seat-row[data-seat="0"] .pcard-chip').count() >= 1
        await screenshot(watcher, "spook-spectator")

        shots: set[str] = set()

        async def moments(clicks: int) -> None:
            if clicks == 4:
                await screenshot(page, "spook-mid")
            if "hunt" not in shots and await page.is_visible("#hunt"):
                shots.add("hunt")
                await screenshot(page, "spook-hunt")
            if "pawn" not in shots and await page.locator(OTHER_PAWN).count():
                # S10: any pawn may move; the one picked is the one whose doors the map offers
                shots.add("pawn")
                pawn = await page.get_attribute(f"{OTHER_PAWN} >> nth=0", "data-pawn")
                await page.click(f'{OTHER_PAWN}[data-pawn="{pawn}"]')
                await page.wait_for_selector(f'svg.spook-board .pawn.selected[data-pawn="{pawn}"]')
                await screenshot(page, "spook-pawn-picked")
            if "move" not in shots and await page.locator("svg.spook-board .place.target").count():
                shots.add("move")
                await screenshot(page, "spook-move")
            if clicks == 8:  # the board in French, then back
                await page.select_option("#lang", "fr")
                await page.wait_for_function(f"() => {STAIRCASE}.textContent === 'Escalier'")
                assert "aile ouest" in await page.text_content("svg.spook-board")
                await screenshot(page, "spook-fr")
                await page.select_option("#lang", "en")
                await page.wait_for_function(f"() => {STAIRCASE}.textContent === 'Staircase'")

        result, clicked = await play_with(page, players, 5, moments)
        await page.wait_for_selector("#outcome")
        await screenshot(page, "spook-over")
        await watcher.wait_for_selector(GAME_OVER)
        assert await shown_scores(watcher) == await shown_scores(page)
    finally:
        await watcher.close()
        await close(players)
    assert not watcher_errors, watcher_errors

    await assert_final_scores(page, result)
    assert "pawn" in shots
    # both ways of choosing were used; how often depends on the game's length (its seed is the table's, random:
    # a short game, lost in the page's second or third turn, leaves one or two moves on the board)
    assert clicked["board"] >= 1 and clicked["button"] >= 3, clicked
    won = bool(result["winners"])
    assert ("won" if won else "lost") in (await page.get_attribute("#outcome", "class")).split()
    assert ("Victory!" if won else "Defeat.") in await page.inner_text("#log")


async def test_solo_spook_turn_on_the_board(page: Any) -> None:
    """Spook allows one seat (S1); a turn on the board: draw (S8), roll (S10), a highlighted room moves the pawn
    through its door (S4), and the die shows the steps left."""
    await page.select_option("select[name=game]", "spook")
    # the form is drawn again once the game changes: S1 allows 1-4 seats
    seats = "[...document.querySelectorAll('select[name=seats] option')].map(o => o.value).join()"
    await page.wait_for_function(f"() => {seats} === '1,2,3,4'", timeout=5000)
    await create_table(page, "spook", 1)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("svg.spook-board")
    assert await page.locator("#hand .pcard-chip").count() == 3  # S5: three red cards
    await page.click("#prompt button:text('Draw a card')")
    await page.click("#prompt button:text('Roll the die')")
    await page.wait_for_selector("svg.spook-board .place.target")
    rolled = int((await page.text_content("svg.spook-board .info-line.strong")).split()[-1])
    # from the foyer the doors lead to the staircase, the Ace room, room 4 and the chapel
    targets = await page.eval_on_selector_all("svg.spook-board .place.target", "els => els.map(e => e.dataset.place)")
    assert sorted(targets) == sorted(["staircase", "1", "4", "10"])
    await page.click('svg.spook-board .place.target[data-place="4"] .place-bg')
    await page.wait_for_selector('svg.spook-board .place[data-place="4"] .pawn')
    assert await page.locator("svg.spook-board .place.foyer .pawn").count() == 0
    if rolled > 1:
        await page.wait_for_selector(f"svg.spook-board .info-line >> text={rolled - 1} door")
        await screenshot(page, "spook-solo")


def decisions(games: int, seats: int) -> list[dict[str, Any]]:
    """Every prompted seat's view and legal actions, as the server sends them, along random playouts."""
    found = []
    for seed in range(games):
        state = GAME.setup(seats, bytes([seed]), GAME.default_options(), "web")
        chooser = random.Random(seed)
        while GAME.result(state) is None:
            prompted = sorted(GAME.prompts(state))
            for seat in prompted:
                legal = to_builtins(GAME.legal_actions(state, seat))
                found.append({"me": seat, "view": to_builtins(GAME.view(state, seat)), "legal": legal})
            seat = chooser.choice(prompted)
            GAME.apply(state, seat, chooser.choice(GAME.legal_actions(state, seat)))
    return found


async def test_every_choice_is_on_the_board_or_a_big_button(page: Any) -> None:
    """Beyond the list of all choices: every legal action is a target on the map (for some pawn picked), a card
    of the hand, or a big button under the headline (a wing hunt, which random playouts seldom offer, is one)."""
    cases = decisions(12, 3)
    met = {a["type"] + a.get("kind", "") for case in cases for a in case["legal"]}
    assert met >= {"move", "huntnormal", "huntking", "lay_trap", "offer", "done", "draw", "roll", "end_turn"}
    script = """async (cases) => {
        const { default: renderer } = await import('/static/games/spook.js');
        const { t } = await import('/static/i18n.js');
        const catalog = await (await fetch('/games/spook.json')).json();
        return cases.map(({ me, view, legal }) => {
            const ctx = { me, view, catalog, choices: legal, drawing: {}, t, name: (s) => `Seat ${s + 1}`,
                          colour: () => '#888', ink: () => '#fff', swatch: () => document.createElement('span'),
                          redraw() {}, table: { prompts: [], log: [] } };
            const offered = new Set(legal.filter(renderer.primary).map((a) => JSON.stringify(a)));
            for (const pawn of [null, ...legal.filter((a) => a.type === 'move').map((a) => a.pawn)]) {
                ctx.drawing = { pawn };
                for (const el of [renderer.board(ctx), ...renderer.panels(ctx)]) {
                    for (const target of el.querySelectorAll('[data-action]')) offered.add(target.dataset.action);
                }
            }
            return legal.map((a) => JSON.stringify(a)).filter((a) => !offered.has(a));
        });
    }"""
    missing = await page.evaluate(script, cases)
    assert not any(missing), next(m for m in missing if m)


async def test_the_map_drawn_is_the_served_catalog(page: Any) -> None:
    """The page keeps no map of its own (S3, S4 live in the engine): served a catalog without the chapel's door
    to room 6 and with the east wing gone, it draws one door fewer and two wings."""
    catalog = json.loads(msgspec.json.encode(GAME.catalog))
    catalog["doors"].remove(["6", "10"])
    del catalog["wings"]["east"]
    await page.route("**/games/spook.json", lambda route: route.fulfill(json=catalog))
    await create_table(page, "spook", 1)
    await page.click("#start:not([disabled])")
    await page.wait_for_selector("svg.spook-board")
    assert await page.locator("svg.spook-board .door").count() == len(DOORS) - 1
    wings = await page.eval_on_selector_all("svg.spook-board .wing-label", WING_LABELS)
    assert len(wings) == 2 and "east wing" not in " ".join(wings), wings


async def test_a_keyboard_and_screen_reader_player_takes_a_turn(page: Any) -> None:
    """Spook's cards, pawns, the omen, a trap and the die were drawn glyphs and numbers: a screen reader read the map
    as "A Ace room 2 3 5 ♠ …", a pawn as a bare number, a hand seen from behind as "×3", an unrolled die's missing
    line as "null".  Each is one picture named
    in words ("5 of spades", "Ada's pawn", "3 cards in hand"), in French too; a whole turn is played with Tab and
    Enter or Space, each control pressed showing the focus."""
    await page.set_checked("#create-form input[name=bots]", True)
    await page.fill("#player-name", "Ada")
    await create_table(page, "spook", 2)
    await page.focus("#start:not([disabled])")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(MY_TURN)  # the die not rolled yet: its line of steps left was read as "null"
    assert "null" not in await page.locator("svg.spook-board").aria_snapshot()
    pressed = await keyboard_turn(page, "Ada ends the turn")
    assert "Roll the die" in pressed, pressed
    await screenshot(page, "spook-keyboard")

    heard = await page.locator(".table-screen").aria_snapshot()
    bare = [line for line in heard.splitlines() if line.strip().startswith("- text:") and set("♠♥♦♣♛") & set(line)]
    assert not bare, bare
    words = re.compile(r"^(\d+|Ace|Jack|Queen|King) of (spades|hearts|diamonds|clubs)$")
    hand = page.locator("#hand .spook-hand")  # its cards: pictures named in words or, once the bot's turn asks, choices
    assert await hand.get_by_role("img", name=words).count() + await hand.get_by_role("button").count() >= 3
    assert await page.locator("svg.spook-board").get_by_role("img", name=words).count() >= 1  # a ghost, at least
    for name in ("Ada's pawn", "Bot 1's pawn", "the Queen of ghosts"):
        assert await page.get_by_role("img", name=name, exact=True).count() == 1, name
    assert await page.get_by_role("img", name=re.compile(r"^The omen pawn")).count() == 1
    assert await page.get_by_role("img", name=re.compile(r"^\d+ cards? in hand$")).count() == 1  # the bot's
    assert await page.get_by_role("group", name="the foyer").count() == 1

    await page.select_option("#lang", "fr")
    mots = re.compile(r"^(\d+|As|Valet|Dame|Roi) de (pique|cœur|carreau|trèfle)$")
    await page.locator("#hand").get_by_role("img", name=mots).first.wait_for()
    assert await page.get_by_role("img", name="le pion d'Ada", exact=True).count() == 1
    assert await page.get_by_role("img", name=re.compile(r"^\d+ cartes? en main$")).count() == 1
