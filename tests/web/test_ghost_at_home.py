"""Ghost at Home in a real browser: the houses, a card picked then aimed, a whole game clicked through."""

from __future__ import annotations

import json
import random
import re
from typing import Any, get_args

import msgspec
from msgspec import to_builtins

from engine.ghost_at_home import GAME
from engine.ghost_at_home.actions import Action
from engine.ghost_at_home.cards import BULBS, KIND
from server.launch import ServerProcess
from tests.server.players import close
from tests.web.conftest import screenshot
from tests.web.play import assert_final_scores, create_table, keyboard_turn, play_with, seat_sdk_players

# The actions that need a place on the board are those naming a floor or a house (a room space, a floor, a
# house); the rest are the hand's cards and buttons.  SOURCED: the specials that first pick the piece they move.
TARGETED = {m.__struct_config__.tag for m in get_args(Action) if {"floor", "target"} & set(m.__struct_fields__)}
SOURCED = {m.__struct_config__.tag for m in get_args(Action) if "source_floor" in m.__struct_fields__}
CATALOG = "/games/ghost-at-home.json"
# every card drawn, in the hand (HTML) and on the board (SVG): its id, the bulbs it shows and its kind
DRAWN_CARDS = """() => [
    ...[...document.querySelectorAll('#hand .gcard-chip')].map((e) => [e, e.querySelector('.bulbs').textContent]),
    ...[...document.querySelectorAll('svg.gah-board .gcard')].map((e) => [e, e.querySelectorAll('.bulb-dot')]),
].map(([e, bulbs]) => [Number(e.dataset.card), bulbs.length, e.classList[1]])"""


async def drawn_cards(page: Any) -> list[tuple[int, int, str]]:
    """(card, bulbs shown, kind) of every card on the page."""
    return [tuple(card) for card in await page.evaluate(DRAWN_CARDS)]


async def test_ghost_at_home_two_seats(page: Any, server: ServerProcess) -> None:
    catalogs: list[str] = []  # the page asks for the game's catalog once, however often it draws
    page.on("request", lambda request: catalogs.append(request.url) if request.url.endswith(CATALOG) else None)
    await page.fill("#player-name", "Ada")
    table = await create_table(page, "ghost-at-home", 2, {"max_rounds": 20})  # a short game: at most 20 rounds
    players = await seat_sdk_players(server, table, 1)
    try:
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("svg.gah-board")
        assert await page.locator("svg.gah-board .house").count() == 2
        assert await page.text_content('svg.gah-board .house[data-seat="0"] .house-name') == "Your house"
        assert await page.locator("svg.gah-board .floor.lit").count() == 0  # G3: every light off at the start
        assert await page.locator("#hand .gcard-chip").count() == 3

        shots: set[str] = set()

        async def moments(clicks: int) -> None:
            if "pick" not in shots and await page.locator("#hand .gcard-chip.pickable").count():
                # a card picked in the hand becomes the one whose targets the board shows
                shots.add("pick")
                card = await page.get_attribute("#hand .gcard-chip.pickable >> nth=0", "data-card")
                await page.click(f'#hand .gcard-chip[data-card="{card}"]')
                await page.wait_for_selector(f'#hand .gcard-chip.picked[data-card="{card}"]')
                await screenshot(page, "gah-picked")
            if clicks == 6:
                await screenshot(page, "gah-mid")
            if clicks % 4 == 0:  # each card drawn shows the engine's bulbs and kind (G1, G2)
                assert all((bulbs, kind) == (BULBS[card], KIND[card]) for card, bulbs, kind in await drawn_cards(page))
            for panel in ("attack", "escape"):
                if panel not in shots and await page.is_visible(f"#{panel}"):
                    shots.add(panel)
                    await screenshot(page, f"gah-{panel}")

        result, clicked = await play_with(page, players, 9, moments)
        await page.wait_for_selector("#outcome")
        await screenshot(page, "gah-over")
    finally:
        await close(players)

    assert "pick" in shots
    assert len(catalogs) == 1, catalogs
    await assert_final_scores(page, result)
    # both ways of choosing were used; a short game (its seed is the table's, random) leaves as few as 9 decisions,
    # board picks only every other one
    assert clicked["board"] >= 1 and clicked["button"] >= 1, clicked
    log = await page.inner_text("#log")
    assert "Round 1: Spirit 1's turn." in log and ("escapes and wins!" in log or "Round limit:" in log)


def decisions(games: int, seats: int) -> list[dict[str, Any]]:
    """The deciding seat's view and legal actions, as the server sends them, along random playouts: every
    decision offering a special that moves a piece, and one in eight of the others."""
    found = []
    for seed in range(games):
        state = GAME.setup(seats, bytes([seed]), GAME.default_options(), "web")
        chooser = random.Random(seed)
        while GAME.result(state) is None:
            (seat,) = GAME.prompts(state)
            legal = GAME.legal_actions(state, seat)
            if any(type(a).__struct_config__.tag in SOURCED for a in legal) or chooser.random() < 1 / 8:
                found.append({"me": seat, "view": to_builtins(GAME.view(state, seat)), "legal": to_builtins(legal)})
            GAME.apply(state, seat, chooser.choice(legal))
    return found


async def test_every_targeted_choice_has_its_place_on_the_board(page: Any) -> None:
    """A card then its place (G4–G8): for every hand card picked (and, for a special that moves a piece, every
    piece picked), the board's targets together offer every legal action that needs a place, and nothing else."""
    cases = decisions(12, 3)
    assert sum(any(a["type"] in SOURCED for a in case["legal"]) for case in cases) >= 5  # specials were met
    script = """async (cases) => {
        const { targets } = await import('/static/games/ghost-at-home.js');
        const catalog = await (await fetch('/games/ghost-at-home.json')).json();
        return cases.map(({ me, view, legal }) => {
            const offered = new Set();
            const ctx = { me, view, catalog, choices: legal, drawing: {} };
            for (const card of [null, ...view.players[me].hand]) {
                ctx.drawing = { card, source: null };
                for (const source of [null, ...Object.keys(targets(ctx).sources)]) {
                    ctx.drawing = { card, source };
                    const marks = targets(ctx);
                    for (const a of [...Object.values(marks.floors), ...Object.values(marks.spaces)]) {
                        offered.add(JSON.stringify(a));
                    }
                }
            }
            return [...offered].sort();
        });
    }"""
    offered = await page.evaluate(script, cases)
    for case, shown in zip(cases, offered, strict=True):
        needed = sorted(json.dumps(a, separators=(",", ":")) for a in case["legal"] if a["type"] in TARGETED)
        assert shown == needed, (case["view"]["phase"], case["legal"])


async def test_the_cards_drawn_are_the_served_catalog(page: Any, server: ServerProcess) -> None:
    """The page keeps no card data of its own (G1, G2 live in the engine): served a catalog whose every card
    shows 4 bulbs, which no card of G2 does, it draws 4 bulbs on every card."""
    catalog = json.loads(msgspec.json.encode(GAME.catalog))
    for card in catalog["cards"]:
        card["bulbs"] = 4
    await page.route(f"**{CATALOG}", lambda route: route.fulfill(json=catalog))
    table = await create_table(page, "ghost-at-home", 2)
    players = await seat_sdk_players(server, table, 1)
    try:
        await page.click("#start:not([disabled])")
        await page.wait_for_selector("#hand .gcard-chip")
        drawn = await drawn_cards(page)
    finally:
        await close(players)
    assert len(drawn) == 3 and all(bulbs == 4 and kind == KIND[card] for card, bulbs, kind in drawn), drawn


async def test_a_keyboard_and_screen_reader_player_takes_a_turn(page: Any) -> None:
    """Ghost at Home's houses were read as a run of numbers ("Bot 1 3 3 2 2 2 1 1 1"), its cards and pieces not at
    all: each house and floor is now a named group, each card, ghost, cat, lamp and pile one picture named in words
    ("Floor-2 room · 1 bulb", "Light off", "5 cards face down"), in French too; a card to aim says so; a whole turn
    is played with Tab and Enter or Space, each control pressed showing the focus."""
    await page.set_checked("#create-form input[name=bots]", True)
    await page.fill("#player-name", "Ada")
    await create_table(page, "ghost-at-home", 2)
    await page.focus("#start:not([disabled])")
    await page.keyboard.press("Enter")
    pressed = await keyboard_turn(page, "/Ada draws|Ada escapes|Ada passes/")
    assert pressed, pressed
    await screenshot(page, "gah-keyboard")

    board = page.locator("svg.gah-board")
    heard = await board.aria_snapshot()
    bare = [line for line in heard.splitlines() if re.fullmatch(r'\s*- text: "?[\d ]+"?', line)]
    assert not bare, bare  # floors, rooms and the face-down pile were bare numbers
    for house in ("Your house", "Bot 1's house"):
        assert await board.get_by_role("group", name=house, exact=True).count() == 1, house
    roles = "els => els.map((e) => [e.getAttribute('role'), e.getAttribute('aria-label')])"
    floors = await page.eval_on_selector_all("svg.gah-board g.floor", roles)
    assert len(floors) == 6, floors  # each a group named for its floor, or a choice (a target the bot's turn asks)
    assert all((r == "group" and re.fullmatch(r"Floor [123]", n)) or (r == "button" and n) for r, n in floors), floors
    assert await board.get_by_role("img", name=re.compile(r"^Light (on|off)$")).count() == 6
    assert await board.get_by_role("img", name=re.compile(r"^\d+ cards? in hand$")).count() == 2
    assert await board.get_by_role("img", name=re.compile(r"^\d+ cards? face down$")).count() == 1
    card = re.compile(r"(room|Ghost|Cat|hole|bulb|food|Elevator|Lightning|joker) · \d+ bulbs?")
    for role, name in await page.eval_on_selector_all("#hand .gcard-chip", roles):
        assert (role == "img" and card.search(name)) or (role == "button" and name), (role, name)  # a card, a choice

    await page.select_option("#lang", "fr")
    await board.get_by_role("group", name="La maison de Robot 1", exact=True).wait_for()
    assert await board.get_by_role("img", name=re.compile(r"^Lumière (allumée|éteinte)$")).count() == 6
